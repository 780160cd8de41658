package mcpclient

import (
	"net/url"
	"reflect"
	"testing"
	"time"

	"github.com/harnlang/harn/internal/jsonv"
)

func TestSplitCommand(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{"prog", []string{"prog"}},
		{"  prog  a   b ", []string{"prog", "a", "b"}},
		{`prog 'a b' "c d"`, []string{"prog", "a b", "c d"}},
		{`prog "say \"hi\"" '$HOME'`, []string{"prog", `say "hi"`, "$HOME"}},
		{`prog a\ b ''`, []string{"prog", "a b", ""}},
		{`prog x"y z"w`, []string{"prog", "xy zw"}},
	} {
		got, err := splitCommand(c.in)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("splitCommand(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{"", "   ", `prog 'open`, `prog "open`} {
		if _, err := splitCommand(bad); err == nil {
			t.Errorf("splitCommand(%q): no error", bad)
		}
	}
}

// A call's timeout names its duration as the language displays one.
func TestTimeoutNamesDurationAsDisplayed(t *testing.T) {
	for d, want := range map[time.Duration]string{
		100 * time.Millisecond:  "100ms",
		5 * time.Second:         "5s",
		90 * time.Second:        "90s",
		2 * time.Minute:         "2m",
		time.Hour:               "1h",
		1500 * time.Millisecond: "1500ms",
	} {
		err := &errTimeout{method: "tools/list", after: d}
		if got := err.Error(); got != "timed out after "+want+" waiting for the answer to tools/list" {
			t.Errorf("timeout after %v = %s, want the duration %s", d, got, want)
		}
	}
}

func TestIsResultWrapper(t *testing.T) {
	parse := func(s string) any {
		v, err := jsonv.Parse([]byte(s))
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	if !isResultWrapper(parse(`{"type":"object","properties":{"result":{"type":"integer"}},"required":["result"],"additionalProperties":false}`)) {
		t.Error("the wrapper is not recognised")
	}
	for _, s := range []string{
		`{"type":"object","properties":{"result":{}},"required":["result"]}`,
		`{"type":"object","properties":{"result":{},"other":{}},"required":["result"],"additionalProperties":false}`,
		`{"type":"object","properties":{"value":{}},"required":["value"],"additionalProperties":false}`,
		`{"type":"integer"}`,
		`true`,
	} {
		if isResultWrapper(parse(s)) {
			t.Errorf("%s taken for the wrapper", s)
		}
	}
}

func TestCardURLs(t *testing.T) {
	for in, want := range map[string][]string{
		"http://h:1":                     {"http://h:1/.well-known/mcp.json", "http://h:1/.well-known/mcp-card"},
		"http://h:1/":                    {"http://h:1/.well-known/mcp.json", "http://h:1/.well-known/mcp-card"},
		"https://h/mcp/":                 {"https://h/mcp/.well-known/mcp.json", "https://h/mcp/.well-known/mcp-card", "https://h/.well-known/mcp.json", "https://h/.well-known/mcp-card"},
		"https://h/.well-known/mcp.json": {"https://h/.well-known/mcp.json"},
	} {
		u, _ := url.Parse(in)
		if got := cardURLs(u); !reflect.DeepEqual(got, want) {
			t.Errorf("cardURLs(%s) = %q, want %q", in, got, want)
		}
	}
}

// A call that looks up a server between its exit and the supervisor's
// restart finds no client. It used to dereference the nil client while
// holding the table's lock, and every later call hung (a CI hang).
func TestLiveClientWhileRestarting(t *testing.T) {
	for _, s := range []*hostServer{
		{state: stateRunning},
		{state: stateRestarting},
		{state: stateStarting},
	} {
		if c := s.liveClient(); c != nil {
			t.Errorf("state %s, no client: liveClient = %v, want nil", s.state, c)
		}
	}
}
