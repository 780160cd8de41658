package llm

import (
	"github.com/harnlang/harn/stdlib/llm/llmmeter"
	"github.com/harnlang/harn/vm"
)

// meterOf is the meter th's LLM calls count in (llmmeter: the
// orchestrator bounds a `when` predicate with one), or nil.
func meterOf(th *vm.Thread) *llmmeter.Meter { return llmmeter.Of(th) }

// meterAdd counts the usage of r in m; past one of m's limits it is the
// budget_exceeded error of the call.
func meterAdd(m *llmmeter.Meter, fn string, r *response) error {
	cost, _ := modelCost(r.Model, r.InTokens, r.OutTokens)
	return m.Add(fn, r.InTokens+r.OutTokens, cost, func(msg string) error {
		return callError("budget_exceeded", msg, "", 0)
	})
}
