// Package llmmeter counts and bounds the LLM usage of one call into
// Harn code. It depends only on vm and concurrency, so a host (the
// orchestrator) can attach a meter without linking the LLM stack behind
// it; stdlib/llm counts each call's usage in the meter it finds.
package llmmeter

import (
	"fmt"
	"sync"

	"github.com/harnlang/harn/stdlib/concurrency"
	"github.com/harnlang/harn/vm"
)

// A Meter counts and bounds the LLM usage of one call into Harn code: the
// calls made on the thread it is attached to, by generators that thread
// consumes and by the tasks it spawns (and theirs). The run's totals
// (llm_usage) count every call as before; a Meter sees only its own.
// The orchestrator bounds a trigger's `when` predicate with one
// (when_budget.tokens_max and max_cost_usd, docs/orchestrator.md).
//
// The call that takes the usage past a limit fails (its tokens were
// spent: they count), so does every later call, and the meter's Exceeded
// function is called once with that error, for the owner to end the
// run.
type Meter struct {
	// MaxTokens bounds input plus output tokens; 0 is no limit.
	MaxTokens int64
	// MaxCostUSD bounds the list-price cost (llm_cost) of the calls; a
	// model without a price costs nothing here, as in llm_usage. 0 is no
	// limit.
	MaxCostUSD float64
	// Exceeded, when set, is called once, on the thread of the call that
	// took the usage past a limit.
	Exceeded func(error)

	mu     sync.Mutex
	tokens int64
	cost   float64
	err    error
}

// Usage is what the meter counted.
func (m *Meter) Usage() (tokens int64, costUSD float64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.tokens, RoundCost(m.cost)
}

// Err is the error of the call that went past a limit, or nil: every
// later call is refused with it.
func (m *Meter) Err() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.err
}

// Add counts a call of fn that used tokens and cost USD; past a limit,
// it is the error fail makes of the message saying so.
func (m *Meter) Add(fn string, tokens int64, cost float64, fail func(msg string) error) error {
	m.mu.Lock()
	m.tokens += tokens
	m.cost += cost
	if m.err != nil {
		err := m.err
		m.mu.Unlock()
		return err
	}
	var msg string
	switch {
	case m.MaxTokens > 0 && m.tokens > m.MaxTokens:
		msg = fmt.Sprintf("%s: the LLM calls used %d tokens, past the limit of %d", fn, m.tokens, m.MaxTokens)
	case m.MaxCostUSD > 0 && RoundCost(m.cost) > m.MaxCostUSD:
		msg = fmt.Sprintf("%s: the LLM calls cost %s USD, past the limit of %s USD", fn,
			vm.FormatFloat(RoundCost(m.cost)), vm.FormatFloat(m.MaxCostUSD))
	default:
		m.mu.Unlock()
		return nil
	}
	m.err = fail(msg)
	err, exceeded := m.err, m.Exceeded
	m.mu.Unlock()
	if exceeded != nil {
		exceeded(err)
	}
	return err
}

// RoundCost rounds a cost in USD as llm_usage and llm_cost report it.
func RoundCost(c float64) float64 { return float64(int64(c*1e9+0.5)) / 1e9 }

// Attach counts the LLM calls of th (and of what it spawns) in m until
// detach is called.
func Attach(th *vm.Thread, m *Meter) (detach func()) {
	ms := metersOf(th.VM())
	ms.Store(th, m)
	return func() { ms.Delete(th) }
}

type meterKey struct{}

// metersOf maps the threads meters are attached to to their meter.
func metersOf(v *vm.VM) *sync.Map {
	return v.Local(meterKey{}, func() any { return new(sync.Map) }).(*sync.Map)
}

// meterSlot is where a spawned task finds the meter of its spawner.
var meterSlot int

func init() {
	meterSlot = concurrency.InheritOnSpawn(func(spawner *vm.Thread) any {
		if m := Of(spawner); m != nil {
			return m
		}
		return nil
	})
}

// Of is the meter th's calls count in, or nil. A VM no meter was ever
// attached in answers at once: a spawn asks too.
func Of(th *vm.Thread) *Meter {
	ms, _ := th.VM().Local(meterKey{}, nil).(*sync.Map)
	if ms == nil {
		return nil
	}
	for t := th; t != nil; t = t.Lender() {
		if m, ok := ms.Load(t); ok {
			return m.(*Meter)
		}
	}
	m, _ := concurrency.Inherited(th, meterSlot).(*Meter)
	return m
}
