package mcpserver

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/harnlang/harn/internal/jsonv"
	"github.com/harnlang/harn/mcp/protocol"
	"github.com/harnlang/harn/orchestrator"
)

// Resources (docs/spec/orchestrator.md §6): harn://manifest, harn://topic/<name>,
// harn://event/<event_id>, harn://dlq/<entry_id>.

var staticTopics = []string{"trigger.inbox", "trigger.outbox"}

// readCtx bounds the log reads of a list, read or completion: these
// requests answer on the reader without a cancellable call.
func readCtx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), 30*time.Second)
}

// Resources is resources/list.
func (s *Server) Resources(r *protocol.Request) ([]any, *protocol.Error) {
	ctx, cancel := readCtx()
	defer cancel()
	out := []any{protocol.ResourceDocument("harn://manifest", "Manifest", "", "The running orchestrator manifest", "application/toml")}
	for _, t := range staticTopics {
		out = append(out, protocol.ResourceDocument("harn://topic/"+t, t, "", "EventLog topic "+t, "application/json"))
	}
	transcripts, err := s.orch.TranscriptTopics(ctx)
	if err != nil {
		return nil, internal(err)
	}
	for _, t := range transcripts {
		out = append(out, protocol.ResourceDocument("harn://topic/"+t, t, "", "Agent transcript event stream", "application/json"))
	}
	events, err := s.orch.Events(ctx)
	if err != nil {
		return nil, internal(err)
	}
	for _, e := range events {
		out = append(out, protocol.ResourceDocument("harn://event/"+e.EventID, "Event "+e.EventID, "", fmt.Sprintf("Trigger event log record #%d", e.LogID), "application/json"))
	}
	dlq, err := s.orch.PendingDLQ(ctx)
	if err != nil {
		return nil, internal(err)
	}
	for _, e := range dlq {
		out = append(out, protocol.ResourceDocument("harn://dlq/"+e.ID, "DLQ "+e.ID, "", "Pending DLQ entry for event "+e.EventID, "application/json"))
	}
	return out, nil
}

func internal(err error) *protocol.Error {
	return protocol.Errorf(protocol.CodeInternalError, err.Error())
}

// ResourceTemplates is resources/templates/list.
func (s *Server) ResourceTemplates(*protocol.Request) ([]any, *protocol.Error) {
	const mime = "application/json"
	return []any{
		protocol.TemplateDocument("harn://topic/{name}", "topic", "EventLog Topic", "Read a Harn EventLog topic by name.", mime),
		protocol.TemplateDocument("harn://event/{event_id}", "trigger-event", "Trigger Event", "Read a recorded trigger event plus related replay and trace artifacts.", mime),
		protocol.TemplateDocument("harn://dlq/{entry_id}", "dead-letter-entry", "Dead-Letter Entry", "Read one pending dead-letter queue entry.", mime),
	}, nil
}

func notFound(msg string) *protocol.Error { return protocol.Errorf(protocol.CodeResourceNotFound, msg) }

// ReadResource is resources/read; every failure is -32002.
func (s *Server) ReadResource(r *protocol.Request, uri string) any {
	ctx, cancel := readCtx()
	defer cancel()
	contents := func(text, mime string) any {
		return protocol.ResourceContents(protocol.TextResource(uri, mime, text))
	}
	pretty := func(v any) string { return string(jsonv.MarshalIndent(toJSONV(v))) }
	switch {
	case uri == "harn://manifest":
		b, err := os.ReadFile(s.opts.ManifestPath)
		if err != nil {
			return notFound(fmt.Sprintf("failed to read manifest %s: %v", s.opts.ManifestPath, err))
		}
		return contents(string(b), "application/toml")
	case strings.HasPrefix(uri, "harn://topic/"):
		topic := strings.TrimPrefix(uri, "harn://topic/")
		readable := topic == "trigger.inbox" || topic == "trigger.outbox"
		if !readable && strings.HasPrefix(topic, orchestrator.TranscriptPrefix) {
			ts, err := s.orch.TranscriptTopics(ctx)
			if err != nil {
				return notFound(err.Error())
			}
			for _, t := range ts {
				readable = readable || t == topic
			}
		}
		if !readable {
			return notFound("resource not found: " + uri)
		}
		events, err := s.orch.TopicTail(ctx, topic)
		if err != nil {
			return notFound(err.Error())
		}
		return contents(pretty(map[string]any{"uri": uri, "topic": topic, "events": events}), "application/json")
	case strings.HasPrefix(uri, "harn://event/"):
		id := strings.TrimPrefix(uri, "harn://event/")
		if id == "" {
			return notFound("resource not found: " + uri)
		}
		et, err := s.orch.Event(ctx, id)
		if err != nil {
			return notFound(err.Error())
		}
		if et == nil {
			return notFound(fmt.Sprintf("unknown trigger event id '%s'", id))
		}
		return contents(pretty(et), "application/json")
	case strings.HasPrefix(uri, "harn://dlq/"):
		id := strings.TrimPrefix(uri, "harn://dlq/")
		if id == "" {
			return notFound("resource not found: " + uri)
		}
		e, ok, err := s.orch.DLQEntry(ctx, id)
		if err != nil {
			return notFound(err.Error())
		}
		if !ok {
			return notFound(fmt.Sprintf("unknown DLQ entry '%s'", id))
		}
		return contents(pretty(e), "application/json")
	}
	return notFound("resource not found: " + uri)
}

// Complete is completion/complete for the resource templates and prompt
// arguments; the protocol layer ranks and caps the candidates.
func (s *Server) Complete(r *protocol.Request, ref protocol.CompletionRef, argument, value string) ([]string, *protocol.Error) {
	ctx, cancel := readCtx()
	defer cancel()
	if ref.Type == "ref/prompt" {
		return s.completePrompt(ref.Name, argument)
	}
	var want string
	switch ref.URI {
	case "harn://topic/{name}":
		want = "name"
	case "harn://event/{event_id}":
		want = "event_id"
	case "harn://dlq/{entry_id}":
		want = "entry_id"
	default:
		return nil, protocol.InvalidParams("Unknown resource template: " + ref.URI)
	}
	if argument != want {
		return nil, protocol.InvalidParams("Unknown resource template argument: " + argument)
	}
	var out []string
	switch want {
	case "name":
		out = append(out, staticTopics...)
		ts, err := s.orch.TranscriptTopics(ctx)
		if err != nil {
			return nil, internal(err)
		}
		out = append(out, ts...)
	case "event_id":
		evs, err := s.orch.Events(ctx)
		if err != nil {
			return nil, internal(err)
		}
		for _, e := range evs {
			out = append(out, e.EventID)
		}
	case "entry_id":
		dlq, err := s.orch.PendingDLQ(ctx)
		if err != nil {
			return nil, internal(err)
		}
		for _, e := range dlq {
			out = append(out, e.ID)
		}
	}
	sort.Strings(out)
	return out, nil
}
