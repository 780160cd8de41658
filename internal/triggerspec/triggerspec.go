// Package triggerspec holds the pure rules of a trigger binding that both
// the orchestrator's manifest (orchestrator/manifest, `[[triggers]]` in
// harn.toml) and the in-script triggers of the library (stdlib/triggers,
// trigger_register) apply: the binding kinds and the provider catalog, the
// default event kind of each kind, autonomy tiers, the retry policy and its
// backoff schedule, cron schedules, durations, and the wording of each
// field's problem (docs/spec/orchestrator.md §2, §3).
//
// It sits upstream of both (it imports only lang/diag, internal/uuids
// and the cron parser), so that the library never imports the
// orchestrator, both refuse a bad field with the same message, and both
// spell event, dead-letter and trace ids alike.
package triggerspec

import (
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/harnlang/harn/internal/uuids"
	"github.com/harnlang/harn/lang/diag"
	"github.com/robfig/cron/v3"
)

// Kinds are the binding kinds, in documentation order.
var Kinds = []string{"cron", "webhook", "manual", "poll", "stream", "predicate", "a2a-push"}

// Providers is the provider catalog, with the binding kinds each serves.
var Providers = map[string][]string{
	"cron":         {"cron"},
	"manual":       {"manual"},
	"webhook":      {"webhook"},
	"github":       {"webhook", "poll"},
	"slack":        {"webhook", "poll"},
	"linear":       {"webhook", "poll"},
	"notion":       {"webhook", "poll"},
	"a2a-push":     {"a2a-push"},
	"kafka":        {"stream"},
	"nats":         {"stream"},
	"pulsar":       {"stream"},
	"postgres-cdc": {"stream"},
	"email":        {"stream", "poll"},
	"websocket":    {"stream"},
	"predicate":    {"predicate"},
}

// DefaultProvider is the provider of a kind that has only one ("" for
// the kinds whose provider must be named).
func DefaultProvider(kind string) string {
	switch kind {
	case "cron", "manual", "webhook", "a2a-push", "predicate":
		return kind
	}
	return ""
}

// DefaultEventKind is the event kind of a binding kind with no
// match.events (docs/spec/orchestrator.md §2).
func DefaultEventKind(kind string) string {
	switch kind {
	case "cron":
		return "cron.tick"
	case "a2a-push":
		return "a2a.task.received"
	}
	return kind
}

// Tiers are the autonomy tiers, least autonomous first.
var Tiers = []string{"shadow", "suggest", "act_with_approval", "act_auto"}

// Backoffs are the retry backoff schedules.
var Backoffs = []string{"svix", "linear", "exponential"}

// MaxRetry is the largest retry.max.
const MaxRetry = 100

// Retry is the retry policy: up to Max attempts in all (0 counts as 1:
// no retry), spaced by Backoff. `retry = { max = 1 }` dead-letters the
// event when its first attempt fails (docs/spec/acceptance.md item 220).
type Retry struct {
	Max           int           `json:"max"`
	Backoff       string        `json:"backoff"` // svix, linear, exponential
	Base          time.Duration `json:"-"`       // linear/exponential step
	RetentionDays int           `json:"retention_days"`
}

// DefaultRetry is the policy of a trigger without `retry`: the svix
// schedule, 7 attempts in all.
var DefaultRetry = Retry{Max: 7, Backoff: "svix", Base: 5 * time.Second, RetentionDays: 7}

var svixSchedule = []time.Duration{0, 5 * time.Second, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour, 5 * time.Hour, 10 * time.Hour, 10 * time.Hour}

// Delay is how long to wait before retry number n (1 for the first
// retry, after the first failed attempt).
func (r Retry) Delay(n int) time.Duration {
	if n < 1 {
		return 0
	}
	const ceiling = 10 * time.Hour
	switch r.Backoff {
	case "linear":
		return min(r.Base*time.Duration(n), ceiling)
	case "exponential":
		if n > 30 {
			return ceiling
		}
		return min(r.Base<<(n-1), ceiling)
	}
	if n >= len(svixSchedule) {
		return svixSchedule[len(svixSchedule)-1]
	}
	return svixSchedule[n]
}

// Attempts is the number of attempts the policy allows in all (at least 1).
func (r Retry) Attempts() int { return max(r.Max, 1) }

// idRe is what a trigger id may contain: it appears in URLs
// (/hooks/<id>) and idempotency keys.
var idRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`) })

// IDProblem is what is wrong with a non-empty trigger id, "" when nothing.
func IDProblem(id string) string {
	if idRe().MatchString(id) {
		return ""
	}
	return fmt.Sprintf("%q may contain only letters, digits, '.', '_' and '-' and must start with a letter or digit", id)
}

// KnownKind reports whether kind is one of Kinds. A check that depends on
// the kind (only a cron trigger has a schedule …) runs only for a known
// one: a misspelt kind ("crn") is reported once, on `kind`, not again on
// every field the intended kind takes.
func KnownKind(kind string) bool { return slices.Contains(Kinds, kind) }

// KindProblem is what is wrong with a non-empty binding kind.
func KindProblem(kind string) string {
	if slices.Contains(Kinds, kind) {
		return ""
	}
	if hint := diag.Suggest(kind, Kinds); hint != "" {
		return fmt.Sprintf("unknown kind %q (did you mean %s?)", kind, hint)
	}
	return fmt.Sprintf("unknown kind %q (one of %s)", kind, strings.Join(Kinds, ", "))
}

// KindRequired is the problem of a binding without a kind.
func KindRequired() string { return fmt.Sprintf("is required (one of %s)", strings.Join(Kinds, ", ")) }

// ProviderRequired is the problem of a binding of kind without a
// provider when the kind has no default one.
func ProviderRequired(kind string) string { return fmt.Sprintf("is required for kind %q", kind) }

// ProviderProblem is what is wrong with a non-empty provider for kind.
func ProviderProblem(kind, provider string) string {
	kinds, ok := Providers[provider]
	if !ok {
		return fmt.Sprintf("unknown provider %q (one of %s)", provider, strings.Join(sortedKeys(Providers), ", "))
	}
	if slices.Contains(Kinds, kind) && !slices.Contains(kinds, kind) {
		return fmt.Sprintf("provider %q does not serve kind %q (it serves %s)", provider, kind, strings.Join(kinds, ", "))
	}
	return ""
}

// TierProblem is what is wrong with a non-empty autonomy tier.
func TierProblem(tier string) string {
	if slices.Contains(Tiers, tier) {
		return ""
	}
	return fmt.Sprintf("unknown tier %q (one of %s)", tier, strings.Join(Tiers, ", "))
}

// TierConflict is what is wrong with a trigger that gives both tier and
// autonomy_tier (aliases, docs/spec/orchestrator.md §2), reported on
// autonomy_tier, or "" when they agree.
func TierConflict(tier, autonomyTier string) string {
	if tier == autonomyTier {
		return ""
	}
	return fmt.Sprintf("%q conflicts with tier = %q: tier and autonomy_tier are one field; give one of them", autonomyTier, tier)
}

// RetryMaxProblem is what is wrong with a non-negative retry.max.
func RetryMaxProblem(n int64) string {
	if n > MaxRetry {
		return fmt.Sprintf("must be between 0 and %d, got %d", MaxRetry, n)
	}
	return ""
}

// BackoffProblem is what is wrong with retry.backoff.
func BackoffProblem(s string) string {
	if slices.Contains(Backoffs, s) {
		return ""
	}
	return fmt.Sprintf("unknown backoff %q (one of %s)", s, strings.Join(Backoffs, ", "))
}

// RetentionProblem is what is wrong with a non-negative retry.retention_days.
func RetentionProblem(n int64) string {
	if n < 1 {
		return fmt.Sprintf("must be at least 1, got %d", n)
	}
	return ""
}

// BaseWithSvix is the problem of retry.base with the svix backoff.
const BaseWithSvix = "applies to linear and exponential backoff only (svix has a fixed schedule)"

// Messages shared by the field readers.
const (
	NotNonNegInt   = "must be a non-negative integer"
	NotString      = "must be a string"
	EmptyZone      = "must not be empty (leave it out for UTC, or name an IANA zone such as Europe/Paris)"
	NotDuration    = "must be a duration such as \"30s\" or \"5m\", or a number of seconds"
	NotStringList  = "must be an array of strings"
	EmptyInList    = "must be an array of non-empty strings"
	NotTable       = "must be a table"
	MatchNotTable  = "must be a table {events = [...]}"
	MatchOnlyEvent = "unknown field (match has only `events`)"
	Required       = "is required"
	ScheduleOnCron = "only a cron trigger has a schedule"
	ZoneOnCron     = "only a cron trigger has a time zone"
)

// UnknownSubfield is the problem of key in table field, whose keys are
// allowed.
func UnknownSubfield(field string, allowed []string) string {
	return fmt.Sprintf("unknown field (%s has %s)", field, strings.Join(allowed, ", "))
}

// UnknownField is the problem of an unknown binding field k, given the
// known ones.
func UnknownField(k string, known []string) string {
	if hint := diag.Suggest(k, known); hint != "" {
		return fmt.Sprintf("unknown field (did you mean %s?)", hint)
	}
	return "unknown field"
}

// ScheduleProblem is what is wrong with a cron binding's schedule.
func ScheduleProblem(schedule string) string {
	// robfig/cron reads a CRON_TZ= or TZ= prefix, but the dispatcher
	// prefixes the schedule with the binding's own time zone.
	zone, _, _ := strings.Cut(schedule, " ")
	if name, ok := strings.CutPrefix(zone, "CRON_TZ="); ok || strings.HasPrefix(zone, "TZ=") {
		if !ok {
			name = strings.TrimPrefix(zone, "TZ=")
		}
		return fmt.Sprintf("%q does not belong in the schedule: write timezone = %q", zone, name)
	}
	if schedule == "" {
		return "is required for a cron trigger"
	}
	if _, err := ParseSchedule(schedule); err != nil {
		if errors.Is(err, ErrNoDate) {
			return fmt.Sprintf("cron expression %q %v", schedule, err)
		}
		return fmt.Sprintf("invalid cron expression %q: %s", schedule, dayOfWeekMaximum(err.Error()))
	}
	return ""
}

// ErrNoDate is ParseSchedule's error for a schedule whose fields are each
// valid but whose whole matches no date (February 30, April 31): such a
// trigger would never fire.
var ErrNoDate = errors.New("matches no date: the month has no such day, so the trigger would never fire")

// aboveSix finds robfig/cron's day-of-week bound in its errors.
var aboveSix = regexp.MustCompile(`\((\d+)\) above maximum \(6\)`)

// dayOfWeekMaximum words robfig/cron's day-of-week bound as ours: 7
// (Sunday) is read too (sundayAsSeven), so a day past 7 is above maximum
// (7), and a 7 that still reaches robfig/cron stands where it cannot be
// read (a range with a step that is no positive number).
func dayOfWeekMaximum(msg string) string {
	return aboveSix.ReplaceAllStringFunc(msg, func(m string) string {
		if aboveSix.FindStringSubmatch(m)[1] == "7" {
			return "(7) cannot be read here: 7 (Sunday) stands alone or ends a range whose step is a positive number"
		}
		return strings.Replace(m, "maximum (6)", "maximum (7)", 1)
	})
}

// Location is the time zone of a cron binding ("" is UTC), or the problem.
func Location(name string) (*time.Location, string) {
	if name == "" {
		return time.UTC, ""
	}
	// "Local" is Go's name for the host's zone, not an IANA name: a
	// schedule would then depend on the machine that runs it
	loc, err := time.LoadLocation(name)
	if err != nil || name == "Local" {
		return time.UTC, fmt.Sprintf("unknown time zone %q (an IANA name such as Europe/Paris)", name)
	}
	return loc, ""
}

var cronParser = cron.NewParser(cron.SecondOptional | cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow | cron.Descriptor)

// ParseSchedule parses a cron expression (five fields, an optional
// leading seconds field, or a descriptor such as @hourly). Its Next works
// in the location of the time it is given and follows classic (Vixie)
// cron across daylight-saving changes (docs/triggers.md): a schedule
// whose minute and hour fields are fixed (neither starts with `*`; @daily,
// @weekly, @monthly, @yearly) runs on wall-clock time — once, at the first
// occurrence, for a local time that occurs twice, and once right after
// the jump for a local time a spring-forward change skips — while one
// with a wildcard minute or hour (every minute, @hourly, @every) runs on
// real time.
func ParseSchedule(expr string) (cron.Schedule, error) {
	s, err := cronParser.Parse(sundayAsSeven(expr))
	if err != nil {
		return nil, err
	}
	// Next looks five years ahead, which from 2000 includes two
	// February 29ths.
	if s.Next(time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)).IsZero() {
		return nil, ErrNoDate
	}
	spec, ok := s.(*cron.SpecSchedule)
	if !ok || !fixedTime(expr, spec) {
		return s, nil
	}
	wall := *spec
	wall.Location = time.UTC
	return wallSchedule{loc: spec.Location, wall: &wall}, nil
}

// sundayAsSeven rewrites a day-of-week field that names Sunday 7, as
// classic cron allows (0 and 7 are both Sunday: `0 9 * * 7`,
// `0 9 * * 5-7`), into the 0–6 robfig/cron reads: 7 becomes 0, and a
// range or step that reaches 7 becomes the list of its days (`5-7` is
// `5,6,0`, and `1-7/2` is `1,3,5,0`). Other fields,
// descriptors and a day field without 7 are left as written, so their
// errors keep their text.
func sundayAsSeven(expr string) string {
	fields := strings.Fields(expr)
	zone := ""
	if len(fields) > 0 && strings.Contains(fields[0], "=") { // a TZ= prefix
		zone, fields = fields[0]+" ", fields[1:]
	}
	if len(fields) != 5 && len(fields) != 6 {
		return expr
	}
	dow := fields[len(fields)-1]
	if !strings.Contains(dow, "7") {
		return expr
	}
	parts := strings.Split(dow, ",")
	for i, part := range parts {
		rng, step, stepped := strings.Cut(part, "/")
		lo, hi, isRange := strings.Cut(rng, "-")
		a, errA := strconv.Atoi(lo)
		b, errB := strconv.Atoi(hi)
		n, errN := strconv.Atoi(step)
		switch {
		case !isRange && rng == "7" && (!stepped || errN == nil && n > 0):
			parts[i] = "0" // `7/2`, from 7 to the end of the week, is Sunday alone
		case isRange && errA == nil && errB == nil && b == 7 && a >= 0 && a <= 7 && (!stepped || errN == nil && n > 0):
			if !stepped {
				n = 1
			}
			var days []string
			for d := a; d <= b; d += n {
				days = append(days, strconv.Itoa(d%7))
			}
			parts[i] = strings.Join(days, ",")
		}
	}
	fields[len(fields)-1] = strings.Join(parts, ",")
	return zone + strings.Join(fields, " ")
}

// fixedTime reports whether a schedule's minute and hour fields are
// fixed: for a descriptor, whether its hour is (@hourly's is `*`).
func fixedTime(expr string, spec *cron.SpecSchedule) bool {
	fields := strings.Fields(expr)
	if len(fields) > 0 && strings.Contains(fields[0], "=") { // TZ= prefix
		fields = fields[1:]
	}
	if len(fields) == 0 {
		return false
	}
	if strings.HasPrefix(fields[0], "@") {
		const starBit = 1 << 63 // robfig/cron's mark of a `*` field
		return spec.Hour&starBit == 0 && spec.Minute&starBit == 0
	}
	if len(fields) == 6 {
		fields = fields[1:]
	}
	wild := func(f string) bool { return strings.HasPrefix(f, "*") || strings.HasPrefix(f, "?") }
	return len(fields) >= 2 && !wild(fields[0]) && !wild(fields[1])
}

// wallSchedule is a fixed-time schedule: wall matches wall-clock times
// (written as UTC times), which Next then maps to instants in loc (the
// location of the time given when loc is time.Local).
type wallSchedule struct {
	loc  *time.Location
	wall *cron.SpecSchedule
}

func (s wallSchedule) Next(after time.Time) time.Time {
	loc := s.loc
	if loc == nil || loc == time.Local {
		loc = after.Location()
	}
	after = after.In(loc)
	w := wallClock(after)
	// a wall-clock time already passed (the second occurrence of a
	// repeated hour) is skipped; robfig/cron gives up after five years
	// without a match, so the loop ends
	for {
		if w = s.wall.Next(w); w.IsZero() {
			return w
		}
		if at := instantOf(w, loc); at.After(after) {
			return at
		}
	}
}

// wallClock is t's wall-clock time, written as a UTC time.
func wallClock(t time.Time) time.Time {
	y, mo, d := t.Date()
	h, mi, sec := t.Clock()
	return time.Date(y, mo, d, h, mi, sec, t.Nanosecond(), time.UTC)
}

// instantOf is the first instant whose wall-clock time in loc is w, or,
// when a forward change skips w, the instant of that change.
func instantOf(w time.Time, loc *time.Location) time.Time {
	var first, last time.Time
	// the offsets in effect a day either side of w are the one or two
	// that can give w
	for _, d := range []time.Duration{-24 * time.Hour, 24 * time.Hour} {
		_, off := w.Add(d).In(loc).Zone()
		at := w.Add(-time.Duration(off) * time.Second).In(loc)
		if last.IsZero() || at.After(last) {
			last = at
		}
		if wallClock(at).Equal(w) && (first.IsZero() || at.Before(first)) {
			first = at
		}
	}
	if !first.IsZero() {
		return first
	}
	// skipped: the later candidate lies after the change, in the zone
	// the change started
	if start, _ := last.ZoneBounds(); !start.IsZero() {
		return start
	}
	return last
}

// DurationOf parses a duration field: a Go duration string ("30s",
// "5m", "1h30m") or a number of seconds.
func DurationOf(x any) (time.Duration, bool) {
	switch d := x.(type) {
	case string:
		v, err := time.ParseDuration(d)
		return v, err == nil && v >= 0
	case int64:
		return time.Duration(d) * time.Second, d >= 0
	case float64:
		return time.Duration(d * float64(time.Second)), d >= 0
	}
	return 0, false
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// SecretEnv is the environment variable that holds a secret
// "<provider>/<secret>": HARN_SECRET_<PROVIDER>_<SECRET>, upper-cased,
// every character other than a letter or digit replaced by '_'. The
// orchestrator reads trigger secrets this way and secret_get does too.
func SecretEnv(ref string) string {
	var b strings.Builder
	b.WriteString("HARN_SECRET_")
	for _, r := range strings.ToUpper(ref) {
		if (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}

// NewEventID is a fresh trigger event id: trigger_evt_ and a uuidv7.
func NewEventID() string { return "trigger_evt_" + uuids.V7String() }

// NewDLQID is a fresh dead-letter entry id: dlq_ and a uuidv7.
func NewDLQID() string { return "dlq_" + uuids.V7String() }

// NewTraceID is a fresh trace id: source (mcp, cli for an operator
// command, cron and webhook for the events they bring in, script for an
// in-script trigger), an underscore and a uuidv7 as 32 hex digits,
// spelled in one allocation.
func NewTraceID(source string) string {
	u := uuids.V7()
	var buf [16 + 1 + 2*len(u)]byte
	b := append(buf[:0], source...)
	b = append(b, '_')
	b = hex.AppendEncode(b, u[:])
	return string(b)
}
