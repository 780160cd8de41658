package triggers

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/harnlang/harn/internal/triggerspec"
	"github.com/harnlang/harn/vm"
	"github.com/robfig/cron/v3"
)

// fields are the keys of a trigger_register spec, in documentation order.
var fields = []string{"id", "kind", "provider", "match", "handler", "when", "tier", "autonomy_tier", "schedule", "timezone", "retry"}

// manifestOnly are the [[triggers]] fields that need the orchestrator
// (a listener, the event log, flow control across events, secrets).
var manifestOnly = []string{"when_budget", "dedupe_key", "filter", "priority", "budget", "concurrency", "throttle", "rate_limit",
	"debounce", "singleton", "batch", "secrets", "allow_cleartext", "sources", "webhook", "timeout"}

// scriptKinds are the kinds an in-script trigger may have.
var scriptKinds = []string{"manual", "cron", "webhook"}

// retryFields are the keys of `retry`.
var retryFields = []string{"max", "backoff", "retention_days", "base"}

// problem is one thing wrong with a spec: the field and the message, as
// orchestrator/manifest words them.
type problem struct{ field, msg string }

type checker struct{ problems []problem }

func (c *checker) fail(field, msg string) { c.problems = append(c.problems, problem{field, msg}) }

// goValue is a field's value in the form the manifest's TOML decoder
// gives: string, int64, float64, bool, []any, map[string]any; durations
// become their Go value.
func goValue(v vm.Value) any {
	switch v.Kind() {
	case vm.KNil:
		return nil
	case vm.KString:
		s, _ := v.AsString()
		return s.Go()
	case vm.KInt:
		n, _ := v.AsInt()
		return int64(n)
	case vm.KFloat:
		f, _ := v.AsFloat()
		return float64(f)
	case vm.KBool:
		b, _ := v.AsBool()
		return bool(b)
	case vm.KDuration:
		d, _ := v.AsDuration()
		return time.Duration(d) * time.Millisecond
	}
	switch x := v.Object().(type) {
	case *vm.List:
		out := make([]any, 0, x.Len())
		for _, it := range x.Items() {
			out = append(out, goValue(it))
		}
		return out
	case *vm.Dict:
		out := map[string]any{}
		x.Range(func(k string, val vm.Value) bool {
			out[k] = goValue(val)
			return true
		})
		return out
	}
	return v
}

func durationOf(x any) (time.Duration, bool) {
	if d, ok := x.(time.Duration); ok {
		return d, d >= 0
	}
	return triggerspec.DurationOf(x)
}

// binding validates spec and builds the binding it describes.
func validate(spec *vm.Dict) (*binding, error) {
	c := &checker{}
	b := &binding{retry: triggerspec.DefaultRetry, state: "active"}
	var keys []string
	spec.Range(func(k string, _ vm.Value) bool {
		keys = append(keys, k)
		return true
	})
	for _, k := range keys {
		switch {
		case slices.Contains(fields, k):
		case slices.Contains(manifestOnly, k):
			c.fail(k, "is a harn.toml [[triggers]] field that in-script triggers do not support (serve the manifest with `harn mcp serve` for it)")
		default:
			c.fail(k, triggerspec.UnknownField(k, fields))
		}
	}
	str := func(key string) (string, bool) {
		raw, ok := spec.Get(key)
		if !ok || raw.Kind() == vm.KNil {
			return "", false
		}
		s, isStr := raw.AsString()
		if !isStr {
			c.fail(key, triggerspec.NotString)
			return "", false
		}
		return s.Go(), true
	}

	id, ok := str("id")
	if raw, set := spec.Get("id"); !set || raw.Kind() == vm.KNil || ok && id == "" {
		c.fail("id", triggerspec.Required)
	} else if ok {
		if msg := triggerspec.IDProblem(id); msg != "" {
			c.fail("id", msg)
		}
	}
	b.id = id

	kind, hasKind := str("kind")
	if !hasKind {
		if raw, set := spec.Get("kind"); !set || raw.Kind() == vm.KNil {
			c.fail("kind", triggerspec.KindRequired())
		}
	} else if msg := triggerspec.KindProblem(kind); msg != "" {
		c.fail("kind", msg)
	} else if !slices.Contains(scriptKinds, kind) {
		c.fail("kind", fmt.Sprintf("kind %q needs a connector of `harn mcp serve`; an in-script trigger is %s", kind, strings.Join(scriptKinds, ", ")))
	}
	b.kind = kind
	provider, hasProvider := str("provider")
	if !hasProvider {
		provider = triggerspec.DefaultProvider(kind)
	}
	if provider != "" {
		if msg := triggerspec.ProviderProblem(kind, provider); msg != "" {
			c.fail("provider", msg)
		}
	}
	b.provider = provider

	if raw, ok := spec.Get("match"); ok && raw.Kind() != vm.KNil {
		mt, isDict := goValue(raw).(map[string]any)
		if !isDict {
			c.fail("match", triggerspec.MatchNotTable)
		} else {
			for _, k := range sortedKeys(mt) {
				if k != "events" {
					c.fail("match."+k, triggerspec.MatchOnlyEvent)
				}
			}
			if evs, set := mt["events"]; set {
				list, isList := evs.([]any)
				if !isList {
					c.fail("match.events", triggerspec.NotStringList)
				} else {
					for _, x := range list {
						s, isStr := x.(string)
						if !isStr || s == "" {
							c.fail("match.events", triggerspec.EmptyInList)
							b.events = nil
							break
						}
						b.events = append(b.events, s)
					}
				}
			}
		}
	}

	if raw, ok := spec.Get("handler"); !ok || raw.Kind() == vm.KNil {
		c.fail("handler", triggerspec.Required)
	} else if !vm.IsCallable(raw) {
		c.fail("handler", fmt.Sprintf("must be a function, got %s", raw.Type()))
	} else {
		b.handler = raw
	}
	if raw, ok := spec.Get("when"); ok && raw.Kind() != vm.KNil {
		if !vm.IsCallable(raw) {
			c.fail("when", fmt.Sprintf("must be a function (a predicate of the event), got %s", raw.Type()))
		} else {
			b.when = raw
		}
	}
	valid := "" // the first valid tier, which an alias must repeat
	for _, key := range []string{"tier", "autonomy_tier"} {
		if s, ok := str(key); ok && s != "" {
			if msg := triggerspec.TierProblem(s); msg != "" {
				c.fail(key, msg)
			} else if valid != "" {
				if msg := triggerspec.TierConflict(valid, s); msg != "" {
					c.fail(key, msg)
				}
			} else {
				valid = s
			}
			b.tier = s
		}
	}

	var scheduleOK, zoneOK bool
	b.schedule, scheduleOK = str("schedule")
	b.timezone, zoneOK = str("timezone")
	set := func(key string) bool { raw, ok := spec.Get(key); return ok && raw.Kind() != vm.KNil }
	if kind == "cron" {
		// a field of the wrong type has been reported once already
		if scheduleOK || !set("schedule") {
			if msg := triggerspec.ScheduleProblem(b.schedule); msg != "" {
				c.fail("schedule", msg)
			} else {
				b.cron, _ = triggerspec.ParseSchedule(b.schedule)
			}
		}
		if zoneOK && b.timezone == "" {
			c.fail("timezone", triggerspec.EmptyZone)
		} else if zoneOK || !set("timezone") {
			var msg string
			if b.location, msg = triggerspec.Location(b.timezone); msg != "" {
				c.fail("timezone", msg)
			}
		}
	} else if triggerspec.KnownKind(kind) {
		if b.schedule != "" {
			c.fail("schedule", triggerspec.ScheduleOnCron)
		}
		if b.timezone != "" {
			c.fail("timezone", triggerspec.ZoneOnCron)
		}
	}

	if raw, ok := spec.Get("retry"); ok && raw.Kind() != vm.KNil {
		c.retry(goValue(raw), &b.retry)
	}
	if len(c.problems) > 0 {
		parts := make([]string, len(c.problems))
		for i, p := range c.problems {
			parts[i] = p.field + ": " + p.msg
		}
		who := ""
		if id != "" && triggerspec.IDProblem(id) == "" {
			who = fmt.Sprintf("trigger %q: ", id)
		}
		return nil, vm.Runtimef("trigger_register: %s%s", who, strings.Join(parts, "; "))
	}
	return b, nil
}

// retry validates the `retry` table into r.
func (c *checker) retry(raw any, r *triggerspec.Retry) {
	rt, ok := raw.(map[string]any)
	if !ok {
		c.fail("retry", triggerspec.NotTable)
		return
	}
	good := true
	for _, k := range sortedKeys(rt) {
		if !slices.Contains(retryFields, k) {
			c.fail("retry."+k, triggerspec.UnknownSubfield("retry", retryFields))
			good = false
		}
	}
	if !good {
		return
	}
	if x, set := rt["max"]; set {
		if n, ok := nonNegInt(x); !ok {
			c.fail("retry.max", triggerspec.NotNonNegInt)
		} else if msg := triggerspec.RetryMaxProblem(n); msg != "" {
			c.fail("retry.max", msg)
		} else {
			r.Max = int(n)
		}
	}
	if x, set := rt["backoff"]; set {
		if s, ok := x.(string); !ok {
			c.fail("retry.backoff", triggerspec.NotString)
		} else if msg := triggerspec.BackoffProblem(s); msg != "" {
			c.fail("retry.backoff", msg)
		} else {
			r.Backoff = s
		}
	}
	if x, set := rt["retention_days"]; set {
		if n, ok := nonNegInt(x); !ok {
			c.fail("retry.retention_days", triggerspec.NotNonNegInt)
		} else if msg := triggerspec.RetentionProblem(n); msg != "" {
			c.fail("retry.retention_days", msg)
		} else {
			r.RetentionDays = int(n)
		}
	}
	if x, set := rt["base"]; set {
		if d, ok := durationOf(x); !ok {
			c.fail("retry.base", triggerspec.NotDuration)
		} else {
			r.Base = d
		}
		if r.Backoff == "svix" {
			c.fail("retry.base", triggerspec.BaseWithSvix)
		}
	}
}

func nonNegInt(x any) (int64, bool) {
	switch n := x.(type) {
	case int64:
		return n, n >= 0
	case float64:
		if n == math.Trunc(n) && n >= 0 && n < 1<<62 {
			return int64(n), true
		}
	}
	return 0, false
}

// nextTicks are the scheduled instants of s in (from, to].
func nextTicks(s cron.Schedule, loc *time.Location, from, to time.Time) []time.Time {
	var out []time.Time
	t := from.In(loc)
	for len(out) < maxTicks {
		t = s.Next(t)
		if t.IsZero() || t.After(to) {
			break
		}
		out = append(out, t)
	}
	return out
}

// maxTicks bounds the ticks one advance of a harness clock runs per
// binding (an `advance(365d)` of an every-second schedule).
const maxTicks = 10000

func sortedKeys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
