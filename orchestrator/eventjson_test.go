package orchestrator

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/harnlang/harn/eventlog"
	"github.com/harnlang/harn/eventlog/memory"
	"github.com/harnlang/harn/internal/jsonv"
)

// numbersManifest: "show" answers with what its handler was handed,
// "fails" throws it, so that its DLQ entry can be retried.
const numbersManifest = `
[[triggers]]
id = "show"
kind = "manual"
handler = "show"

[[triggers]]
id = "fails"
kind = "manual"
handler = "fails"
retry = { max = 1 }

[[triggers]]
id = "keyed"
kind = "manual"
handler = "show"
dedupe_key = "payload.order"

[[triggers]]
id = "hook"
kind = "webhook"
handler = "show"
webhook = { path = "/in/hook" }
`

const numbersLib = `
let failing = true

fn seen(p) {
  var out = []
  for k in keys(p) { out = out + [k + "=" + to_string(p[k]) + ":" + type_of(p[k])] }
  return join(out, " ")
}

fn show(event) { return seen(event.payload) }

fn fails(event) {
  if failing {
    failing = false
    throw seen(event.payload)
  }
  return seen(event.payload)
}
`

// numbersPayload is the payload of the tests, as its text and as the
// MCP server hands it over (jsonv's numbers are json.Number).
const numbersPayload = `{"b": 12345678901234567890, "f": 123.0, "v": 9007199254740993, "z": -0}`

// numbersSeen is what a handler is handed: the numbers json_parse reads
// from numbersPayload (docs/spec/builtins.md §3.12).
const numbersSeen = "b=12345678901234567000:float f=123.0:float v=9007199254740993:int z=-0.0:float"

// numbersRecorded is numbersPayload as the log must keep it: every
// number's text as received.
const numbersRecorded = `{"b":12345678901234567890,"f":123.0,"v":9007199254740993,"z":-0}`

func mcpPayload(t *testing.T) any {
	t.Helper()
	v, err := jsonv.Parse([]byte(`{"payload": ` + numbersPayload + `}`))
	if err != nil {
		t.Fatal(err)
	}
	return jsonv.Plain(v)
}

// recordedPayload is the payload of event id as triggers.events holds it,
// byte for byte.
func recordedPayload(t *testing.T, log eventlog.Log, id string) string {
	t.Helper()
	recs, err := log.Read(context.Background(), TopicEvents, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if r.Headers["event_id"] != id {
			continue
		}
		var p struct {
			Event struct {
				Payload json.RawMessage `json:"payload"`
			} `json:"event"`
		}
		if err := json.Unmarshal(r.Payload, &p); err != nil {
			t.Fatal(err)
		}
		return string(p.Event.Payload)
	}
	t.Fatalf("event %s is not recorded", id)
	return ""
}

// An event's numbers are recorded with the text they came with and
// reach the handler as json_parse reads them, on a fire, its replay and
// the retry of its dead letter (docs/orchestrator.md, "Numbers in
// events").
func TestEventNumbersKeepTheirText(t *testing.T) {
	log := memory.New()
	o := start(t, log, writeProject(t, numbersManifest, numbersLib, ""))
	h := fire(t, o, "show", mcpPayload(t))
	if h.Status != "succeeded" || h.Result != numbersSeen {
		t.Fatalf("fire: %s", js(h))
	}
	if got := recordedPayload(t, log, h.EventID); got != numbersRecorded {
		t.Fatalf("recorded %s", got)
	}
	ev, err := o.Event(context.Background(), h.EventID)
	if err != nil || ev == nil {
		t.Fatal(ev, err)
	}
	if got := js(ev.Event["payload"]); got != numbersRecorded {
		t.Fatalf("inspected %s", got)
	}

	rep, err := o.Replay(context.Background(), h.EventID, nil, Caller{TraceID: "mcp_replay"})
	if err != nil {
		t.Fatal(err)
	}
	rh := rep.(Handle)
	if rh.Status != "succeeded" || rh.Result != numbersSeen {
		t.Fatalf("replay: %s", js(rh))
	}
	if got := recordedPayload(t, log, rh.EventID); got != numbersRecorded {
		t.Fatalf("replay recorded %s", got)
	}

	dead := fire(t, o, "fails", mcpPayload(t))
	if dead.Status != "dlq" || dead.Error == nil || *dead.Error != numbersSeen {
		t.Fatalf("first attempt: %s", js(dead))
	}
	entries, err := o.PendingDLQ(context.Background())
	if err != nil || len(entries) != 1 {
		t.Fatal(entries, err)
	}
	if got := js(entries[0].Event["payload"]); got != numbersRecorded {
		t.Fatalf("DLQ entry %s", got)
	}
	retry, err := o.RetryDLQ(context.Background(), *dead.DLQEntryID, Caller{TraceID: "mcp_retry"})
	if err != nil {
		t.Fatal(err)
	}
	if retry.Handle.Status != "succeeded" || retry.Handle.Result != numbersSeen {
		t.Fatalf("DLQ retry: %s", js(retry))
	}
	if got := recordedPayload(t, log, retry.Handle.EventID); got != numbersRecorded {
		t.Fatalf("retry recorded %s", got)
	}
}

// A webhook delivery's numbers are kept the same way; one whose number
// no handler could read is refused with 400 and nothing is recorded.
func TestWebhookNumbers(t *testing.T) {
	log := memory.New()
	o := start(t, log, writeProject(t, numbersManifest, numbersLib, ""))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !o.ServeWebhook(w, r, nil) {
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	post := func(body string) (int, map[string]any) {
		resp, err := http.Post(srv.URL+"/in/hook", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out map[string]any
		json.NewDecoder(resp.Body).Decode(&out)
		return resp.StatusCode, out
	}
	code, out := post(numbersPayload)
	id, _ := out["event_id"].(string)
	if code != 202 || id == "" {
		t.Fatalf("%d %v", code, out)
	}
	if got := recordedPayload(t, log, id); got != numbersRecorded {
		t.Fatalf("recorded %s", got)
	}
	h, err := o.handleFromLog(context.Background(), Envelope{EventID: id, BindingID: "hook"})
	for err == nil && h.Status == "waiting" {
		h, err = o.handleFromLog(context.Background(), Envelope{EventID: id, BindingID: "hook"})
	}
	if err != nil || h.Result != numbersSeen {
		t.Fatalf("handled: %s %v", js(h), err)
	}

	code, out = post(`{"ms": [1, 1e400]}`)
	if code != 400 || out["error"] != "event not accepted: payload.ms[1]: number 1e400 is out of range (a handler reads a JSON number as a 64-bit int or a finite float)" {
		t.Fatalf("1e400: %d %v", code, out)
	}
	if recs, _ := log.Read(context.Background(), TopicEvents, 0, 0); len(recs) != 1 {
		t.Fatalf("%d events recorded", len(recs))
	}
}

// A fired event with a number out of a float's range is refused before
// it has an id; one past 64 bits but within a float's range is not.
func TestFireRefusesNumbersOutOfRange(t *testing.T) {
	log := memory.New()
	o := start(t, log, writeProject(t, numbersManifest, numbersLib, ""))
	v, _ := jsonv.Parse([]byte(`{"payload": {"ms": 1e400}}`))
	h, err := o.Fire(context.Background(), "show", jsonv.Plain(v), Caller{})
	var bad *NumberRangeError
	if !errors.As(err, &bad) || bad.Path != "payload.ms" || bad.Number != "1e400" || h.EventID != "" {
		t.Fatalf("%s %v", js(h), err)
	}
	if recs, _ := log.Read(context.Background(), TopicEvents, 0, 0); len(recs) != 0 {
		t.Fatalf("%d events recorded", len(recs))
	}
	v, _ = jsonv.Parse([]byte(`{"payload": {"tiny": 1e-400, "e": 2e2}}`))
	if h := fire(t, o, "show", jsonv.Plain(v)); h.Status != "succeeded" || h.Result != "e=200.0:float tiny=0.0:float" {
		t.Fatalf("%s", js(h))
	}
}

// A dedupe key that is a number of the event is the number's text: two
// orders JMESPath's float64 would confuse are two events.
func TestDedupeKeyKeepsNumberText(t *testing.T) {
	o := start(t, memory.New(), writeProject(t, numbersManifest, numbersLib, ""))
	order := func(n string) Handle {
		v, err := jsonv.Parse([]byte(`{"payload": {"order": ` + n + `}}`))
		if err != nil {
			t.Fatal(err)
		}
		return fire(t, o, "keyed", jsonv.Plain(v))
	}
	a, b, again := order("9007199254740993"), order("9007199254740992"), order("9007199254740993")
	if a.Duplicate || b.Duplicate || a.EventID == b.EventID || !again.Duplicate || again.EventID != a.EventID {
		t.Fatalf("%s\n%s\n%s", js(a), js(b), js(again))
	}
}

func TestParseJSON(t *testing.T) {
	v, err := ParseJSON([]byte(" {\"n\": 1.50} \n"))
	if err != nil || js(v) != `{"n":1.50}` {
		t.Fatal(js(v), err)
	}
	for _, bad := range []string{`{"n": 1} x`, `{"n": 1}{}`, ``, `{"n": 01}`} {
		if _, err := ParseJSON([]byte(bad)); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}
