package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/harnlang/harn/eventlog"
	"github.com/harnlang/harn/internal/jsonv"
	"github.com/harnlang/harn/internal/secretscan"
	"github.com/harnlang/harn/mcp/protocol"
	"github.com/harnlang/harn/orchestrator"
)

// toolSpec is one tool of the catalog (docs/spec/orchestrator.md §5).
type toolSpec struct {
	name, title, description string
	readOnly                 bool
	// async tools run as a task when the client opts into tasks.
	async  bool
	fields []field
	// required lists the required fields.
	required []string
	output   string // outputSchema JSON, or ""
	run      func(s *Server, c *callCtx, args map[string]any) (any, error)
}

// field is one input property and its type check.
type field struct {
	name   string
	schema string // JSON schema of the property
	kind   string // string, object, integer, boolean, enum, timestamp
	enum   []string
	min    *int64
}

var zero = int64(0)

var tools = []*toolSpec{
	{
		name: "harn.secret_scan", title: "Secret Scan", readOnly: true,
		description: "Scan text or a diff for leaked credentials (cloud keys, tokens, private keys, high-entropy secret assignments) and return redacted findings with stable fingerprints. Use before committing or opening a pull request.",
		fields:      []field{{name: "content", kind: "string", schema: `{"type":"string","description":"Text or diff to scan."}`}},
		required:    []string{"content"},
		run:         (*Server).secretScan,
	},
	{
		name: "harn.trigger.fire", title: "Fire Trigger", async: true,
		description: "Dispatch a manifest trigger now with a synthetic event; the payload object is merged over the event. Returns the dispatch handle (event_id, status, result).",
		fields: []field{
			{name: "trigger_id", kind: "string", schema: `{"type":"string","description":"Trigger (binding) id from harn.trigger.list."}`},
			{name: "payload", kind: "object", schema: `{"type":"object","description":"Event fields merged over the synthetic event, e.g. {\"payload\": {...}}."}`},
		},
		required: []string{"trigger_id", "payload"},
		output:   `{"type":"object","properties":{"event_id":{"type":"string"},"status":{"type":"string"}},"required":["event_id","status"]}`,
		run:      (*Server).fire,
	},
	{
		name: "harn.trigger.list", title: "List Triggers", readOnly: true,
		description: "List the manifest's triggers with kind, provider, predicate, handler, version, state and dispatch metrics.",
		run:         func(s *Server, c *callCtx, _ map[string]any) (any, error) { return s.orch.List(c.ctx) },
	},
	{
		name: "harn.trigger.replay", title: "Replay Trigger", async: true,
		description: "Re-dispatch a recorded trigger event under a new event id linked to the original. With as_of (RFC 3339), run it through the binding as it was registered then (its recorded handler, predicate and policies, with the code loaded now) and report both versions.",
		fields: []field{
			{name: "event_id", kind: "string", schema: `{"type":"string","description":"Recorded event id (trigger_evt_...)."}`},
			{name: "as_of", kind: "string", schema: `{"type":"string","format":"date-time","description":"Replay through the binding as it was registered at this instant (RFC 3339)."}`},
			{name: "steer_from", kind: "string", schema: `{"type":"string"}`},
			{name: "to_decision", kind: "string", schema: `{"type":"string"}`},
			{name: "reason", kind: "string", schema: `{"type":"string"}`},
			{name: "applied_by", kind: "string", schema: `{"type":"string"}`},
			{name: "scope", kind: "enum", enum: []string{"this_run", "this_persona", "all"}, schema: `{"type":"string","enum":["this_run","this_persona","all"]}`},
		},
		required: []string{"event_id"},
		run:      (*Server).replay,
	},
	{
		name: "harn.orchestrator.queue", title: "Inspect Orchestrator Queue", readOnly: true,
		description: "Queue counts and the most recent records of the inbox, outbox, attempts and dead-letter queue.",
		run:         func(s *Server, c *callCtx, _ map[string]any) (any, error) { return s.orch.Queue(c.ctx) },
	},
	{
		name: "harn.orchestrator.dlq.list", title: "List Dead Letter Queue", readOnly: true,
		description: "List pending dead-letter entries with their error class and retry history.",
		run:         func(s *Server, c *callCtx, _ map[string]any) (any, error) { return s.orch.DLQList(c.ctx) },
	},
	{
		name: "harn.orchestrator.dlq.retry", title: "Retry Dead Letter Queue Entry", async: true,
		description: "Re-dispatch the event of one pending dead-letter entry; the entry is marked retried and linked to the new event.",
		fields:      []field{{name: "entry_id", kind: "string", schema: `{"type":"string","description":"DLQ entry id (dlq_...)."}`}},
		required:    []string{"entry_id"},
		run:         (*Server).dlqRetry,
	},
	{
		name: "harn.orchestrator.inspect", title: "Inspect Orchestrator", readOnly: true,
		description: "The dispatcher snapshot: per-trigger metrics and flow control, budget, connectors, the persisted state snapshot and recent dispatches.",
		run:         func(s *Server, c *callCtx, _ map[string]any) (any, error) { return s.orch.Inspect(c.ctx) },
	},
	{
		name: "harn.trust.query", title: "Query Trust Records", readOnly: true,
		description: "Query trust records of autonomous actions by agent, action, time range, tier and outcome.",
		fields: []field{
			{name: "agent", kind: "string", schema: `{"type":"string"}`},
			{name: "action", kind: "string", schema: `{"type":"string"}`},
			{name: "since", kind: "timestamp", schema: `{"type":["string","integer"],"description":"RFC 3339, or unix seconds or milliseconds."}`},
			{name: "until", kind: "timestamp", schema: `{"type":["string","integer"],"description":"RFC 3339, or unix seconds or milliseconds."}`},
			{name: "tier", kind: "enum", enum: []string{"shadow", "suggest", "act_with_approval", "act_auto"}, schema: `{"type":"string","enum":["shadow","suggest","act_with_approval","act_auto"]}`},
			{name: "outcome", kind: "enum", enum: []string{"success", "failure", "denied", "timeout"}, schema: `{"type":"string","enum":["success","failure","denied","timeout"]}`},
			{name: "limit", kind: "integer", min: &zero, schema: `{"type":"integer","minimum":0}`},
			{name: "grouped_by_trace", kind: "boolean", schema: `{"type":"boolean"}`},
		},
		output: `{"type":"object","properties":{"results":{"type":"array"}},"required":["results"],"additionalProperties":false}`,
		run:    (*Server).trustQuery,
	},
}

// toolAlias maps legacy names to their tools (called, never listed).
var toolAlias = map[string]string{"harn::secret_scan": "harn.secret_scan"}

func findTool(name string) *toolSpec {
	if a, ok := toolAlias[name]; ok {
		name = a
	}
	for _, t := range tools {
		if t.name == name {
			return t
		}
	}
	return nil
}

// document is the tools/list entry of a tool.
func (t *toolSpec) document() *jsonv.Object {
	var b strings.Builder
	fmt.Fprintf(&b, `{"name":%s,"title":%s,"description":%s,"annotations":`, q(t.name), q(t.title), q(t.description))
	if t.readOnly {
		fmt.Fprintf(&b, `{"title":%s,"readOnlyHint":true,"destructiveHint":false,"idempotentHint":true,"openWorldHint":false}`, q(t.title))
	} else {
		fmt.Fprintf(&b, `{"title":%s,"readOnlyHint":false,"destructiveHint":true,"idempotentHint":false,"openWorldHint":true}`, q(t.title))
	}
	b.WriteString(`,"inputSchema":{"type":"object","properties":{`)
	for i, f := range t.fields {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `%s:%s`, q(f.name), f.schema)
	}
	b.WriteString(`}`)
	if len(t.required) > 0 {
		req, _ := json.Marshal(t.required)
		fmt.Fprintf(&b, `,"required":%s`, req)
	}
	b.WriteString(`,"additionalProperties":false}`)
	if t.output != "" {
		fmt.Fprintf(&b, `,"outputSchema":%s`, t.output)
	}
	if t.async {
		b.WriteString(`,"execution":{"taskSupport":"optional"}`)
	}
	b.WriteString(`}`)
	return mustObject(b.String())
}

func q(s string) string { b, _ := json.Marshal(s); return string(b) }

// Tools is tools/list.
func (s *Server) Tools(*protocol.Request) ([]*jsonv.Object, *protocol.Error) {
	out := make([]*jsonv.Object, len(tools))
	for i, t := range tools {
		out[i] = t.document()
	}
	return out, nil
}

// Tool answers every name: an unknown one is a tool whose call fails
// with `unknown tool '<name>'` (docs/spec/orchestrator.md §5, unlike harn serve mcp).
func (s *Server) Tool(_ *protocol.Request, name string) (protocol.Tool, bool) {
	return &callable{s: s, name: name, spec: findTool(name)}, true
}

type callable struct {
	s    *Server
	name string
	spec *toolSpec
}

func (c *callable) TaskSupport() string {
	if c.spec != nil && c.spec.async {
		return "optional"
	}
	return ""
}

// Validate accepts everything: argument errors are tool results with
// isError (docs/spec/orchestrator.md §5), reported by Call.
func (c *callable) Validate(any) *protocol.Error { return nil }

// callCtx is what a tool run sees.
type callCtx struct {
	ctx    context.Context
	x      *protocol.Call
	caller orchestrator.Caller
}

// Call runs the tool and records the call: one stderr line and one
// observability.action_graph record.
func (c *callable) Call(x *protocol.Call, args any) any {
	s := c.s
	cc := &callCtx{ctx: x.Context(), x: x, caller: orchestrator.Caller{Client: x.Identity(), TraceID: orchestrator.NewTraceID()}}
	var value any
	var err error
	if c.spec == nil {
		err = fmt.Errorf("unknown tool '%s'", c.name)
	} else {
		var plain map[string]any
		if plain, err = c.spec.check(args); err == nil {
			value, err = c.spec.run(s, cc, plain)
		}
	}
	if err != nil && errors.Is(context.Cause(cc.ctx), protocol.ErrShuttingDown) {
		// Drain cut the call short: the record says why, as its answer does.
		err = protocol.ErrShuttingDown
	}
	status := "completed"
	var res *jsonv.Object
	// The value is encoded once: the answer and the record share it.
	var encoded []byte
	if err != nil {
		status = "failed"
		res = protocol.ToolError(err.Error())
		if value != nil {
			encoded, _ = encodeResult(value)
		}
	} else {
		res, encoded = successResult(value)
	}
	line := callLine(cc.caller.Client, c.name, status, cc.caller.TraceID)
	s.recordCall(cc, line, c.name, status, value, encoded, err)
	if err == nil && c.spec != nil && c.spec.async {
		s.proto.NotifyListChanged("resources")
	}
	return res
}

// RefusedCall records a call the protocol layer answered with a
// JSON-RPC error before any tool ran (a missing or non-string name, a
// bad requestState): docs/spec/orchestrator.md §12 records every call,
// status failed. A call without a tool name is recorded as tool
// `unknown`, as a client without a clientInfo is.
func (s *Server) RefusedCall(x *protocol.Call, name string, e *protocol.Error) {
	if name == "" {
		name = "unknown"
	}
	cc := &callCtx{ctx: x.Context(), x: x, caller: orchestrator.Caller{Client: x.Identity(), TraceID: orchestrator.NewTraceID()}}
	line := callLine(cc.caller.Client, name, "failed", cc.caller.TraceID)
	s.recordCall(cc, line, name, "failed", nil, nil, errors.New(e.Message))
}

// callLine is a call's stderr line, exactly the form of
// docs/spec/orchestrator.md §12 — "[harn] mcp: client=… tool=… status=…
// trace_id=…" and a newline, nothing more, so a log pipeline written for
// the reference parses it — appended directly rather than formatted by
// fmt on every call. How long a dispatch took is on its trigger.attempts
// record (duration_ms). The client and tool come from the request, so
// one that would not read as a single word (empty, or with a space, a
// quote, a control character or bad UTF-8) is written Go-quoted: a
// client cannot end the line early or forge another.
func callLine(client, tool, status, traceID string) []byte {
	b := make([]byte, 0, 64+len(client)+len(tool)+len(traceID))
	b = append(b, "[harn] mcp: client="...)
	b = appendLogWord(b, client)
	b = append(b, " tool="...)
	b = appendLogWord(b, tool)
	b = append(b, " status="...)
	b = append(b, status...)
	b = append(b, " trace_id="...)
	b = append(b, traceID...)
	return append(b, '\n')
}

// appendLogWord appends s to a log line as one word: as is when it is
// one, else quoted.
func appendLogWord(b []byte, s string) []byte {
	if s != "" && utf8.ValidString(s) && !strings.ContainsFunc(s, func(r rune) bool { return r == '"' || unicode.IsSpace(r) || !unicode.IsPrint(r) }) {
		return append(b, s...)
	}
	return strconv.AppendQuote(b, s)
}

// successResult is the CallToolResult of a value, and the value's JSON
// text (nil when encoding/json refuses the value). The text is written
// as structuredContent as is and indented for the text content, in the
// layout jsonv.MarshalIndent has (two spaces, ": ", empty containers
// as {} and []), so the value is encoded once, not re-read and encoded
// again for each. jsonv.AppendIndent lays the text out without
// re-checking its grammar, as json.Indent would, byte by byte.
func successResult(v any) (*jsonv.Object, []byte) {
	var structured any
	var text []byte
	b, err := encodeResult(v)
	if err != nil {
		b = nil
		structured = fmt.Sprintf("<unencodable: %v>", err)
		text = jsonv.MarshalIndent(structured)
	} else {
		structured = json.RawMessage(b)
		e := encoders.Get().(*encoder)
		defer e.put() // text is e's buffer until the content below copies it
		e.buf.Write(jsonv.AppendIndent(e.buf.AvailableBuffer(), b))
		text = e.buf.Bytes()
	}
	res := jsonv.NewObject(3)
	res.Set("content", []any{protocol.TextContent(string(text))})
	res.Set("structuredContent", structured)
	res.Set("isError", false)
	return res, b
}

// recordCall queues the call's stderr line and its action_graph_update
// (docs/spec/orchestrator.md §12). encoded is the result's JSON text.
func (s *Server) recordCall(c *callCtx, line []byte, tool, status string, result any, encoded []byte, callErr error) {
	outcome, errText := "success", (*string)(nil)
	if callErr != nil {
		msg := callErr.Error()
		outcome, errText = "error", &msg
	}
	if result == nil {
		encoded = []byte("{}")
	}
	id := c.caller.TraceID
	var b []byte
	if encoded == nil {
		b, _ = json.Marshal(map[string]any{
			"context": map[string]any{"tool_name": tool, "client_identity": c.caller.Client, "trace_id": id},
			"error":   "unencodable result: " + unencodable(result)})
	} else {
		b = actionGraphPayload(tool, c.caller.Client, id, status, outcome, errText, encoded)
	}
	headers := map[string]string{"trace_id": id, "mcp_client": c.caller.Client, "tool_name": tool}
	s.rec.add(line, orchestrator.TopicActionGraph, eventlog.Record{Kind: "action_graph_update", Payload: b, Headers: headers, OccurredAtMs: time.Now().UnixMilli()})
}

// actionGraphPayload is the payload of a call's action_graph_update:
// {context, error, observability, result}, keys sorted at every level
// as encoding/json writes a map. Its shape is fixed and the result is
// JSON text already, so it is written directly rather than built as
// maps and encoded by reflection on every call.
func actionGraphPayload(tool, client, traceID, status, outcome string, errText *string, result []byte) []byte {
	// Sized to hold the payload whole (strings that need escaping aside):
	// one allocation per call rather than a guess and a regrowth.
	n := actionGraphFixed + len(client) + 2*len(tool) + 4*len(traceID) + len(outcome) + len(status) + len(result)
	if errText != nil {
		n += len(*errText) + 2
	} else {
		n += len("null")
	}
	b := make([]byte, 0, n)
	b = append(b, `{"context":{"client_identity":`...)
	b = jsonv.AppendString(b, client)
	b = append(b, `,"tool_name":`...)
	b = jsonv.AppendString(b, tool)
	b = append(b, `,"trace_id":`...)
	b = jsonv.AppendString(b, traceID)
	b = append(b, `},"error":`...)
	if errText == nil {
		b = append(b, "null"...)
	} else {
		b = jsonv.AppendString(b, *errText)
	}
	b = append(b, `,"observability":{"action_graph_edges":[],"action_graph_nodes":[{"id":`...)
	b = jsonv.AppendString(b, "mcp/"+traceID)
	b = append(b, `,"kind":"mcp_tool_call","label":`...)
	b = jsonv.AppendString(b, tool)
	b = append(b, `,"outcome":`...)
	b = jsonv.AppendString(b, outcome)
	b = append(b, `,"status":`...)
	b = jsonv.AppendString(b, status)
	b = append(b, `,"trace_id":`...)
	b = jsonv.AppendString(b, traceID)
	b = append(b, `}],"compaction_events":[],"daemon_events":[],"planner_rounds":[],"research_fact_count":0,`+
		`"schema_version":1,"transcript_pointers":[],"verification_outcomes":[],"worker_lineage":[]},"result":`...)
	b = append(b, result...)
	return append(b, '}')
}

// actionGraphFixed is how many bytes actionGraphPayload writes besides
// its arguments' text: the literal text, the quotes around the strings
// and the "mcp/" of the node id.
const actionGraphFixed = 375

// unencodable is why encoding/json refuses v.
func unencodable(v any) string {
	_, err := json.Marshal(v)
	if err == nil {
		return "unknown"
	}
	return err.Error()
}

// check validates arguments against the tool's fields, naming the field
// like serde does (`missing field \`trigger_id\“).
func (t *toolSpec) check(args any) (map[string]any, error) {
	obj, ok := args.(*jsonv.Object)
	if !ok {
		return nil, fmt.Errorf("invalid arguments: expected an object, got %s", jsonv.TypeName(args))
	}
	plain := make(map[string]any, obj.Len())
	for _, k := range obj.Keys() {
		f := t.field(k)
		if f == nil {
			if len(t.fields) == 0 {
				return nil, fmt.Errorf("unknown field `%s`, there are no fields", k)
			}
			names := make([]string, len(t.fields))
			for i := range t.fields {
				names[i] = t.fields[i].name
			}
			return nil, fmt.Errorf("unknown field `%s`, expected %s", k, oneOf(names))
		}
		v, _ := obj.Get(k)
		if v == nil && !slices.Contains(t.required, k) {
			// null for an optional field is the field not given, as
			// serde reads an Option (whose messages check mirrors):
			// `{"agent": null}` is no agent filter (docs/orchestrator.md).
			continue
		}
		if err := f.check(v); err != nil {
			return nil, err
		}
		plain[k] = jsonv.Plain(v)
	}
	for _, r := range t.required {
		if !obj.Has(r) {
			return nil, fmt.Errorf("missing field `%s`", r)
		}
	}
	return plain, nil
}

// oneOf lists the names a value could have been, as serde's
// "expected …" does: "`a`" for one, "`a` or `b`" for two, "one of `a`,
// `b`, `c`" for more.
func oneOf(names []string) string {
	switch len(names) {
	case 1:
		return "`" + names[0] + "`"
	case 2:
		return "`" + names[0] + "` or `" + names[1] + "`"
	}
	return "one of `" + strings.Join(names, "`, `") + "`"
}

// field finds an input property by name (nil: unknown).
func (t *toolSpec) field(name string) *field {
	for i := range t.fields {
		if t.fields[i].name == name {
			return &t.fields[i]
		}
	}
	return nil
}

func (f *field) check(v any) error {
	bad := func(want string) error {
		return fmt.Errorf("invalid type for field `%s`: expected %s, got %s", f.name, want, jsonv.TypeName(v))
	}
	switch f.kind {
	case "object":
		if _, ok := v.(*jsonv.Object); !ok {
			return bad("an object")
		}
	case "string":
		if _, ok := v.(string); !ok {
			return bad("a string")
		}
	case "boolean":
		if _, ok := v.(bool); !ok {
			return bad("a boolean")
		}
	case "integer":
		n, ok := v.(json.Number)
		if !ok || !jsonv.IsInteger(n) {
			return bad("an integer")
		}
		if f.min != nil && integerValue(n) < *f.min {
			return fmt.Errorf("invalid value for field `%s`: must be at least %d", f.name, *f.min)
		}
	case "enum":
		s, ok := v.(string)
		if !ok {
			return bad("a string")
		}
		for _, e := range f.enum {
			if e == s {
				return nil
			}
		}
		return fmt.Errorf("unknown variant `%s` for field `%s`, expected %s", s, f.name, oneOf(f.enum))
	case "timestamp":
		if _, err := parseTimestamp(v); err != nil {
			return err
		}
	}
	return nil
}

// integerValue is the value of a JSON number that check accepted as an
// integer: 3.0 and 3e0 are 3, as JSON Schema's "integer" counts them, and
// one beyond int64 is clamped to its range (a limit that large keeps
// every record).
func integerValue(n json.Number) int64 {
	if i, err := n.Int64(); err == nil {
		return i
	}
	r, ok := jsonv.Rat(n)
	switch {
	case !ok:
		return 0
	case r.Num().IsInt64():
		return r.Num().Int64()
	case r.Sign() < 0:
		return math.MinInt64
	}
	return math.MaxInt64
}

// parseTimestamp reads RFC 3339, or unix seconds (up to 10 digits) or
// milliseconds, as a string or a number.
func parseTimestamp(v any) (time.Time, error) {
	raw := ""
	switch x := v.(type) {
	case string:
		raw = x
	case json.Number:
		raw = string(x)
	default:
		return time.Time{}, fmt.Errorf("invalid timestamp '%s': expected RFC3339 or unix seconds/milliseconds", string(jsonv.Marshal(v)))
	}
	if t, err := time.Parse(time.RFC3339Nano, raw); err == nil {
		return t, nil
	}
	if digits().MatchString(raw) {
		var n int64
		fmt.Sscan(raw, &n)
		if len(raw) <= 10 {
			return time.Unix(n, 0), nil
		}
		return time.UnixMilli(n), nil
	}
	return time.Time{}, fmt.Errorf("invalid timestamp '%s': expected RFC3339 or unix seconds/milliseconds", raw)
}

var digits = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9]{1,13}$`) })

func (s *Server) fire(c *callCtx, args map[string]any) (any, error) {
	total := 1.0
	step := func(p float64, msg string) { c.x.Progress(p, &total, &msg, nil) }
	step(0.1, "loading runtime")
	id := args["trigger_id"].(string)
	if s.orch.Binding(id) == nil {
		return nil, fmt.Errorf("unknown manifest binding '%s'", id)
	}
	step(0.3, "preparing event")
	step(0.5, "firing trigger")
	h, err := s.orch.Fire(c.ctx, id, args["payload"], c.caller)
	if err != nil {
		return nil, err
	}
	step(0.95, "trigger complete")
	return h, nil
}

func (s *Server) replay(c *callCtx, args map[string]any) (any, error) {
	var asOf *time.Time
	if raw, ok := args["as_of"].(string); ok {
		t, err := time.Parse(time.RFC3339Nano, raw)
		if err != nil {
			return nil, fmt.Errorf("invalid as_of '%s': expected an RFC 3339 timestamp", raw)
		}
		asOf = &t
	}
	res, err := s.orch.Replay(c.ctx, args["event_id"].(string), asOf, c.caller)
	if err != nil {
		return nil, err
	}
	steering := map[string]any{}
	for _, k := range []string{"steer_from", "to_decision", "reason", "applied_by", "scope"} {
		if v, ok := args[k]; ok {
			steering[k] = v
		}
	}
	if len(steering) == 0 {
		return res, nil
	}
	// Steering fields make a report: the request recorded next to the
	// replay's handle (decision steering itself needs run records this
	// orchestrator does not keep).
	report := map[string]any{"replay_of_event_id": args["event_id"], "steering": steering, "steering_applied": false}
	switch r := res.(type) {
	case orchestrator.Handle:
		report["handle"] = r
	case orchestrator.ReplayReport:
		report["as_of_report"] = r
		report["handle"] = r.Handle
	}
	return report, nil
}

func (s *Server) dlqRetry(c *callCtx, args map[string]any) (any, error) {
	return s.orch.RetryDLQ(c.ctx, args["entry_id"].(string), c.caller)
}

func (s *Server) secretScan(c *callCtx, args map[string]any) (any, error) {
	content := args["content"].(string)
	findings := secretscan.Scan(content)
	now := time.Now()
	audit := secretscan.NewAudit(secretscan.CallerMCP, len(content), findings, now)
	h := map[string]string{"trace_id": c.caller.TraceID, "mcp_client": c.caller.Client}
	// The audit goes behind the answer with the call's action-graph
	// record, which it precedes in the log (docs/orchestrator.md,
	// Failure semantics).
	s.rec.add(nil, secretscan.AuditTopic, eventlog.Record{Kind: audit.Kind(), Payload: audit.Payload(), Headers: h, OccurredAtMs: now.UnixMilli()})
	return encodedResult(secretscan.AppendJSON(nil, findings)), nil
}

// trustQuery answers from the trust records the dispatcher writes for
// the final outcomes of bindings with a tier (orchestrator/budget.go),
// oldest first; with limit, the newest limit matching records. The
// records come decoded from s.trust, which reads only what the topic
// gained since the last query.
func (s *Server) trustQuery(c *callCtx, args map[string]any) (any, error) {
	var f trustFilter
	for _, k := range []string{"agent", "action", "tier", "outcome"} {
		if want, ok := args[k]; ok {
			f.fields = append(f.fields, trustField{k, want})
		}
	}
	if v, ok := args["since"]; ok {
		f.since, _ = parseTimestamp(jsonv.FromPlain(v))
	}
	if v, ok := args["until"]; ok {
		f.until, _ = parseTimestamp(jsonv.FromPlain(v))
	}
	recs, err := s.trust.records(c.ctx, s.orch.Log())
	if err != nil {
		return nil, err
	}
	results := []any{}
	if lim, ok := args["limit"].(json.Number); ok {
		n := integerValue(lim)
		for i := len(recs) - 1; i >= 0 && int64(len(results)) < n; i-- {
			if f.match(recs[i]) {
				results = append(results, recs[i].payload)
			}
		}
		slices.Reverse(results)
	} else {
		for _, r := range recs {
			if f.match(r) {
				results = append(results, r.payload)
			}
		}
	}
	if g, _ := args["grouped_by_trace"].(bool); g {
		groups := map[string][]any{}
		var keys []string
		for _, r := range results {
			t := fmt.Sprint(r.(map[string]any)["trace_id"])
			if _, ok := groups[t]; !ok {
				keys = append(keys, t)
			}
			groups[t] = append(groups[t], r)
		}
		sort.Strings(keys)
		grouped := []any{}
		for _, k := range keys {
			grouped = append(grouped, map[string]any{"trace_id": k, "records": groups[k]})
		}
		results = grouped
	}
	return trustResults{results}, nil
}

// trustResults is harn.trust.query's answer, {"results": [...]}: a
// struct encodes as a one-key map does, without building the map.
type trustResults struct {
	Results []any `json:"results"`
}

// encodedResult is a tool's result that the tool encoded itself, as
// jsonMarshal would have: compact, HTML characters unescaped.
type encodedResult []byte

// encodeResult is a tool result's JSON text.
func encodeResult(v any) ([]byte, error) {
	if b, ok := v.(encodedResult); ok {
		return b, nil
	}
	return jsonMarshal(v)
}

func jsonMarshal(v any) ([]byte, error) {
	e := encoders.Get().(*encoder)
	defer e.put()
	if err := e.enc.Encode(v); err != nil {
		return nil, err
	}
	return append([]byte(nil), bytes.TrimRight(e.buf.Bytes(), "\n")...), nil
}

// An encoder is an encoding/json encoder that does not escape HTML,
// with its buffer; encoders are pooled, so a call's answer is encoded
// into a used buffer and copied out once.
type encoder struct {
	buf bytes.Buffer
	enc *json.Encoder
}

var encoders = sync.Pool{New: func() any {
	e := &encoder{}
	e.enc = json.NewEncoder(&e.buf)
	e.enc.SetEscapeHTML(false)
	return e
}}

// put pools e unless a large document grew its buffer.
func (e *encoder) put() {
	if e.buf.Cap() <= 64<<10 {
		e.buf.Reset()
		encoders.Put(e)
	}
}
