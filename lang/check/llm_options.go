package check

import (
	"strings"

	"github.com/harnlang/harn/lang/diag"
	"github.com/harnlang/harn/lang/syntax"
)

// LLMOptions are the option keys the llm_call family reads (docs/llm.md,
// "Options"); stdlib/llm's tests keep the two lists equal.
var LLMOptions = []string{
	"provider", "model", "system", "messages", "temperature", "max_tokens", "top_p", "stop",
	"tools", "tool_choice", "json", "timeout_ms", "api_key", "base_url", "retries", "max_retries", "images",
	"schema", "output_schema", "json_schema", "response_format",
	"top_k", "seed", "frequency_penalty", "presence_penalty",
}

// llmOptionsArg gives the index of the options argument of each builtin
// of the llm_call family; the call forms without a system argument
// (`llm_call(prompt, {…})`) pass the options second.
var llmOptionsArg = map[string]int{
	"llm_call":                   2,
	"llm_call_safe":              2,
	"llm_completion":             2,
	"llm_stream":                 2,
	"llm_call_structured":        2,
	"llm_call_structured_result": 2,
	"llm_call_structured_safe":   2,
}

// llmOptions warns about a key of an llm_call options dict literal that
// no call reads: the option would be silently ignored (docs/spec/newer.md
// §3.4: “unknown `llm_call` option `max_toknes` “ with a suggestion).
func (c *checker) llmOptions(e *syntax.CallExpr) {
	i, ok := llmOptionsArg[e.Fn.Name]
	if !ok {
		return
	}
	var lit *syntax.DictLit
	if i < len(e.Args) {
		lit, _ = e.Args[i].(*syntax.DictLit)
	}
	if lit == nil && i == 2 && len(e.Args) == 2 && !strings.HasPrefix(e.Fn.Name, "llm_call_structured") {
		lit, _ = e.Args[1].(*syntax.DictLit)
	}
	if lit == nil {
		return
	}
	for _, en := range lit.Entries {
		if en.KeyExpr != nil || en.Spread != nil || knownLLMOption(en.KeyName) {
			continue
		}
		msg := "unknown `" + e.Fn.Name + "` option `" + en.KeyName + "`"
		if s := diag.Suggest(en.KeyName, LLMOptions); s != "" {
			msg += " — did you mean `" + s + "`?"
		}
		c.report(sevWarning, en.At, "", "known options: "+strings.Join(LLMOptions, ", "), msg)
	}
}

func knownLLMOption(k string) bool {
	for _, o := range LLMOptions {
		if o == k {
			return true
		}
	}
	return false
}
