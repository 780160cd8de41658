package orchestrator

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/harnlang/harn/eventlog/memory"
)

const transcriptManifest = `
[package]
name = "fixture"

[[triggers]]
id = "ask"
kind = "manual"
handler = "ask"
`

const transcriptLib = `
fn ask(event) {
  llm_mock({tool_calls: [{name: "add", arguments: {a: 1, b: 2}}]})
  llm_mock({text: "3"})
  let add = tool_def("add", "Add", {parameters: {a: "int", b: "int"}, handler: { a -> a.a + a.b }})
  let r = agent_loop("add 1 and 2", {tools: [add], session: event.session})
  llm_mock({text: "no session"})
  agent_loop("hello")
  return r.text
}
`

// TestAgentTranscriptTopic: an agent loop inside a dispatched handler
// streams its messages to agent.transcript.<id> (docs/spec/orchestrator.md §4),
// id its session's; a loop without a session gets a topic of its own.
func TestAgentTranscriptTopic(t *testing.T) {
	log := memory.New()
	o := start(t, log, writeProject(t, transcriptManifest, transcriptLib, ""))
	h := fire(t, o, "ask", map[string]any{"session": "s1"})
	if h.Status != "succeeded" || js(h.Result) != `"3"` {
		t.Fatalf("%+v %s", h, js(h.Error))
	}
	ctx := context.Background()
	recs, err := log.Read(ctx, TranscriptPrefix+"s1", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	var roles []string
	for _, r := range recs {
		var m map[string]any
		if err := json.Unmarshal(r.Payload, &m); err != nil {
			t.Fatal(err)
		}
		if r.Kind != "message" || r.Headers["run"] == "" || r.OccurredAtMs == 0 {
			t.Errorf("record %s", js(r))
		}
		roles = append(roles, m["role"].(string))
	}
	if strings.Join(roles, " ") != "user assistant tool assistant" {
		t.Fatalf("roles %v in %s", roles, js(recs))
	}
	var first map[string]any
	_ = json.Unmarshal(recs[0].Payload, &first)
	if first["content"] != "add 1 and 2" {
		t.Errorf("prompt %s", recs[0].Payload)
	}
	topics, _ := log.Topics(ctx)
	var streams []string
	for _, tp := range topics {
		if strings.HasPrefix(tp, TranscriptPrefix) {
			streams = append(streams, tp)
		}
	}
	if len(streams) != 2 || streams[0] != TranscriptPrefix+"s1" && streams[1] != TranscriptPrefix+"s1" {
		t.Fatalf("transcript topics %v", streams)
	}
	for _, tp := range streams {
		if tp == TranscriptPrefix+"s1" {
			continue
		}
		if !strings.HasPrefix(tp, TranscriptPrefix+"tr_") {
			t.Errorf("sessionless stream %q", tp)
		}
		if n, _ := log.Count(ctx, tp); n != 2 {
			t.Errorf("%s holds %d records, want the prompt and the reply", tp, n)
		}
	}
}
