package llm

import (
	"slices"
	"testing"

	"github.com/harnlang/harn/lang/check"
	hjson "github.com/harnlang/harn/stdlib/json"
	"github.com/harnlang/harn/vm"
)

func TestExtractJSON(t *testing.T) {
	for text, want := range map[string]string{
		`{"a": 1}`:                      `{a: 1}`,
		"  [1, 2]\n":                    `[1, 2]`,
		"```json\n{\"a\": [true]}\n```": `{a: [true]}`,
		"Sure! Here it is: {\"x\": \"y\"} Enjoy.": `{x: y}`,
		"```\n[3]\n```": `[3]`,
		"The list is [1, 2] and the dict {\"k\": 2}": `[1, 2] and the dict {"k": 2}`, // not JSON: error below
	} {
		v, err := extractJSON(text)
		if want == `[1, 2] and the dict {"k": 2}` {
			if err == nil {
				t.Errorf("%q: parsed %s, want an error", text, vm.ToDisplay(v))
			}
			continue
		}
		if err != nil || vm.ToDisplay(v) != want {
			t.Errorf("%q: got %v, %v; want %s", text, v, err, want)
		}
	}
}

func TestSplitChunks(t *testing.T) {
	for text, want := range map[string][]string{
		"":           nil,
		"one":        {"one"},
		"a b  c":     {"a ", "b  ", "c"},
		"trailing ":  {"trailing "},
		" lead":      {" ", "lead"},
		"x y z word": {"x ", "y ", "z ", "word"},
	} {
		if got := splitChunks(text); !slices.Equal(got, want) {
			t.Errorf("%q: %q, want %q", text, got, want)
		}
	}
}

func TestGlob(t *testing.T) {
	for _, c := range []struct {
		pattern, text string
		want          bool
	}{
		{"*weather*", "the weather today", true},
		{"*weather*", "climate", false},
		{"hello", "hello", true},
		{"hello", "hello there", false},
		{"a.b*", "a.b.c", true},
		{"a.b*", "axb", false},
		{"*multi*", "line one\nmulti line", true},
		{"(x)*", "(x) y", true},
	} {
		if got := globRE(c.pattern).MatchString(c.text); got != c.want {
			t.Errorf("%q ~ %q: %v", c.pattern, c.text, got)
		}
	}
}

func TestInferProvider(t *testing.T) {
	for name, want := range map[string]string{
		"claude-3-5-haiku-latest": "anthropic",
		"sonnet":                  "anthropic",
		"gpt-4o":                  "openai",
		"o3-mini":                 "openai",
		"o1":                      "openai",
		"omni":                    "",
		"llama3.1:8b":             "ollama",
		"qwen2.5-coder":           "ollama",
		"meta-llama/llama-3-70b":  "openrouter",
		"anthropic/claude-x":      "anthropic",
		"ollama/phi3":             "ollama",
		"mock-1":                  "mock",
		"":                        "",
		"something-else":          "",
	} {
		if got := inferProvider(name); got != want {
			t.Errorf("inferProvider(%q) = %q, want %q", name, got, want)
		}
	}
}

func TestEstimateTokens(t *testing.T) {
	for text, want := range map[string]int64{"": 0, "a": 1, "abcd": 1, "abcde": 2, "héllo wörld": 3} {
		if got := estimateTokens(text); got != want {
			t.Errorf("estimateTokens(%q) = %d, want %d", text, got, want)
		}
	}
}

// A stream's error type names its category; another type is classified
// with its message by the shared heuristic (stdlib/internal/errcat).
func TestStreamErrorCategory(t *testing.T) {
	for _, c := range []struct{ typ, msg, want string }{
		{"rate_limit_error", "slow down", "rate_limit"},
		{"overloaded_error", "Overloaded", "overloaded"},
		{"api_error", "boom", "server_error"},
		{"permission_error", "no", "auth"},
		{"invalid_request_error", "HTTP 404 model", "not_found"},
		{"invalid_request_error", "bad field", "generic"},
	} {
		if got := streamErrorCategory(c.typ, c.msg); got != c.want {
			t.Errorf("streamErrorCategory(%q, %q) = %q, want %q", c.typ, c.msg, got, c.want)
		}
	}
}

func TestModelCost(t *testing.T) {
	if c, ok := modelCost("sonnet", 1_000_000, 1_000_000); !ok || c != 18 {
		t.Errorf("sonnet: %v %v", c, ok)
	}
	if _, ok := modelCost("llama3.2", 10, 10); ok {
		t.Errorf("a local model has no price")
	}
	if _, ok := modelCost("unknown-model", 10, 10); ok {
		t.Errorf("an unknown model has no price")
	}
}

// The checker warns about option keys llm_call does not read; its list
// must be this package's.
func TestCheckerKnowsTheOptions(t *testing.T) {
	if !slices.Equal(check.LLMOptions, knownOptions) {
		t.Errorf("lang/check.LLMOptions = %v, stdlib/llm knownOptions = %v", check.LLMOptions, knownOptions)
	}
}

// TestContentTextPortable: the text a model reads of a value is a
// string as it is, nil as "", an enum variant or a Result as its portable
// {"enum","variant","fields"} JSON (never json_stringify's null), and a
// value with no portable form the lenient JSON.
func TestContentTextPortable(t *testing.T) {
	closure := vm.NewBuiltin("f", "f()", "", func(*vm.Thread, vm.Args) (vm.Value, error) { return vm.Nil, nil })
	for _, c := range []struct {
		v    vm.Value
		want string
	}{
		{vm.Str("plain"), "plain"},
		{vm.Nil, ""},
		{vm.Of(vm.Ok(vm.IntOf(5))), `{"enum":"Result","variant":"Ok","fields":[5]}`},
		{vm.Of(vm.NewList([]vm.Value{vm.Of(vm.Ok(vm.Str("a")))})), `[{"enum":"Result","variant":"Ok","fields":["a"]}]`},
		{vm.Of(vm.NewList([]vm.Value{vm.IntOf(1), vm.Of(closure)})), `[1,null]`},
	} {
		if got := ContentText(c.v); got != c.want {
			t.Errorf("ContentText(%s) = %s, want %s", vm.ToDisplay(c.v), got, c.want)
		}
	}
}

// TestArgumentsOneRule pins the one rule (hjson.ParseArguments) for a model's argument
// text, and that the Go form a provider's reply carries (argumentsOrRaw)
// follows it: blank is {}, JSON is read as json_parse reads it, other
// text is an error (the Go form keeps it as written).
func TestArgumentsOneRule(t *testing.T) {
	for _, c := range []struct{ text, value, err string }{
		{"", "{}", ""},
		{" \n\t", "{}", ""},
		{`{"a": 1.0, "b": [1, 2e2]}`, "{a: 1.0, b: [1, 200.0]}", ""},
		{`[1]`, "[1]", ""},
		{`{a: 1`, "", "arguments are not JSON: key must be a string at line 1 column 2"},
	} {
		v, err := hjson.ParseArguments(c.text)
		if c.err != "" {
			if err == nil || err.Error() != c.err {
				t.Errorf("%q: got %v, want error %q", c.text, err, c.err)
			}
			if r, ok := argumentsOrRaw(c.text).(rawArguments); !ok || string(r) != c.text {
				t.Errorf("%q: Go form %#v, want the text kept", c.text, argumentsOrRaw(c.text))
			}
			continue
		}
		if err != nil || vm.ToDisplay(v) != c.value {
			t.Errorf("%q: got %v, %v; want %s", c.text, v, err, c.value)
		}
		if got := vm.ToDisplay(argumentsValue(argumentsOrRaw(c.text))); got != c.value {
			t.Errorf("%q: Go form reads back as %s, want %s", c.text, got, c.value)
		}
	}
}
