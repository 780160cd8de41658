package mcpserver

import (
	"encoding/json"
	"math"
	"reflect"
	"testing"

	"github.com/harnlang/harn/internal/jsonv"
	"github.com/harnlang/harn/internal/secretscan"
	"github.com/harnlang/harn/mcp/protocol"
)

// actionGraphPayload writes by hand what encoding/json wrote from maps
// before (docs/spec/orchestrator.md §12): the same document, whatever the
// strings hold.
func TestActionGraphPayloadMatchesMaps(t *testing.T) {
	reference := func(tool, client, id, status, outcome string, errText any, result any) []byte {
		b, err := json.Marshal(map[string]any{
			"context": map[string]any{"tool_name": tool, "client_identity": client, "trace_id": id},
			"observability": map[string]any{
				"schema_version": 1, "planner_rounds": []any{}, "research_fact_count": 0,
				"action_graph_nodes": []any{map[string]any{"id": "mcp/" + id, "label": tool, "kind": "mcp_tool_call", "status": status, "outcome": outcome, "trace_id": id}},
				"action_graph_edges": []any{}, "worker_lineage": []any{}, "verification_outcomes": []any{}, "transcript_pointers": []any{},
				"compaction_events": []any{}, "daemon_events": []any{},
			},
			"result": result,
			"error":  errText,
		})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	msg := "bad \"input\"\n<&>\u2028"
	for _, c := range []struct {
		tool, client, status, outcome string
		errText                       *string
		result                        any
	}{
		{"harn.trust.query", "claude/1.0", "completed", "success", nil, map[string]any{"results": []any{}}},
		{"harn.secret_scan", "we\"ird\\client\t/\x01", "completed", "success", nil, []any{map[string]any{"redacted": "ghp_…yzAB", "line": 1}}},
		{"harn.trigger.fire", "c/1", "failed", "error", &msg, map[string]any{}},
	} {
		encoded, err := jsonMarshal(c.result)
		if err != nil {
			t.Fatal(err)
		}
		var errText any
		if c.errText != nil {
			errText = *c.errText
		}
		got := actionGraphPayload(c.tool, c.client, "mcp_0123", c.status, c.outcome, c.errText, encoded)
		want := reference(c.tool, c.client, "mcp_0123", c.status, c.outcome, errText, c.result)
		var g, w any
		if err := json.Unmarshal(got, &g); err != nil {
			t.Fatalf("%s: not JSON: %v\n%s", c.tool, err, got)
		}
		json.Unmarshal(want, &w)
		if !reflect.DeepEqual(g, w) {
			t.Errorf("%s:\n got %s\nwant %s", c.tool, got, want)
		}
	}
}

// A call's answer carries the value encoded once: structuredContent is
// its JSON, the text content the same JSON indented as
// jsonv.MarshalIndent indents it (docs/spec/orchestrator.md §5).
func TestSuccessResultEncodesOnce(t *testing.T) {
	value := map[string]any{"results": []any{map[string]any{"b": 2.5, "a": "x<y", "e": []any{}, "o": map[string]any{}}}}
	res, encoded := successResult(value)
	if string(encoded) != `{"results":[{"a":"x<y","b":2.5,"e":[],"o":{}}]}` {
		t.Fatalf("encoded %s", encoded)
	}
	parsed, _ := jsonv.Parse(encoded)
	want := jsonv.NewObject(3)
	want.Set("content", []any{protocol.TextContent(string(jsonv.MarshalIndent(parsed)))})
	want.Set("structuredContent", parsed)
	want.Set("isError", false)
	if got := jsonv.Marshal(res); string(got) != string(jsonv.Marshal(want)) {
		t.Errorf("answer\n got %s\nwant %s", got, jsonv.Marshal(want))
	}

	// A value encoding/json refuses still answers, and is recorded
	// without its result.
	res, encoded = successResult(math.NaN())
	if encoded != nil || !json.Valid(jsonv.Marshal(res)) {
		t.Errorf("NaN: %s %s", encoded, jsonv.Marshal(res))
	}
}

// A result the tool encoded itself (harn.secret_scan's findings) is
// answered and recorded as is, as the same value encoded by
// encoding/json would be.
func TestSuccessResultTakesEncodedResult(t *testing.T) {
	findings := secretscan.Scan(`token = "ghp_1234567890abcdefghijklmnopqrstuvwxyzAB" <&>`)
	wantRes, wantEncoded := successResult(findings)
	res, encoded := successResult(encodedResult(secretscan.AppendJSON(nil, findings)))
	if string(encoded) != string(wantEncoded) {
		t.Errorf("encoded\n got %s\nwant %s", encoded, wantEncoded)
	}
	if got, want := jsonv.Marshal(res), jsonv.Marshal(wantRes); string(got) != string(want) {
		t.Errorf("answer\n got %s\nwant %s", got, want)
	}
}

// actionGraphPayload sizes its buffer to the payload: one allocation,
// no regrowth (actionGraphFixed follows the literal text).
func TestActionGraphPayloadSize(t *testing.T) {
	msg := "handler failed"
	for _, errText := range []*string{nil, &msg} {
		b := actionGraphPayload("harn.trust.query", "claude/1.0", "019ae0c1-7c2d-7a4e-9a8f-0123456789ab", "completed", "success", errText, []byte(`{"results":[]}`))
		if len(b) != cap(b) {
			t.Errorf("payload of %d bytes in a buffer of %d", len(b), cap(b))
		}
	}
}
