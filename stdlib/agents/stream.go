package agents

import (
	"github.com/harnlang/harn/stdlib/jsonschema"
	"github.com/harnlang/harn/stdlib/transcripts"
	"github.com/harnlang/harn/vm"
)

// TranscriptSink receives each message an agent loop adds to its
// conversation while a host streams transcripts: the prompt, injected
// feedback, the model's replies and the tool results, in order. id names
// the loop's transcript stream: its agent session's id, else the id of
// the transcript it continues, else a fresh transcript id for the run.
// msg is the message as JSON data; agent and run name the loop as
// agent_trace does. The orchestrator appends them to the event log
// topic agent.transcript.<id> (docs/spec/orchestrator.md §4).
type TranscriptSink func(id string, msg any, agent string, run int64)

// SetTranscriptSink makes every agent loop of v stream its messages to
// s (nil stops it).
func SetTranscriptSink(v *vm.VM, s TranscriptSink) {
	st := stateOfVM(v)
	st.mu.Lock()
	st.sink = s
	st.mu.Unlock()
}

// streamTo takes the VM's sink, if any, and picks the run's stream id.
func (l *loop) streamTo(th *vm.Thread) {
	st := stateOf(th)
	st.mu.Lock()
	l.sink = st.sink
	st.mu.Unlock()
	if l.sink == nil {
		return
	}
	switch {
	case l.session != "":
		l.streamID = l.session
	case l.tr != nil:
		if id, ok := get(l.tr, "id").AsString(); ok && id.Go() != "" {
			l.streamID = id.Go()
		}
	}
	if l.streamID == "" {
		l.streamID = transcripts.NewID()
	}
}

// add appends msg to the conversation and streams it.
func (l *loop) add(r *runState, msg vm.Value) {
	l.messages = append(l.messages, msg)
	l.stream(r, msg)
}

func (l *loop) stream(r *runState, msg vm.Value) {
	if l.sink == nil {
		return
	}
	j, err := jsonschema.ToAny(msg)
	if err != nil {
		// a message holding a value with no JSON form still shows
		// its role and text
		j = map[string]any{"role": transcripts.Role(msg), "content": transcripts.Text(msg)}
	}
	l.sink(l.streamID, j, l.name, r.id)
}
