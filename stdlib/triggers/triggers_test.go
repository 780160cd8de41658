package triggers_test

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harnlang/harn/interp"
	"github.com/harnlang/harn/orchestrator/manifest"
)

func runResult(t *testing.T, src string) interp.RunResult {
	t.Helper()
	var stderr bytes.Buffer
	return interp.RunProgram(filepath.Join(t.TempDir(), "triggers.harn"), []byte(src), interp.Options{Stderr: &stderr, Stdin: strings.NewReader("")})
}

func run(t *testing.T, src string) string {
	t.Helper()
	res := runResult(t, src)
	if res.Err != nil {
		t.Fatalf("%v\n%s", res.Err, res.Stdout)
	}
	return string(res.Stdout)
}

// A bad field is refused by trigger_register with the message
// orchestrator/manifest gives the same field of a [[triggers]] table:
// both read the rules from internal/triggerspec.
func TestMessagesMatchTheManifest(t *testing.T) {
	cases := []struct {
		toml, harn, field string
	}{
		{`id = "bad id"`, `id: "bad id"`, "id"},
		{`kind = "cronn"`, `kind: "cronn"`, "kind"},
		{`kind = "hook"`, `kind: "hook"`, "kind"},
		{`provider = "github"`, `provider: "github"`, "provider"},
		{`provider = "nope"`, `provider: "nope"`, "provider"},
		{`tier = "auto"`, `tier: "auto"`, "tier"},
		{`retry = { max = 250 }`, `retry: {max: 250}`, "retry.max"},
		{`retry = { max = -1 }`, `retry: {max: -1}`, "retry.max"},
		{`retry = { backoff = "fib" }`, `retry: {backoff: "fib"}`, "retry.backoff"},
		{`retry = { retention_days = 0 }`, `retry: {retention_days: 0}`, "retry.retention_days"},
		{`retry = { base = "1s" }`, `retry: {base: "1s"}`, "retry.base"},
		{`retry = { backoff = "linear", base = "soon" }`, `retry: {backoff: "linear", base: "soon"}`, "retry.base"},
		{`retry = { maxx = 2 }`, `retry: {maxx: 2}`, "retry.maxx"},
		{`match = { event = ["x"] }`, `match: {event: ["x"]}`, "match.event"},
		{`match = { events = [""] }`, `match: {events: [""]}`, "match.events"},
		{`match = { events = "x" }`, `match: {events: "x"}`, "match.events"},
		{`schedule = "* * * * *"`, `schedule: "* * * * *"`, "schedule"},
		{`timezone = "UTC"`, `timezone: "UTC"`, "timezone"},
		{`handlr = "f"`, `handlr: "f"`, "handlr"},
	}
	for _, c := range cases {
		// The base binding is a manual trigger; the case adds or
		// replaces one field.
		key := strings.SplitN(c.toml, " ", 2)[0]
		base := map[string]string{"id": `"t1"`, "kind": `"manual"`, "handler": `"f"`}
		var toml strings.Builder
		toml.WriteString("[[triggers]]\n")
		for _, k := range []string{"id", "kind", "handler"} {
			if k != key {
				fmt.Fprintf(&toml, "%s = %s\n", k, base[k])
			}
		}
		toml.WriteString(c.toml + "\n")
		_, err := manifest.ParseWith("harn.toml", []byte(toml.String()), manifest.Options{NoHandlerSecrets: true, NoWebhookSecrets: true})
		var me *manifest.Error
		if !errors.As(err, &me) {
			t.Fatalf("%s: manifest accepted it (%v)", c.toml, err)
		}
		var want string
		for _, p := range me.Problems {
			if p.Field == c.field {
				want = p.Field + ": " + p.Msg
			}
		}
		if want == "" {
			t.Fatalf("%s: no problem on %s in %v", c.toml, c.field, me)
		}
		spec := map[string]string{"id": `"t1"`, "kind": `"manual"`, "handler": `fn(e) { return 1 }`}
		var fields []string
		for _, k := range []string{"id", "kind", "handler"} {
			if k != key {
				fields = append(fields, k+": "+spec[k])
			}
		}
		fields = append(fields, c.harn)
		out := run(t, "try { trigger_register({"+strings.Join(fields, ", ")+"}) } catch (e) { println(e) }")
		if !strings.Contains(out, want) {
			t.Errorf("%s:\n manifest: %s\n script:   %s", c.toml, want, out)
		}
	}
}

// Tasks firing at once (run with -race): every event is recorded once,
// the counters add up, and each handler sees its own context.
func TestConcurrentFiresFromTasks(t *testing.T) {
	out := run(t, `
var mismatches = 0
trigger_register({id: "job", kind: "manual", retry: {max: 2}, handler: fn(event) {
  let c = handler_context()
  if c.event_id != event.id || c.event.payload.n != event.payload.n { mismatches = mismatches + 1 }
  if event.payload.n % 5 == 0 && c.attempt == 1 { throw "flaky" }
  if event.payload.n % 7 == 0 { throw "broken" }
  return event.payload.n
}})
let ts = range(8).map({ i -> spawn {
  var got = []
  for j in range(25) { got = got.push(trigger_fire("job", {payload: {n: i * 25 + j}})) }
  got
} })
var handles = []
for t in ts { handles = handles + await(t) }
let ids = handles.map({ h -> h.event_id })
println(len(set(...ids)))
let m = trigger_list()[0].metrics
println("${m.received} ${m.dispatched} ${m.dlq} ${m.failed} ${m.in_flight}")
println(len(trigger_inspect_dlq()))
println(mismatches)
println(handler_context())
let life = trigger_inspect_lifecycle()
println(len(life.filter({ t -> t.state == "accepted" })))
`)
	// n in 0..199: multiples of 7 dead-letter after 2 attempts (29 of
	// them); multiples of 5 that are not multiples of 7 fail once (34).
	want := "200\n200 171 29 92 0\n29\n0\nnil\n200\n"
	if out != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
}

// A harness's clock waits out each backoff of the policy.
func TestBackoffMovesTheHarnessClock(t *testing.T) {
	for _, c := range []struct{ retry, want string }{
		{`{max: 4}`, "[0, 5000, 305000, 2105000]"},                                  // svix: 5s, 5m, 30m
		{`{max: 4, backoff: "linear", base: 2s}`, "[0, 2000, 6000, 12000]"},         // 2s, 4s, 6s
		{`{max: 4, backoff: "exponential", base: 1s}`, "[0, 1000, 3000, 7000]"},     // 1s, 2s, 4s
		{`{max: 3, backoff: "exponential", base: "6h"}`, "[0, 21600000, 57600000]"}, // 6h, then capped at 10h
		{`{max: 1}`, "[0]"}, // no retry
		{`{max: 0}`, "[0]"}, // 0 means 1 attempt too
	} {
		out := run(t, `
let h = trigger_test_harness()
var seen = []
h.register({id: "x", kind: "manual", retry: `+c.retry+`, handler: fn(e) { seen = seen.push(h.now_ms()); throw "no" }})
let r = h.fire("x")
println(seen)
println(r.status + " " + to_string(r.attempts))
`)
		if !strings.HasPrefix(out, c.want+"\ndlq ") {
			t.Errorf("%s: got %q, want %s", c.retry, out, c.want)
		}
	}
}

// exit() inside a handler ends the program: it is not a failed attempt.
func TestExitInsideHandlerIsNotCaught(t *testing.T) {
	res := runResult(t, `
trigger_register({id: "x", kind: "manual", handler: fn(e) { exit(3) }})
trigger_fire("x")
println("not reached")
`)
	if res.Status != 3 {
		t.Errorf("status %d, err %v", res.Status, res.Err)
	}
}

// Cron ticks of several bindings run in time order, with the payload
// the orchestrator's scheduler gives them.
func TestHarnessCronTicks(t *testing.T) {
	out := run(t, `
let h = trigger_test_harness({now_ms: 1767225600000})
var log = []
h.register({id: "a", kind: "cron", schedule: "*/10 * * * *", handler: fn(e) { log = log.push("a " + e.payload.scheduled_at) }})
h.register({id: "b", kind: "cron", schedule: "*/15 * * * *", timezone: "Europe/Paris", handler: fn(e) { log = log.push("b " + e.payload.scheduled_at) }})
h.register({id: "m", kind: "manual", handler: fn(e) { log = log.push("m") }})
let hs = h.advance(30m)
for l in log { println(l) }
println(len(hs))
println(h.now_ms() - 1767225600000)
println(len(h.advance(0)))
`)
	want := `a 2026-01-01T00:10:00Z
b 2026-01-01T01:15:00+01:00
a 2026-01-01T00:20:00Z
a 2026-01-01T00:30:00Z
b 2026-01-01T01:30:00+01:00
5
1800000
0
`
	if out != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
}
