package manifest

import (
	"fmt"
	"math"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/harnlang/harn/internal/triggerspec"
	"github.com/jmespath-community/go-jmespath"
)

// Trigger is one binding: an event source, the events it accepts and the
// handler that runs for each.
type Trigger struct {
	// Index is the [[triggers]] table the binding comes from; Line is
	// that table's line (0 when unknown).
	Index    int
	Line     int
	ID       string
	Kind     string // cron, webhook, manual, poll, stream, predicate, a2a-push
	Provider string
	// Events is match.events; DefaultEventKind applies when it is empty.
	Events  []string
	Handler Handler
	// When is the raw predicate reference, "" when none; WhenRef is it
	// resolved.
	When       string
	WhenRef    *Handler
	WhenBudget *WhenBudget
	Tier       string
	Schedule   string
	Timezone   string
	Location   *time.Location
	// DedupeKey and Filter are JMESPath expressions over the event, as
	// written; Dedupe and Match are them compiled (nil when unset).
	DedupeKey string
	Filter    string
	Dedupe    jmespath.JMESPath
	Match     jmespath.JMESPath
	Timeout   time.Duration // 0: no handler timeout
	Retry     Retry
	Priority  *Priority
	Budget    *Budget
	Flow      Flow
	// Secrets is `secrets` as written (name -> "<provider>/<secret>");
	// SecretValues the values read from the environment at load time.
	Secrets      map[string]string
	SecretValues map[string]string
	Webhook      *Webhook
	// AllowCleartext permits http:// for an a2a:// handler.
	AllowCleartext bool
	// Fingerprint changes whenever the definition does (binding versions).
	Fingerprint string
	// Definition is the trigger table as written (for replay reports).
	Definition map[string]any
}

// EventKind is the kind of a synthetic event for the binding: the first
// of match.events, else the kind's default.
func (t *Trigger) EventKind() string {
	if len(t.Events) > 0 {
		return t.Events[0]
	}
	return DefaultEventKind(t.Kind)
}

// DefaultEventKind is the event kind of a binding kind with no
// match.events (docs/spec/orchestrator.md §2).
func DefaultEventKind(kind string) string { return triggerspec.DefaultEventKind(kind) }

// Handler is a resolved handler reference.
type Handler struct {
	Kind string `json:"kind"` // local, a2a, worker
	// Reference is the local form as written ("on_event", "handlers::on_event").
	Reference string `json:"reference,omitempty"`
	Target    string `json:"target,omitempty"` // a2a: host/path
	Queue     string `json:"queue,omitempty"`  // worker
	// Module is the [exports] alias of a "module::fn" reference ("" for
	// lib.harn); File is the module's path relative to the root;
	// Function the function name.
	Module   string `json:"-"`
	File     string `json:"-"`
	Function string `json:"-"`
}

// String is the reference as a manifest writes it.
func (h Handler) String() string {
	switch h.Kind {
	case "a2a":
		return "a2a://" + h.Target
	case "worker":
		return "worker://" + h.Queue
	}
	return h.Reference
}

// DefaultLibrary is the module bare handler names resolve in.
const DefaultLibrary = "lib.harn"

// Retry is the retry policy (internal/triggerspec, shared with the
// library's in-script triggers).
type Retry = triggerspec.Retry

// DefaultRetry is the policy of a trigger without `retry`: the svix
// schedule, 7 attempts in all.
var DefaultRetry = triggerspec.DefaultRetry

// Priority is `priority`: a level, or a key and the order of its values.
type Priority struct {
	Level string   `json:"level,omitempty"` // high, normal, low
	Key   string   `json:"key,omitempty"`
	Order []string `json:"order,omitempty"`
}

// Budget is `budget`; zero fields are unset.
type Budget struct {
	MaxCostUSD                    float64 `json:"max_cost_usd,omitempty"`
	MaxTokens                     int64   `json:"max_tokens,omitempty"`
	HourlyCostUSD                 float64 `json:"hourly_cost_usd,omitempty"`
	DailyCostUSD                  float64 `json:"daily_cost_usd,omitempty"`
	MaxAutonomousDecisionsPerHour int64   `json:"max_autonomous_decisions_per_hour,omitempty"`
	MaxAutonomousDecisionsPerDay  int64   `json:"max_autonomous_decisions_per_day,omitempty"`
	MaxConcurrent                 int64   `json:"max_concurrent,omitempty"`
	OnBudgetExhausted             string  `json:"on_budget_exhausted,omitempty"`
}

// WhenBudget bounds one run of the `when` predicate: its LLM calls'
// list-price cost and tokens (0: no limit) and its duration.
type WhenBudget struct {
	MaxCostUSD float64       `json:"max_cost_usd,omitempty"`
	TokensMax  int64         `json:"tokens_max,omitempty"`
	Timeout    time.Duration `json:"-"`
}

// Flow holds the flow-control gates; nil means not configured.
type Flow struct {
	Concurrency *Gate `json:"concurrency,omitempty"`
	Throttle    *Gate `json:"throttle,omitempty"`
	RateLimit   *Gate `json:"rate_limit,omitempty"`
	Debounce    *Gate `json:"debounce,omitempty"`
	Singleton   *Gate `json:"singleton,omitempty"`
	Batch       *Gate `json:"batch,omitempty"`
}

// Gate is one flow-control table. Key is a top-level event field (or a
// dotted path into the event) that partitions the gate; "" is one
// partition for the binding.
type Gate struct {
	Key     string        `json:"key,omitempty"`
	Max     int           `json:"max,omitempty"`
	Period  time.Duration `json:"-"`
	Size    int           `json:"size,omitempty"`
	Timeout time.Duration `json:"-"`
}

// Webhook is the `webhook` table of a webhook trigger.
type Webhook struct {
	// Path is where deliveries are posted (default /hooks/<id>).
	Path string
	// Secret is the HMAC key, read from the environment variable
	// SecretEnv at load time; nil means deliveries are not signed.
	Secret    []byte
	SecretEnv string
	// SignatureHeader carries "sha256=<hex>" (the secret itself for
	// scheme "token"); TimestampHeader the unix seconds the signature
	// covers (scheme "harn") — see docs.
	SignatureHeader string
	TimestampHeader string
	Scheme          string // harn: HMAC(ts + "." + body); github: HMAC(body); token: the secret (A2A push notification token)
	// ReplayWindow bounds the age of a signed timestamp.
	ReplayWindow time.Duration
	// DeliveryHeader names the idempotency header.
	DeliveryHeader string
}

// Providers is the provider catalog, with the binding kinds each serves.
var Providers = triggerspec.Providers

// Kinds are the binding kinds, in documentation order.
var Kinds = triggerspec.Kinds

var triggerFields = map[string]bool{
	"id": true, "kind": true, "provider": true, "match": true, "handler": true, "tier": true, "autonomy_tier": true,
	"when": true, "when_budget": true, "schedule": true, "timezone": true, "dedupe_key": true, "filter": true,
	"retry": true, "priority": true, "budget": true, "concurrency": true, "throttle": true, "rate_limit": true,
	"debounce": true, "singleton": true, "batch": true, "secrets": true, "allow_cleartext": true, "sources": true,
	"webhook": true, "timeout": true,
}

// trigger validates one [[triggers]] table and returns its bindings
// (several when it has `sources`).
func (v *validator) trigger(m *Manifest, t map[string]any) []*Trigger {
	id, ok := v.str(t, "id", "id")
	if ok && id == "" {
		v.fail("id", "is required")
	} else if !ok && t["id"] == nil {
		v.fail("id", "is required")
	}
	if id != "" {
		if msg := triggerspec.IDProblem(id); msg != "" {
			v.fail("id", "%s", msg)
		}
	}
	v.id = id
	for _, k := range sortedKeys(t) {
		if !triggerFields[k] {
			v.fail(k, "%s", triggerspec.UnknownField(k, sortedKeys(triggerFields)))
		}
	}
	if raw, ok := t["sources"]; ok {
		list, ok := raw.([]any)
		if !ok || len(list) == 0 {
			v.fail("sources", "must be a non-empty array of tables")
			return nil
		}
		var out []*Trigger
		sourceIDs := map[string]int{}
		for j, s := range list {
			st, ok := s.(map[string]any)
			if !ok {
				v.fail(fmt.Sprintf("sources[%d]", j), "must be a table")
				continue
			}
			field := fmt.Sprintf("sources[%d].id", j)
			sid, ok := v.str(st, "id", field)
			switch {
			case !ok && st["id"] != nil:
				continue // not a string: reported
			case sid == "":
				v.fail(field, "is required")
				continue
			case triggerspec.IDProblem(sid) != "":
				v.fail(field, "%s", triggerspec.IDProblem(sid))
				continue
			}
			if prev, dup := sourceIDs[sid]; dup {
				v.fail(field, "duplicate source id %q (also sources[%d])", sid, prev)
				continue
			}
			sourceIDs[sid] = j
			merged := map[string]any{}
			for k, x := range t {
				if k != "sources" {
					merged[k] = x
				}
			}
			for k, x := range st {
				if !triggerFields[k] || k == "sources" || k == "handler" || k == "when" {
					v.fail(fmt.Sprintf("sources[%d].%s", j, k), "not allowed in a source (sources share the handler and predicate)")
					continue
				}
				merged[k] = x
			}
			merged["id"] = id + "." + sid
			if tr := v.binding(m, merged, fmt.Sprintf("sources[%d].", j), st); tr != nil {
				out = append(out, tr)
			}
		}
		return out
	}
	if tr := v.binding(m, t, "", nil); tr != nil {
		return []*Trigger{tr}
	}
	return nil
}

// binding validates the fields of one binding. For a source, prefix
// names it and own is its table: a problem with a field the trigger sets
// and the source does not is reported once, on the trigger's field; any
// other (including a missing field) on the source (sources[j].field).
func (v *validator) binding(m *Manifest, t map[string]any, prefix string, own map[string]any) *Trigger {
	before := len(v.problems)
	f := func(name string) string {
		key := name
		if i := strings.IndexAny(name, ".["); i >= 0 {
			key = name[:i]
		}
		_, given := t[key]
		if _, mine := own[key]; own != nil && given && !mine {
			return name // set on the trigger and shared by its sources
		}
		return prefix + name
	}
	tr := &Trigger{Index: v.index, Line: v.line(), Retry: DefaultRetry, Definition: t, Fingerprint: fingerprint(t)}
	tr.ID, _ = t["id"].(string)

	tr.Kind, _ = v.str(t, "kind", f("kind"))
	tr.Provider, _ = v.str(t, "provider", f("provider"))
	switch {
	case tr.Kind == "" && t["kind"] == nil:
		v.fail(f("kind"), "%s", triggerspec.KindRequired())
	case tr.Kind != "":
		if msg := triggerspec.KindProblem(tr.Kind); msg != "" {
			v.fail(f("kind"), "%s", msg)
		}
	}
	if tr.Provider == "" && t["provider"] == nil {
		tr.Provider = triggerspec.DefaultProvider(tr.Kind)
		if tr.Provider == "" && contains(Kinds, tr.Kind) {
			v.fail(f("provider"), "%s", triggerspec.ProviderRequired(tr.Kind))
		}
	}
	if tr.Provider != "" {
		if msg := triggerspec.ProviderProblem(tr.Kind, tr.Provider); msg != "" {
			v.fail(f("provider"), "%s", msg)
		}
	}

	if raw, ok := t["match"]; ok {
		mt, ok := raw.(map[string]any)
		if !ok {
			v.fail(f("match"), triggerspec.MatchNotTable)
		} else {
			for k := range mt {
				if k != "events" {
					v.fail(f("match."+k), triggerspec.MatchOnlyEvent)
				}
			}
			tr.Events = v.strList(mt, "events", f("match.events"))
		}
	}

	if raw, ok := t["handler"]; !ok {
		v.fail(f("handler"), "is required")
	} else if s, ok := raw.(string); !ok || s == "" {
		v.fail(f("handler"), "must be a non-empty string")
	} else if h, err := ParseHandler(s, m.Exports); err != nil {
		v.fail(f("handler"), "%s", err)
	} else {
		tr.Handler = h
	}
	if raw, ok := t["when"]; ok {
		if s, ok := raw.(string); !ok || s == "" {
			v.fail(f("when"), "must be a function reference (string)")
		} else if h, err := ParseHandler(s, m.Exports); err != nil || h.Kind != "local" {
			if err == nil {
				err = fmt.Errorf("a predicate must be a local function, not %s", s)
			}
			v.fail(f("when"), "%s", err)
		} else {
			tr.When, tr.WhenRef = s, &h
		}
	}
	if raw, ok := t["when_budget"]; ok {
		wt, ok := v.table(raw, f("when_budget"), "max_cost_usd", "tokens_max", "timeout")
		if ok {
			if tr.When == "" {
				v.fail(f("when_budget"), "requires `when`")
			}
			wb := &WhenBudget{}
			// Bounds on the LLM calls of one predicate run, which the
			// orchestrator meters (docs/orchestrator.md, when_budget).
			wb.MaxCostUSD = v.nonNegFloat(wt, "max_cost_usd", f("when_budget.max_cost_usd"))
			wb.TokensMax = v.nonNegInt(wt, "tokens_max", f("when_budget.tokens_max"))
			wb.Timeout = v.duration(wt, "timeout", f("when_budget.timeout"))
			tr.WhenBudget = wb
		}
	}
	valid := "" // the first valid tier, which an alias must repeat
	for _, key := range []string{"tier", "autonomy_tier"} {
		if s, ok := v.str(t, key, f(key)); ok && s != "" {
			if msg := triggerspec.TierProblem(s); msg != "" {
				v.fail(f(key), "%s", msg)
			} else if valid != "" {
				if msg := triggerspec.TierConflict(valid, s); msg != "" {
					v.fail(f(key), "%s", msg)
				}
			} else {
				valid = s
			}
			tr.Tier = s
		}
	}

	var scheduleOK, zoneOK bool
	tr.Schedule, scheduleOK = v.str(t, "schedule", f("schedule"))
	tr.Timezone, zoneOK = v.str(t, "timezone", f("timezone"))
	_, scheduleSet := t["schedule"]
	_, zoneSet := t["timezone"]
	if tr.Kind == "cron" {
		// a field of the wrong type has been reported once already
		if scheduleOK || !scheduleSet {
			if msg := triggerspec.ScheduleProblem(tr.Schedule); msg != "" {
				v.fail(f("schedule"), "%s", msg)
			}
		}
		if zoneOK && tr.Timezone == "" {
			v.fail(f("timezone"), triggerspec.EmptyZone)
		} else if zoneOK || !zoneSet {
			var msg string
			if tr.Location, msg = triggerspec.Location(tr.Timezone); msg != "" {
				v.fail(f("timezone"), "%s", msg)
			}
		}
	} else if triggerspec.KnownKind(tr.Kind) {
		if tr.Schedule != "" {
			v.fail(f("schedule"), triggerspec.ScheduleOnCron)
		}
		if tr.Timezone != "" {
			v.fail(f("timezone"), triggerspec.ZoneOnCron)
		}
	}
	tr.DedupeKey, tr.Dedupe = v.jmespath(t, "dedupe_key", f("dedupe_key"))
	tr.Filter, tr.Match = v.jmespath(t, "filter", f("filter"))
	tr.Timeout = v.duration(t, "timeout", f("timeout"))

	if raw, ok := t["retry"]; ok {
		if rt, ok := v.table(raw, f("retry"), "max", "backoff", "retention_days", "base"); ok {
			if _, set := rt["max"]; set {
				n := v.nonNegInt(rt, "max", f("retry.max"))
				if msg := triggerspec.RetryMaxProblem(n); msg != "" {
					v.fail(f("retry.max"), "%s", msg)
				}
				tr.Retry.Max = int(n)
			}
			if s, ok := v.str(rt, "backoff", f("retry.backoff")); ok {
				if msg := triggerspec.BackoffProblem(s); msg != "" {
					v.fail(f("retry.backoff"), "%s", msg)
				}
				tr.Retry.Backoff = s
			}
			if _, set := rt["retention_days"]; set {
				n := v.nonNegInt(rt, "retention_days", f("retry.retention_days"))
				if msg := triggerspec.RetentionProblem(n); msg != "" {
					v.fail(f("retry.retention_days"), "%s", msg)
				}
				tr.Retry.RetentionDays = int(n)
			}
			if _, set := rt["base"]; set {
				tr.Retry.Base = v.duration(rt, "base", f("retry.base"))
				if tr.Retry.Backoff == "svix" {
					v.fail(f("retry.base"), triggerspec.BaseWithSvix)
				}
			}
		}
	}

	if raw, ok := t["priority"]; ok {
		switch p := raw.(type) {
		case string:
			if !contains([]string{"high", "normal", "low"}, p) {
				v.fail(f("priority"), "unknown priority %q (high, normal, low, or {key, order})", p)
			}
			tr.Priority = &Priority{Level: p}
		case map[string]any:
			if pt, ok := v.table(p, f("priority"), "key", "order"); ok {
				pr := &Priority{}
				pr.Key, _ = v.str(pt, "key", f("priority.key"))
				if pr.Key == "" {
					v.fail(f("priority.key"), "is required")
				}
				reported := len(v.problems)
				pr.Order = v.strList(pt, "order", f("priority.order"))
				if len(pr.Order) == 0 && len(v.problems) == reported {
					v.fail(f("priority.order"), "must list at least one value")
				}
				tr.Priority = pr
			}
		default:
			v.fail(f("priority"), "must be high, normal, low, or a table {key, order}")
		}
	}

	if raw, ok := t["budget"]; ok {
		if bt, ok := v.table(raw, f("budget"), "max_cost_usd", "max_tokens", "hourly_cost_usd", "daily_cost_usd",
			"max_autonomous_decisions_per_hour", "max_autonomous_decisions_per_day", "max_concurrent", "on_budget_exhausted"); ok {
			b := &Budget{}
			b.MaxCostUSD = v.nonNegFloat(bt, "max_cost_usd", f("budget.max_cost_usd"))
			b.MaxTokens = v.nonNegInt(bt, "max_tokens", f("budget.max_tokens"))
			b.HourlyCostUSD = v.nonNegFloat(bt, "hourly_cost_usd", f("budget.hourly_cost_usd"))
			b.DailyCostUSD = v.nonNegFloat(bt, "daily_cost_usd", f("budget.daily_cost_usd"))
			b.MaxAutonomousDecisionsPerHour = v.nonNegInt(bt, "max_autonomous_decisions_per_hour", f("budget.max_autonomous_decisions_per_hour"))
			b.MaxAutonomousDecisionsPerDay = v.nonNegInt(bt, "max_autonomous_decisions_per_day", f("budget.max_autonomous_decisions_per_day"))
			b.MaxConcurrent = v.nonNegInt(bt, "max_concurrent", f("budget.max_concurrent"))
			for _, lim := range []struct {
				key string
				n   int64
			}{{"max_autonomous_decisions_per_hour", b.MaxAutonomousDecisionsPerHour}, {"max_autonomous_decisions_per_day", b.MaxAutonomousDecisionsPerDay}} {
				if lim.n > 0 && tr.Tier != "act_auto" {
					v.fail(f("budget."+lim.key), "counts autonomous decisions, which only a binding with tier = \"act_auto\" makes")
				}
			}
			if s, ok := v.str(bt, "on_budget_exhausted", f("budget.on_budget_exhausted")); ok && s != "" {
				if !contains([]string{"skip", "dlq", "retry_later"}, s) {
					v.fail(f("budget.on_budget_exhausted"), "unknown action %q (one of skip, dlq, retry_later)", s)
				}
				b.OnBudgetExhausted = s
			}
			tr.Budget = b
		}
	}

	tr.Flow.Concurrency = v.gate(t, "concurrency", f, gateMax)
	tr.Flow.Throttle = v.gate(t, "throttle", f, gateMax|gatePeriod)
	tr.Flow.RateLimit = v.gate(t, "rate_limit", f, gateMax|gatePeriod)
	tr.Flow.Debounce = v.gate(t, "debounce", f, gatePeriod)
	tr.Flow.Singleton = v.gate(t, "singleton", f, 0)
	tr.Flow.Batch = v.gate(t, "batch", f, gateSize)
	if tr.Flow.Batch != nil && tr.Handler.Kind != "" && tr.Handler.Kind != "local" {
		v.fail(f("batch"), "applies only to a local function handler (it is called with the list of events)")
	}

	if raw, ok := t["secrets"]; ok {
		st, ok := raw.(map[string]any)
		if !ok {
			v.fail(f("secrets"), "must be a table {name = \"<provider>/<secret>\"}")
		}
		tr.Secrets, tr.SecretValues = map[string]string{}, map[string]string{}
		for _, k := range sortedKeys(st) {
			s, ok := st[k].(string)
			if parts := strings.SplitN(s, "/", 2); !ok || len(parts) != 2 || parts[0] == "" || parts[1] == "" {
				v.fail(f("secrets."+k), "must be \"<provider>/<secret>\"")
				continue
			}
			tr.Secrets[k] = s
			env := SecretEnv(s)
			val := os.Getenv(env)
			if val == "" {
				if !v.opts.NoHandlerSecrets {
					v.fail(f("secrets."+k), "environment variable %s (secret %s) is not set", env, s)
				}
				continue
			}
			tr.SecretValues[k] = val
		}
	}
	if raw, ok := t["allow_cleartext"]; ok {
		b, ok := raw.(bool)
		if !ok {
			v.fail(f("allow_cleartext"), "must be true or false")
		} else if b && tr.Handler.Kind != "a2a" {
			v.fail(f("allow_cleartext"), "applies only to a2a:// handlers")
		}
		tr.AllowCleartext = b
	}
	pushed := tr.Kind == "webhook" || tr.Kind == "a2a-push"
	if raw, ok := t["webhook"]; ok {
		if !pushed {
			if triggerspec.KnownKind(tr.Kind) {
				v.fail(f("webhook"), "only a webhook or a2a-push trigger has a `webhook` table")
			}
		} else if wt, ok := v.table(raw, f("webhook"), "path", "secret_env", "signature_header", "timestamp_header", "scheme", "replay_window", "delivery_header"); ok {
			tr.Webhook = v.webhook(tr, wt, f)
		}
	}
	if pushed && tr.Webhook == nil {
		tr.Webhook = v.webhook(tr, map[string]any{}, f)
	}
	if len(v.problems) > before {
		return nil
	}
	return tr
}

func (v *validator) webhook(tr *Trigger, wt map[string]any, f func(string) string) *Webhook {
	w := &Webhook{Path: "/hooks/" + tr.ID, Scheme: "harn", SignatureHeader: "X-Harn-Signature", TimestampHeader: "X-Harn-Timestamp",
		ReplayWindow: 5 * time.Minute, DeliveryHeader: "X-Harn-Delivery-Id"}
	switch {
	case tr.Provider == "github":
		w.Scheme, w.SignatureHeader, w.TimestampHeader, w.DeliveryHeader = "github", "X-Hub-Signature-256", "", "X-GitHub-Delivery"
	case tr.Kind == "a2a-push":
		w.Path, w.Scheme, w.SignatureHeader, w.TimestampHeader = "/a2a/"+tr.ID, "token", "X-A2A-Notification-Token", ""
	}
	if s, ok := v.str(wt, "path", f("webhook.path")); ok && s != "" {
		switch {
		case !strings.HasPrefix(s, "/") || strings.ContainsAny(s, " ?#"):
			v.fail(f("webhook.path"), "must be an absolute URL path such as /hooks/%s", tr.ID)
		case strings.HasPrefix(s, "/.well-known/"):
			// The listener serves its discovery documents there.
			v.fail(f("webhook.path"), "%s is reserved for discovery documents; use a path such as /hooks/%s", s, tr.ID)
		}
		w.Path = s
	}
	if s, ok := v.str(wt, "scheme", f("webhook.scheme")); ok && s != "" {
		if s != "harn" && s != "github" && s != "token" {
			v.fail(f("webhook.scheme"), "unknown signature scheme %q (harn, github or token)", s)
		}
		w.Scheme = s
		switch s {
		case "github":
			w.SignatureHeader, w.TimestampHeader = "X-Hub-Signature-256", ""
		case "token":
			w.SignatureHeader, w.TimestampHeader = "X-A2A-Notification-Token", ""
		}
	}
	for key, dst := range map[string]*string{"signature_header": &w.SignatureHeader, "timestamp_header": &w.TimestampHeader, "delivery_header": &w.DeliveryHeader} {
		if s, ok := v.str(wt, key, f("webhook."+key)); ok && s != "" {
			*dst = s
		}
	}
	if _, set := wt["replay_window"]; set {
		w.ReplayWindow = v.duration(wt, "replay_window", f("webhook.replay_window"))
		if w.ReplayWindow <= 0 {
			v.fail(f("webhook.replay_window"), "must be a positive duration")
		}
	}
	if s, ok := v.str(wt, "secret_env", f("webhook.secret_env")); ok && s != "" {
		w.SecretEnv = s
		val := os.Getenv(s)
		if val == "" && !v.opts.NoWebhookSecrets {
			v.fail(f("webhook.secret_env"), "environment variable %s (the webhook's HMAC secret) is not set", s)
		}
		w.Secret = []byte(val)
	}
	return w
}

const (
	gateMax = 1 << iota
	gatePeriod
	gateSize
)

// gate validates a flow-control table. `singleton = true` is accepted
// for a singleton without key.
func (v *validator) gate(t map[string]any, name string, f func(string) string, need int) *Gate {
	raw, ok := t[name]
	if !ok {
		return nil
	}
	if b, ok := raw.(bool); ok && name == "singleton" {
		if !b {
			return nil
		}
		return &Gate{Max: 1}
	}
	if _, isTable := raw.(map[string]any); !isTable && name == "singleton" {
		v.fail(f(name), "must be true or a table")
		return nil
	}
	allowed := []string{"key"}
	if need&gateMax != 0 {
		allowed = append(allowed, "max")
	}
	if need&gatePeriod != 0 {
		allowed = append(allowed, "period")
	}
	if need&gateSize != 0 {
		allowed = append(allowed, "size", "timeout")
	}
	gt, ok := v.table(raw, f(name), allowed...)
	if !ok {
		return nil
	}
	g := &Gate{}
	g.Key, _ = v.str(gt, "key", f(name+".key"))
	// one problem per field: a value its reader already refused is not
	// also reported as missing
	reported := func(read func()) bool {
		n := len(v.problems)
		read()
		return len(v.problems) > n
	}
	if need&gateMax != 0 {
		if !reported(func() { g.Max = int(v.nonNegInt(gt, "max", f(name+".max"))) }) && g.Max < 1 {
			v.fail(f(name+".max"), "is required and must be at least 1")
		}
	}
	if need&gatePeriod != 0 {
		if !reported(func() { g.Period = v.duration(gt, "period", f(name+".period")) }) && g.Period <= 0 {
			v.fail(f(name+".period"), "is required and must be a positive duration such as \"1m\"")
		}
	}
	if need&gateSize != 0 {
		if !reported(func() { g.Size = int(v.nonNegInt(gt, "size", f(name+".size"))) }) && g.Size < 1 {
			v.fail(f(name+".size"), "is required and must be at least 1")
		}
		g.Timeout = v.duration(gt, "timeout", f(name+".timeout"))
	}
	if name == "singleton" {
		g.Max = 1
	}
	return g
}

// SecretEnv is the environment variable that holds a secret
// "<provider>/<secret>" (triggerspec.SecretEnv, which secret_get uses too).
func SecretEnv(ref string) string { return triggerspec.SecretEnv(ref) }

// ParseHandler resolves a handler reference: "fn" (in lib.harn),
// "module::fn" (an [exports] alias), "a2a://host/path",
// "worker://queue".
func ParseHandler(s string, exports map[string]string) (Handler, error) {
	if i := strings.Index(s, "://"); i >= 0 {
		scheme, rest := s[:i], s[i+3:]
		switch scheme {
		case "a2a":
			if rest == "" || strings.HasPrefix(rest, "/") {
				return Handler{}, fmt.Errorf("a2a handler %q needs a target (a2a://host/path)", s)
			}
			return Handler{Kind: "a2a", Target: rest}, nil
		case "worker":
			if rest == "" || strings.ContainsAny(rest, "/ ") {
				return Handler{}, fmt.Errorf("worker handler %q needs a queue name (worker://queue)", s)
			}
			return Handler{Kind: "worker", Queue: rest}, nil
		}
		return Handler{}, fmt.Errorf("unsupported handler scheme %q (a local function, module::fn, a2a:// or worker://)", scheme+"://")
	}
	mod, fn, qualified := strings.Cut(s, "::")
	if !qualified {
		if !identRe().MatchString(s) {
			return Handler{}, fmt.Errorf("invalid handler %q (a function name, module::fn, a2a:// or worker://)", s)
		}
		return Handler{Kind: "local", Reference: s, File: DefaultLibrary, Function: s}, nil
	}
	if !identRe().MatchString(mod) || !identRe().MatchString(fn) {
		return Handler{}, fmt.Errorf("invalid handler %q (module::fn)", s)
	}
	file, ok := exports[mod]
	if !ok {
		known := sortedKeys(exports)
		if len(known) == 0 {
			return Handler{}, fmt.Errorf("unknown module %q in handler %q: [exports] declares no modules", mod, s)
		}
		return Handler{}, fmt.Errorf("unknown module %q in handler %q ([exports] declares %s)", mod, s, strings.Join(known, ", "))
	}
	return Handler{Kind: "local", Reference: s, Module: mod, File: file, Function: fn}, nil
}

// Field readers: each reports a wrong type against the field name.

func (v *validator) str(t map[string]any, key, field string) (string, bool) {
	raw, ok := t[key]
	if !ok {
		return "", false
	}
	s, ok := raw.(string)
	if !ok {
		v.fail(field, triggerspec.NotString)
		return "", false
	}
	return s, true
}

// jmespath reads and compiles a JMESPath expression field.
func (v *validator) jmespath(t map[string]any, key, field string) (string, jmespath.JMESPath) {
	s, ok := v.str(t, key, field)
	if !ok {
		return "", nil
	}
	if strings.TrimSpace(s) == "" {
		v.fail(field, "must be a JMESPath expression over the event, such as \"payload.id\"")
		return "", nil
	}
	jp, err := jmespath.Compile(s)
	if err != nil {
		v.fail(field, "invalid JMESPath expression %q: %v", s, err)
		return "", nil
	}
	return s, jp
}

func (v *validator) strList(t map[string]any, key, field string) []string {
	raw, ok := t[key]
	if !ok {
		return nil
	}
	list, ok := raw.([]any)
	if !ok {
		v.fail(field, triggerspec.NotStringList)
		return nil
	}
	out := make([]string, 0, len(list))
	for _, x := range list {
		s, ok := x.(string)
		if !ok || s == "" {
			v.fail(field, triggerspec.EmptyInList)
			return nil
		}
		out = append(out, s)
	}
	return out
}

func (v *validator) table(raw any, field string, allowed ...string) (map[string]any, bool) {
	t, ok := raw.(map[string]any)
	if !ok {
		v.fail(field, "must be a table")
		return nil, false
	}
	set := map[string]bool{}
	for _, a := range allowed {
		set[a] = true
	}
	good := true
	for _, k := range sortedKeys(t) {
		if !set[k] {
			v.fail(field+"."+k, "%s", triggerspec.UnknownSubfield(field, allowed))
			good = false
		}
	}
	return t, good
}

func (v *validator) nonNegInt(t map[string]any, key, field string) int64 {
	raw, ok := t[key]
	if !ok {
		return 0
	}
	n, ok := raw.(int64)
	if !ok {
		if fl, isF := raw.(float64); isF && fl == math.Trunc(fl) {
			n, ok = int64(fl), true
		}
	}
	if !ok || n < 0 {
		v.fail(field, triggerspec.NotNonNegInt)
		return 0
	}
	return n
}

func (v *validator) nonNegFloat(t map[string]any, key, field string) float64 {
	raw, ok := t[key]
	if !ok {
		return 0
	}
	switch n := raw.(type) {
	case int64:
		if n >= 0 {
			return float64(n)
		}
	case float64:
		if n >= 0 && !math.IsInf(n, 0) && !math.IsNaN(n) {
			return n
		}
	}
	v.fail(field, "must be a non-negative number")
	return 0
}

func (v *validator) duration(t map[string]any, key, field string) time.Duration {
	raw, ok := t[key]
	if !ok {
		return 0
	}
	d, ok := triggerspec.DurationOf(raw)
	if !ok {
		v.fail(field, triggerspec.NotDuration)
	}
	return d
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
