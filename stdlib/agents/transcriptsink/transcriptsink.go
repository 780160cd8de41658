// Package transcriptsink holds where a VM's agent loops stream their
// messages. It depends only on vm, so a host (the orchestrator) can set
// the sink without linking the agents package and the LLM stack behind
// it; stdlib/agents reads it when a loop starts.
package transcriptsink

import (
	"sync"

	"github.com/harnlang/harn/vm"
)

// Sink receives each message an agent loop adds to its conversation
// while a host streams transcripts: the prompt, injected feedback, the
// model's replies and the tool results, in order. id names the loop's
// transcript stream: its agent session's id, else the id of the
// transcript it continues, else a fresh transcript id for the run. msg
// is the message as JSON data; agent and run name the loop as
// agent_trace does. The orchestrator appends them to the event log topic
// agent.transcript.<id> (docs/spec/orchestrator.md §4).
type Sink func(id string, msg any, agent string, run int64)

type key struct{}

type holder struct {
	mu sync.Mutex
	s  Sink
}

func holderOf(v *vm.VM) *holder {
	return v.Local(key{}, func() any { return &holder{} }).(*holder)
}

// Set makes every agent loop of v stream its messages to s (nil stops
// it).
func Set(v *vm.VM, s Sink) {
	h := holderOf(v)
	h.mu.Lock()
	h.s = s
	h.mu.Unlock()
}

// Of is v's sink, or nil.
func Of(v *vm.VM) Sink {
	h := holderOf(v)
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.s
}
