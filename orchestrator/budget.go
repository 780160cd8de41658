package orchestrator

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"time"

	"github.com/harnlang/harn/eventlog"
)

// Budgets, autonomy and trust (docs/spec/orchestrator.md §2 `budget`, `tier`; §5
// harn.trust.query).
//
// Cost is what handlers say they spent: a handler whose result is a dict
// with `usage: {cost_usd, tokens}` reports it, and the attempt's outbox
// record carries it (cost_usd_micros, tokens). An autonomous decision is
// a handler run of a binding whose tier is act_auto. The view sums both
// per binding — in total, for the current UTC day and for the current
// clock hour — from the shared log, so every node enforces the same
// budget (up to the attempts running at the same moment).
//
// Before a handler runs, a binding with budget limits is checked; when a
// limit is reached the event is handled as on_budget_exhausted says:
// dlq (the default: dead-lettered with error_class budget_exhausted),
// skip (recorded as skipped), or retry_later (pending again until the
// hour or day window that is full resets; a lifetime limit never resets,
// so the event is dead-lettered).
//
// Every final outcome of a binding with a tier is also a trust record on
// trust.records, which harn.trust.query reads.

// TopicTrust holds the trust records.
const TopicTrust = "trust.records"

// TrustRecord is one final outcome of a tiered binding.
type TrustRecord struct {
	Agent          string  `json:"agent"`  // the binding id
	Action         string  `json:"action"` // the handler reference
	Tier           string  `json:"tier"`
	Outcome        string  `json:"outcome"` // success, failure, denied, timeout
	EventID        string  `json:"event_id"`
	TraceID        *string `json:"trace_id"`
	BindingVersion int     `json:"binding_version"`
	Attempts       int     `json:"attempts"`
	ErrorClass     string  `json:"error_class,omitempty"`
	Error          *string `json:"error"`
	CostUSDMicros  int64   `json:"cost_usd_micros"`
	Tokens         int64   `json:"tokens"`
	At             string  `json:"at"`
}

// usageOf reads `usage: {cost_usd, tokens}` from a handler result.
func usageOf(result any) (costMicros, tokens int64) {
	m, ok := result.(map[string]any)
	if !ok {
		return 0, 0
	}
	u, ok := m["usage"].(map[string]any)
	if !ok {
		return 0, 0
	}
	if c, ok := number(u["cost_usd"]); ok && c > 0 {
		costMicros = int64(math.Round(c * 1e6))
	}
	if t, ok := number(u["tokens"]); ok && t > 0 {
		tokens = int64(t)
	}
	return costMicros, tokens
}

func number(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case int64:
		return float64(n), true
	case int:
		return float64(n), true
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	}
	return 0, false
}

func micros(usd float64) int64 { return int64(math.Round(usd * 1e6)) }

// account fills the usage and autonomy fields of an attempt's outbox
// record.
func account(b *Binding, a attempt, rec *dispatchRecord) {
	if b == nil {
		return
	}
	if a.status == "succeeded" && !a.batched { // a batch's usage counts once, on its leader
		rec.CostUSDMicros, rec.Tokens = usageOf(a.result)
	}
	rec.Tier = b.Tier
	rec.Autonomous = a.ran && b.Tier == "act_auto"
}

// trustRecord is the trust.records entry of a final outcome (status
// succeeded, skipped or dlq), or nothing: for a binding without a tier,
// and for a skip that no budget caused (a filter, predicate or gate
// decided the event was not for the handler).
func trustRecord(env Envelope, b *Binding, a attempt, rec dispatchRecord, attempts int, at time.Time) []eventlog.TopicRecord {
	if b == nil || b.Tier == "" {
		return nil
	}
	tr := TrustRecord{Agent: b.ID, Action: b.Handler.String(), Tier: b.Tier, EventID: env.EventID, BindingVersion: env.BindingVersion,
		Attempts: attempts, ErrorClass: rec.ErrorClass, Error: rec.Error, CostUSDMicros: rec.CostUSDMicros, Tokens: rec.Tokens,
		At: at.UTC().Format(time.RFC3339Nano)}
	if env.TraceID != "" {
		t := env.TraceID
		tr.TraceID = &t
	}
	switch {
	case rec.Status == "succeeded":
		tr.Outcome = "success"
	case a.denied || rec.ErrorClass == "budget_exhausted":
		tr.Outcome = "denied"
	case rec.Status == "skipped":
		return nil
	case rec.ErrorClass == "handler_timeout":
		tr.Outcome = "timeout"
	default:
		tr.Outcome = "failure"
	}
	p, _ := json.Marshal(tr)
	h := map[string]string{"event_id": env.EventID, "binding_id": b.ID, "tier": b.Tier, "outcome": tr.Outcome}
	if env.TraceID != "" {
		h["trace_id"] = env.TraceID
	}
	return []eventlog.TopicRecord{{Topic: TopicTrust, Record: eventlog.Record{Kind: "trust_" + tr.Outcome, Payload: p, Headers: h, OccurredAtMs: at.UnixMilli()}}}
}

// checkBudget is the attempt that replaces the handler run when one of
// the binding's budget limits is reached, or nil.
func (o *Orchestrator) checkBudget(ctx context.Context, b *Binding) *attempt {
	bu := b.Budget
	if bu == nil || (bu.MaxCostUSD == 0 && bu.MaxTokens == 0 && bu.HourlyCostUSD == 0 && bu.DailyCostUSD == 0 &&
		bu.MaxAutonomousDecisionsPerHour == 0 && bu.MaxAutonomousDecisionsPerDay == 0) {
		return nil
	}
	if err := o.view.refresh(ctx); err != nil {
		return &attempt{status: "failed", err: fmt.Errorf("reading the budget: %v", err), errorClass: "unknown"}
	}
	now := o.opts.Now().UTC()
	m := o.view.metricsOf(b.ID)
	hour := now.Truncate(time.Hour).Add(time.Hour).UnixMilli()
	day := time.Date(now.Year(), now.Month(), now.Day()+1, 0, 0, 0, 0, time.UTC).UnixMilli()
	var reason string
	var reset int64
	switch {
	case bu.MaxCostUSD > 0 && m.CostTotalUSDMicros >= micros(bu.MaxCostUSD):
		reason = fmt.Sprintf("budget.max_cost_usd (%g USD) is spent", bu.MaxCostUSD)
	case bu.MaxTokens > 0 && m.TokensTotal >= bu.MaxTokens:
		reason = fmt.Sprintf("budget.max_tokens (%d) is spent", bu.MaxTokens)
	case bu.DailyCostUSD > 0 && m.CostTodayUSDMicros >= micros(bu.DailyCostUSD):
		reason, reset = fmt.Sprintf("budget.daily_cost_usd (%g USD) is spent for today", bu.DailyCostUSD), day
	case bu.HourlyCostUSD > 0 && m.CostHourUSDMicros >= micros(bu.HourlyCostUSD):
		reason, reset = fmt.Sprintf("budget.hourly_cost_usd (%g USD) is spent for this hour", bu.HourlyCostUSD), hour
	case bu.MaxAutonomousDecisionsPerDay > 0 && m.AutonomousDecisionsToday >= bu.MaxAutonomousDecisionsPerDay:
		reason, reset = fmt.Sprintf("budget.max_autonomous_decisions_per_day (%d) is reached", bu.MaxAutonomousDecisionsPerDay), day
	case bu.MaxAutonomousDecisionsPerHour > 0 && m.AutonomousDecisionsHour >= bu.MaxAutonomousDecisionsPerHour:
		reason, reset = fmt.Sprintf("budget.max_autonomous_decisions_per_hour (%d) is reached", bu.MaxAutonomousDecisionsPerHour), hour
	default:
		return nil
	}
	switch bu.OnBudgetExhausted {
	case "skip":
		return &attempt{status: "skipped", result: map[string]any{"reason": "budget exhausted: " + reason}, denied: true}
	case "retry_later":
		if reset > 0 {
			return &attempt{status: "failed", err: fmt.Errorf("budget exhausted: %s; retrying when the window resets", reason), errorClass: "budget_exhausted", retryAtMs: reset}
		}
	}
	return &attempt{status: "failed", err: fmt.Errorf("budget exhausted: %s", reason), errorClass: "budget_exhausted", hopeless: true}
}
