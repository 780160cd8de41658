package agents

import (
	"github.com/harnlang/harn/stdlib/agents/transcriptsink"
	"github.com/harnlang/harn/stdlib/jsonschema"
	"github.com/harnlang/harn/stdlib/transcripts"
	"github.com/harnlang/harn/vm"
)

// streamTo takes the VM's sink, if any, and picks the run's stream id.
func (l *loop) streamTo(th *vm.Thread) {
	l.sink = transcriptsink.Of(th.VM())
	if l.sink == nil {
		return
	}
	switch {
	case l.session != "":
		l.streamID = sessionStream(th, l.session)
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
