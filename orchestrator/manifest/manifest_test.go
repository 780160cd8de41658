package manifest

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/harnlang/harn/internal/triggerspec"
)

const good = `
[package]
name = "fixture"

[exports]
handlers = "handlers.harn"

[[triggers]]
id = "cron-ok"
kind = "cron"
provider = "cron"
schedule = "*/5 * * * *"
timezone = "Europe/Paris"
match = { events = ["cron.tick"] }
handler = "handlers::on_ok"
retry = { max = 3, backoff = "exponential", base = "10ms" }
priority = "high"
concurrency = { max = 2 }
singleton = true

[[triggers]]
id = "hook"
kind = "webhook"
handler = "on_hook"
when = "handlers::wanted"
webhook = { path = "/in/hook", replay_window = "2m" }
throttle = { period = "1m", max = 10, key = "payload.repo" }

[[triggers]]
id = "by-hand"
kind = "manual"
handler = "worker://triage"

[[triggers]]
id = "agent"
kind = "webhook"
provider = "github"
handler = "a2a://reviewer.prod/triage"
sources = [{ id = "push", match = { events = ["push"] } }, { id = "pr", match = { events = ["pull_request"] } }]
`

func TestGoodManifest(t *testing.T) {
	m, err := Parse("harn.toml", []byte(good))
	if err != nil {
		t.Fatal(err)
	}
	if m.Package.Name != "fixture" || m.Exports["handlers"] != "handlers.harn" {
		t.Fatalf("package/exports: %+v %+v", m.Package, m.Exports)
	}
	var ids []string
	for _, tr := range m.Triggers {
		ids = append(ids, tr.ID)
	}
	if got := strings.Join(ids, ","); got != "cron-ok,hook,by-hand,agent.push,agent.pr" {
		t.Fatalf("ids %s", got)
	}
	c := m.Trigger("cron-ok")
	if c.Location.String() != "Europe/Paris" || c.Handler.File != "handlers.harn" || c.Handler.Function != "on_ok" || c.Handler.Module != "handlers" {
		t.Fatalf("cron: %+v", c)
	}
	if c.Retry.Max != 3 || c.Retry.Delay(1) != 10*time.Millisecond || c.Retry.Delay(3) != 40*time.Millisecond {
		t.Fatalf("retry %+v", c.Retry)
	}
	if c.Flow.Concurrency.Max != 2 || c.Flow.Singleton == nil || c.Priority.Level != "high" {
		t.Fatalf("flow %+v", c.Flow)
	}
	h := m.Trigger("hook")
	if h.Provider != "webhook" || h.Handler.File != "lib.harn" || h.WhenRef.Module != "handlers" || h.Webhook.Path != "/in/hook" || h.Webhook.ReplayWindow != 2*time.Minute {
		t.Fatalf("hook %+v %+v", h, h.Webhook)
	}
	if h.Flow.Throttle.Period != time.Minute || h.Flow.Throttle.Key != "payload.repo" {
		t.Fatalf("throttle %+v", h.Flow.Throttle)
	}
	if w := m.Trigger("by-hand"); w.Handler.Kind != "worker" || w.Handler.Queue != "triage" || w.EventKind() != "manual" {
		t.Fatalf("worker %+v", w)
	}
	a := m.Trigger("agent.pr")
	if a.Handler.Target != "reviewer.prod/triage" || a.EventKind() != "pull_request" || a.Webhook.Scheme != "github" || a.Webhook.DeliveryHeader != "X-GitHub-Delivery" {
		t.Fatalf("agent %+v", a)
	}
	if m.Trigger("agent.push").Fingerprint == a.Fingerprint {
		t.Fatal("sources share a fingerprint")
	}
	// The default policy is the svix schedule, 7 attempts.
	if r := h.Retry; r.Max != 7 || r.Backoff != "svix" || r.Delay(1) != 5*time.Second || r.Delay(2) != 5*time.Minute || r.Delay(9) != 10*time.Hour {
		t.Fatalf("default retry %+v", r)
	}
}

// TestRefusals: every refused field names the file, the line and index
// of its [[triggers]] table, the trigger id and the field.
func TestRefusals(t *testing.T) {
	const head = "[exports]\nhandlers = \"h.harn\"\n\n[[triggers]]\nid = \"ok\"\nkind = \"manual\"\nhandler = \"f\"\n\n[[triggers]]\n"
	cases := []struct{ body, want string }{
		{`kind = "cron"` + "\nhandler = \"f\"\nschedule = \"* * * * *\"", `harn.toml:9: [[triggers]][1]: id: is required`},
		{`id = "ok"` + "\nkind = \"manual\"\nhandler = \"f\"", `harn.toml:9: [[triggers]][1] (id "ok"): id: duplicate trigger id "ok" (also [[triggers]][0])`},
		{`id = "a b"` + "\nkind = \"manual\"\nhandler = \"f\"", `id: "a b" may contain only`},
		{`id = "x"` + "\nhandler = \"f\"", `[[triggers]][1] (id "x"): kind: is required (one of cron, webhook, manual, poll, stream, predicate, a2a-push)`},
		{`id = "x"` + "\nkind = \"timer\"\nhandler = \"f\"", `kind: unknown kind "timer"`},
		{`id = "x"` + "\nkind = \"webhok\"\nhandler = \"f\"", `kind: unknown kind "webhok" (did you mean webhook?)`},
		{`id = "x"` + "\nkind = \"manual\"\nhandler = \"f\"\nsources = [{ id = 3 }]", `sources[0].id: must be a string`},
		{`id = "x"` + "\nkind = \"manual\"\nhandler = \"f\"\nsources = [{ id = \"a b\" }]", `sources[0].id: "a b" may contain only letters`},
		{`id = "x"` + "\nkind = \"stream\"\nhandler = \"f\"", `provider: is required for kind "stream"`},
		{`id = "x"` + "\nkind = \"webhook\"\nprovider = \"myspace\"\nhandler = \"f\"", `provider: unknown provider "myspace"`},
		{`id = "x"` + "\nkind = \"stream\"\nprovider = \"cron\"\nhandler = \"f\"", `provider: provider "cron" does not serve kind "stream"`},
		{`id = "x"` + "\nkind = \"manual\"", `(id "x"): handler: is required`},
		{`id = "x"` + "\nkind = \"manual\"\nhandler = 3", `handler: must be a non-empty string`},
		{`id = "x"` + "\nkind = \"manual\"\nhandler = \"http://x\"", `handler: unsupported handler scheme "http://"`},
		{`id = "x"` + "\nkind = \"manual\"\nhandler = \"nope::f\"", `handler: unknown module "nope" in handler "nope::f" ([exports] declares handlers)`},
		{`id = "x"` + "\nkind = \"manual\"\nhandler = \"a2a://\"", `handler: a2a handler "a2a://" needs a target`},
		{`id = "x"` + "\nkind = \"manual\"\nhandler = \"worker://\"", `handler: worker handler "worker://" needs a queue name`},
		{`id = "x"` + "\nkind = \"manual\"\nhandler = \"f-g\"", `handler: invalid handler "f-g"`},
		{`id = "x"` + "\nkind = \"manual\"\nhandler = \"f\"\nwhen = \"worker://q\"", `when: a predicate must be a local function`},
		{`id = "x"` + "\nkind = \"manual\"\nhandler = \"f\"\nwhen_budget = { timeout = \"1s\" }", `when_budget: requires ` + "`when`"},
		{`id = "x"` + "\nkind = \"manual\"\nhandler = \"f\"\nwhen = \"f\"\nwhen_budget = { tokens_max = -1 }", `when_budget.tokens_max: ` + triggerspec.NotNonNegInt},
		{`id = "x"` + "\nkind = \"manual\"\nhandler = \"f\"\nwhen = \"f\"\nwhen_budget = { tokens_max = 1.5 }", `when_budget.tokens_max: ` + triggerspec.NotNonNegInt},
		{`id = "x"` + "\nkind = \"manual\"\nhandler = \"f\"\nwhen = \"f\"\nwhen_budget = { max_cost_usd = -0.5 }", `when_budget.max_cost_usd: must be a non-negative number`},
		{`id = "x"` + "\nkind = \"manual\"\nhandler = \"f\"\nwhen = \"f\"\nwhen_budget = { max_cost_usd = \"1\" }", `when_budget.max_cost_usd: must be a non-negative number`},
		{`id = "x"` + "\nkind = \"manual\"\nhandler = \"f\"\ntier = \"yolo\"", `tier: unknown tier "yolo"`},
		{`id = "x"` + "\nkind = \"manual\"\nhandler = \"f\"\ntier = \"shadow\"\nautonomy_tier = \"act_auto\"",
			`harn.toml:9: [[triggers]][1] (id "x"): autonomy_tier: "act_auto" conflicts with tier = "shadow": tier and autonomy_tier are one field; give one of them`},
		{`id = "x"` + "\nkind = \"cron\"\nhandler = \"f\"", `schedule: is required for a cron trigger`},
		{`id = "x"` + "\nkind = \"cron\"\nhandler = \"f\"\nschedule = \"every day\"", `schedule: invalid cron expression "every day"`},
		{`id = "x"` + "\nkind = \"cron\"\nhandler = \"f\"\nschedule = \"* * * * *\"\ntimezone = \"Mars/Olympus\"", `timezone: unknown time zone "Mars/Olympus"`},
		{`id = "x"` + "\nkind = \"cron\"\nhandler = \"f\"\nschedule = \"0 9 30 2 *\"", `schedule: cron expression "0 9 30 2 *" matches no date: the month has no such day, so the trigger would never fire`},
		{`id = "x"` + "\nkind = \"cron\"\nhandler = \"f\"\nschedule = \"0 9 * * 8\"", `schedule: invalid cron expression "0 9 * * 8": end of range (8) above maximum (7): 8`},
		{`id = "x"` + "\nkind = \"cron\"\nhandler = \"f\"\nschedule = \"CRON_TZ=Asia/Tokyo 0 9 * * *\"", `schedule: "CRON_TZ=Asia/Tokyo" does not belong in the schedule: write timezone = "Asia/Tokyo"`},
		{`id = "x"` + "\nkind = \"cron\"\nhandler = \"f\"\nschedule = \"TZ=UTC @daily\"", `schedule: "TZ=UTC" does not belong in the schedule: write timezone = "UTC"`},
		{`id = "x"` + "\nkind = \"manual\"\nhandler = \"f\"\nschedule = \"* * * * *\"", `schedule: only a cron trigger has a schedule`},
		{`id = "x"` + "\nkind = \"webhook\"\nhandler = \"f\"\nwebhook = { path = \"/.well-known/mcp.json\" }", `webhook.path: /.well-known/mcp.json is reserved for discovery documents; use a path such as /hooks/x`},
		{`id = "x"` + "\nkind = \"manual\"\nhandler = \"f\"\nretry = { max = 250 }", `harn.toml:9: [[triggers]][1] (id "x"): retry.max: must be between 0 and 100, got 250`},
		{`id = "x"` + "\nkind = \"manual\"\nhandler = \"f\"\nretry = { max = -1 }", `retry.max: must be a non-negative integer`},
		{`id = "x"` + "\nkind = \"manual\"\nhandler = \"f\"\nretry = { backoff = \"fibonacci\" }", `retry.backoff: unknown backoff "fibonacci" (one of svix, linear, exponential)`},
		{`id = "x"` + "\nkind = \"manual\"\nhandler = \"f\"\nretry = { retention_days = 0 }", `retry.retention_days: must be at least 1, got 0`},
		{`id = "x"` + "\nkind = \"manual\"\nhandler = \"f\"\nretry = { tries = 3 }", `retry.tries: unknown field (retry has max, backoff, retention_days, base)`},
		{`id = "x"` + "\nkind = \"manual\"\nhandler = \"f\"\nretry = { base = \"1s\" }", `retry.base: applies to linear and exponential backoff only`},
		{`id = "x"` + "\nkind = \"manual\"\nhandler = \"f\"\npriority = \"urgent\"", `priority: unknown priority "urgent"`},
		{`id = "x"` + "\nkind = \"manual\"\nhandler = \"f\"\npriority = { key = \"tier\" }", `priority.order: must list at least one value`},
		{`id = "x"` + "\nkind = \"manual\"\nhandler = \"f\"\nbudget = { max_cost_usd = -1.0 }", `budget.max_cost_usd: must be a non-negative number`},
		{`id = "x"` + "\nkind = \"manual\"\nhandler = \"f\"\nbudget = { on_budget_exhausted = \"panic\" }", `budget.on_budget_exhausted: unknown action "panic"`},
		{`id = "x"` + "\nkind = \"manual\"\nhandler = \"f\"\ntier = \"suggest\"\nbudget = { max_autonomous_decisions_per_hour = 3 }", `budget.max_autonomous_decisions_per_hour: counts autonomous decisions, which only a binding with tier = "act_auto" makes`},
		{`id = "x"` + "\nkind = \"manual\"\nhandler = \"f\"\nconcurrency = { key = \"k\" }", `concurrency.max: is required and must be at least 1`},
		{`id = "x"` + "\nkind = \"manual\"\nhandler = \"f\"\nthrottle = { max = 3 }", `throttle.period: is required and must be a positive duration`},
		{`id = "x"` + "\nkind = \"manual\"\nhandler = \"f\"\nrate_limit = { max = 3, period = \"soon\" }", `rate_limit.period: must be a duration such as "30s"`},
		{`id = "x"` + "\nkind = \"manual\"\nhandler = \"f\"\ndebounce = { key = \"k\" }", `debounce.period: is required`},
		{`id = "x"` + "\nkind = \"manual\"\nhandler = \"f\"\nbatch = { timeout = \"1s\" }", `batch.size: is required and must be at least 1`},
		{`id = "x"` + "\nkind = \"manual\"\nhandler = \"worker://q\"\nbatch = { size = 2 }", `batch: applies only to a local function handler`},
		{`id = "x"` + "\nkind = \"manual\"\nhandler = \"f\"\nsingleton = { max = 2 }", `singleton.max: unknown field (singleton has key)`},
		{`id = "x"` + "\nkind = \"manual\"\nhandler = \"f\"\nsecrets = { token = \"plain\" }", `secrets.token: must be "<provider>/<secret>"`},
		{`id = "x"` + "\nkind = \"manual\"\nhandler = \"f\"\ndedupe_key = \"payload.[\"", `dedupe_key: invalid JMESPath expression "payload.["`},
		{`id = "x"` + "\nkind = \"manual\"\nhandler = \"f\"\nfilter = \" \"", `filter: must be a JMESPath expression over the event`},
		{`id = "x"` + "\nkind = \"manual\"\nhandler = \"f\"\nsecrets = { token = \"github/unset-token\" }", `secrets.token: environment variable HARN_SECRET_GITHUB_UNSET_TOKEN (secret github/unset-token) is not set`},
		{`id = "x"` + "\nkind = \"manual\"\nhandler = \"f\"\nallow_cleartext = true", `allow_cleartext: applies only to a2a:// handlers`},
		{`id = "x"` + "\nkind = \"manual\"\nhandler = \"f\"\nwebhook = { path = \"/x\" }", `webhook: only a webhook or a2a-push trigger has a ` + "`webhook`" + ` table`},
		{`id = "x"` + "\nkind = \"webhook\"\nhandler = \"f\"\nwebhook = { secret_env = \"HARN_TEST_UNSET_SECRET\" }", `webhook.secret_env: environment variable HARN_TEST_UNSET_SECRET (the webhook's HMAC secret) is not set`},
		{`id = "x"` + "\nkind = \"webhook\"\nhandler = \"f\"\nwebhook = { path = \"hooks\" }", `webhook.path: must be an absolute URL path`},
		{`id = "x"` + "\nkind = \"webhook\"\nhandler = \"f\"\nwebhook = { scheme = \"stripe\" }", `webhook.scheme: unknown signature scheme "stripe"`},
		{`id = "x"` + "\nkind = \"manual\"\nhandler = \"f\"\nhandlr = \"g\"", `handlr: unknown field (did you mean handler?)`},
		{`id = "x"` + "\nkind = \"manual\"\nhandler = \"f\"\nmatch = { event = [\"a\"] }", `match.event: unknown field (match has only ` + "`events`)"},
		{`id = "x"` + "\nkind = \"manual\"\nhandler = \"f\"\nmatch = { events = \"a\" }", `match.events: must be an array of strings`},
		{`id = "x"` + "\nkind = \"manual\"\nhandler = \"f\"\ntimeout = \"forever\"", `timeout: must be a duration`},
		{`id = "x"` + "\nkind = \"manual\"\nhandler = \"f\"\nsources = []", `sources: must be a non-empty array of tables`},
		{`id = "x"` + "\nkind = \"manual\"\nhandler = \"f\"\nsources = [{ id = \"s\", kind = \"bogus\" }, { id = \"s\" }]", `sources[1].id: duplicate source id "s" (also sources[0])`},
		{`id = "x"` + "\nkind = \"manual\"\nhandler = \"f\"\nsources = [{ handler = \"g\", id = \"s\" }]", `sources[0].handler: not allowed in a source`},
		{`id = "x"` + "\nkind = \"cron\"\nhandler = \"f\"\nsources = [{ id = \"s\" }]", `[[triggers]][1] (id "x"): sources[0].schedule: is required for a cron trigger`},
	}
	for _, c := range cases {
		_, err := Parse("harn.toml", []byte(head+c.body+"\n"))
		if err == nil {
			t.Errorf("%q: accepted", c.body)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q:\n got %s\nwant %s", c.body, err, c.want)
		}
		if !strings.HasPrefix(err.Error(), "harn.toml:9: [[triggers]][1]") {
			t.Errorf("%q: not located: %s", c.body, err)
		}
	}
}

// A problem with a field the trigger sets for all its sources is
// reported once, on the trigger's field, not once per source.
func TestSharedSourceFieldReportedOnce(t *testing.T) {
	_, err := Parse("harn.toml", []byte("[[triggers]]\nid = \"x\"\nkind = \"manual\"\nhandler = \"f\"\nretry = { max = 1000 }\nsources = [{ id = \"a\" }, { id = \"b\" }]\n"))
	if err == nil {
		t.Fatal("accepted")
	}
	msg := err.Error()
	if strings.Count(msg, "retry") != 1 || strings.Contains(msg, "sources[") {
		t.Fatalf("want one problem on retry, got:\n%s", msg)
	}
}

// tier and autonomy_tier are aliases (docs/spec/orchestrator.md §2):
// both may be given when they agree; one problem is reported for an
// unknown tier, not a conflict as well.
func TestTierAliases(t *testing.T) {
	const head = "[[triggers]]\nid = \"x\"\nkind = \"manual\"\nhandler = \"f\"\n"
	m, err := Parse("harn.toml", []byte(head+"tier = \"suggest\"\nautonomy_tier = \"suggest\"\n"))
	if err != nil || m.Triggers[0].Tier != "suggest" {
		t.Fatalf("agreeing aliases: %v", err)
	}
	_, err = Parse("harn.toml", []byte(head+"tier = \"yolo\"\nautonomy_tier = \"act_auto\"\n"))
	var me *Error
	if !errors.As(err, &me) || len(me.Problems) != 1 || me.Problems[0].Field != "tier" {
		t.Fatalf("unknown tier: %v", err)
	}
}

// Two bindings on one webhook path would leave the second deaf: the
// second is refused, and so is a source binding on its sibling's path.
func TestDuplicateWebhookPath(t *testing.T) {
	src := "[[triggers]]\nid = \"a\"\nkind = \"webhook\"\nhandler = \"f\"\nwebhook = { path = \"/in/x\" }\n\n" +
		"[[triggers]]\nid = \"b\"\nkind = \"webhook\"\nhandler = \"f\"\nwebhook = { path = \"/in/x\" }\n\n" +
		"[[triggers]]\nid = \"c\"\nkind = \"webhook\"\nhandler = \"f\"\nsources = [{ id = \"one\" }, { id = \"two\", webhook = { path = \"/hooks/c.one\" } }]\n"
	_, err := Parse("harn.toml", []byte(src))
	want := "harn.toml:7: [[triggers]][1] (id \"b\"): webhook.path: /in/x is already the path of trigger \"a\"\n" +
		"harn.toml:13: [[triggers]][2] (id \"c\"): webhook.path: /hooks/c.one is already the path of trigger \"c.one\""
	if err == nil || err.Error() != want {
		t.Fatalf("got %v\nwant %s", err, want)
	}
}

func TestTopLevelRefusals(t *testing.T) {
	cases := []struct{ src, want string }{
		{"[[triggers]\nid=1", "harn.toml:1:"},
		{"triggers = 3", "harn.toml:1: triggers: must be an array of tables"},
		{"[exports]\nhandlers = 3", "harn.toml:1: exports.handlers: must be a file name"},
		{"[exports]\n\"a-b\" = \"x.harn\"", "exports.a-b: module alias must be an identifier"},
		{"package = 3", "harn.toml:1: package: must be a table"},
		{"dependencies = 3", "harn.toml:1: dependencies: must be a table"},
		{"# a project\n\n[package]\nname = 1", "harn.toml:3: package.name: must be a string"},
		{"[package]\nname = \"p\"\n\n[exports]\nh = \"h.harn\"\nx = 2", "harn.toml:4: exports.x: must be a file name"},
		{"package.name = 1", "harn.toml:1: package.name: must be a string"},
		{"# inline\n\ntriggers = [{ id = \"x\", kind = \"manual\" }]\n\n[package]\nname = \"p\"", "harn.toml:3: [[triggers]][0] (id \"x\"): handler: is required"},
		{"[exports]\nz = 1\na = 2", "harn.toml:1: exports.a: must be a file name (string)\nharn.toml:1: exports.z: must be a file name (string)"},
		// a near miss of an orchestrator table is a typo, not another
		// reader's table: it would load no trigger at all
		{"[package]\nname = \"x\"\n\n[[trigger]]\nid = \"a\"", "harn.toml:4: trigger: unknown table (did you mean triggers?)"},
		{"[[triggerz]]\nid = \"a\"", "triggerz: unknown table (did you mean triggers?)"},
		{"[export]\nh = \"h.harn\"", "harn.toml:1: export: unknown table (did you mean exports?)"},
	}
	for _, c := range cases {
		_, err := Parse("harn.toml", []byte(c.src))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: got %v, want %s", c.src, err, c.want)
		}
	}
}

// TestOtherTablesAllowed: tables other readers of harn.toml own load.
func TestOtherTablesAllowed(t *testing.T) {
	src := "[package]\nname = \"p\"\n\n[connectors.github]\nbase_url = \"https://api.github.com\"\n\n[[mcp]]\nname = \"fs\"\ncommand = \"x\"\n"
	if _, err := Parse("harn.toml", []byte(src)); err != nil {
		t.Fatal(err)
	}
}

// TestAllProblemsReported: a manifest with several errors reports them all.
func TestAllProblemsReported(t *testing.T) {
	src := "[[triggers]]\nid = \"a\"\nkind = \"cron\"\nhandler = \"f\"\n\n[[triggers]]\nid = \"b\"\nkind = \"manual\"\nhandler = \"f\"\nretry = { max = 101 }\n"
	_, err := Parse("p/harn.toml", []byte(src))
	e, ok := err.(*Error)
	if !ok || len(e.Problems) != 2 {
		t.Fatalf("got %v", err)
	}
	if e.Problems[0].Line != 1 || e.Problems[1].Line != 6 || e.Problems[1].Index != 1 {
		t.Fatalf("%+v", e.Problems)
	}
}

// TestOptionsRelaxSecrets: a process that receives no deliveries or runs
// no handler may load a manifest whose secrets are not in its
// environment.
func TestOptionsRelaxSecrets(t *testing.T) {
	src := []byte("[[triggers]]\nid = \"x\"\nkind = \"webhook\"\nhandler = \"f\"\nwebhook = { secret_env = \"HARN_TEST_UNSET_SECRET\" }\nsecrets = { token = \"github/unset-token\" }\n")
	_, err := Parse("harn.toml", src)
	if e, ok := err.(*Error); !ok || len(e.Problems) != 2 {
		t.Fatalf("Parse: want both secrets refused, got %v", err)
	}
	_, err = ParseWith("harn.toml", src, Options{NoWebhookSecrets: true})
	if err == nil || strings.Contains(err.Error(), "webhook") || !strings.Contains(err.Error(), "secrets.token") {
		t.Fatalf("NoWebhookSecrets: got %v", err)
	}
	m, err := ParseWith("harn.toml", src, Options{NoWebhookSecrets: true, NoHandlerSecrets: true})
	if err != nil {
		t.Fatal(err)
	}
	if tr := m.Triggers[0]; len(tr.Webhook.Secret) != 0 || len(tr.SecretValues) != 0 || tr.Secrets["token"] != "github/unset-token" {
		t.Fatalf("%+v %+v", tr.Webhook, tr.SecretValues)
	}
}

// TestOneProblemPerMistake: a wrong priority.order is one problem, not
// also "must list at least one value".
func TestOneProblemPerMistake(t *testing.T) {
	_, err := Parse("harn.toml", []byte("[[triggers]]\nid = \"x\"\nkind = \"manual\"\nhandler = \"f\"\npriority = { key = \"tier\", order = [1] }\n"))
	if e, ok := err.(*Error); !ok || len(e.Problems) != 1 || !strings.Contains(e.Error(), "priority.order: must be an array of non-empty strings") {
		t.Fatalf("got %v", err)
	}
}

// TestOneProblemPerGateField: a gate field its reader refuses is not also
// reported as missing; a singleton that is neither true nor a table says so.
func TestOneProblemPerGateField(t *testing.T) {
	base := "[[triggers]]\nid = \"x\"\nkind = \"manual\"\nhandler = \"f\"\n"
	for src, want := range map[string]string{
		`rate_limit = { max = 1, period = "forever" }`: "rate_limit.period: must be a duration",
		`rate_limit = { max = -1, period = "1m" }`:     "rate_limit.max:",
		`singleton = "yes"`:                            "singleton: must be true or a table",
	} {
		_, err := Parse("harn.toml", []byte(base+src+"\n"))
		if e, ok := err.(*Error); !ok || len(e.Problems) != 1 || !strings.Contains(e.Error(), want) {
			t.Errorf("%s: got %v", src, err)
		}
	}
}

// The kind of a synthetic event when match.events is empty, per binding
// kind (docs/spec/orchestrator.md §2); a manual trigger's is "manual".
func TestDefaultEventKind(t *testing.T) {
	for kind, want := range map[string]string{
		"webhook": "webhook", "cron": "cron.tick", "poll": "poll", "stream": "stream",
		"predicate": "predicate", "a2a-push": "a2a.task.received", "manual": "manual",
	} {
		if got := DefaultEventKind(kind); got != want {
			t.Errorf("%s: %q, want %q", kind, got, want)
		}
	}
}

// TestCronFieldMessages: a schedule of the wrong type is one error, not
// also "is required"; an empty timezone is refused like any other bad
// field (docs/orchestrator.md).
func TestCronFieldMessages(t *testing.T) {
	cases := []struct{ body, want string }{
		{"schedule = 5", `harn.toml:1: [[triggers]][0] (id "x"): schedule: must be a string`},
		{"schedule = \"* * * * *\"\ntimezone = \"\"", `harn.toml:1: [[triggers]][0] (id "x"): timezone: ` + triggerspec.EmptyZone},
		{"schedule = \"* * * * *\"\ntimezone = 3", `harn.toml:1: [[triggers]][0] (id "x"): timezone: must be a string`},
	}
	for _, c := range cases {
		_, err := Parse("harn.toml", []byte("[[triggers]]\nid = \"x\"\nkind = \"cron\"\nhandler = \"f\"\n"+c.body+"\n"))
		if err == nil || err.Error() != c.want {
			t.Errorf("%q:\n got %v\nwant %s", c.body, err, c.want)
		}
	}
}

// A misspelt or mistyped kind is one problem, on `kind`: the fields its
// intended kind takes (a cron schedule and time zone, a webhook table)
// are not refused as well, since "crn" was meant as cron
// (docs/spec/orchestrator.md §2: invalid field values fail loading).
func TestUnknownKindIsOneProblem(t *testing.T) {
	cases := []struct{ body, want string }{
		{"kind = \"crn\"\nschedule = \"* * * * *\"\ntimezone = \"UTC\"",
			`harn.toml:1: [[triggers]][0] (id "x"): kind: unknown kind "crn" (did you mean cron?)`},
		{"kind = 5\nschedule = \"* * * * *\"", `harn.toml:1: [[triggers]][0] (id "x"): kind: must be a string`},
		{"kind = \"webhok\"\nwebhook = { path = \"/in\" }",
			`harn.toml:1: [[triggers]][0] (id "x"): kind: unknown kind "webhok" (did you mean webhook?)`},
	}
	for _, c := range cases {
		_, err := Parse("harn.toml", []byte("[[triggers]]\nid = \"x\"\nhandler = \"f\"\n"+c.body+"\n"))
		if err == nil || err.Error() != c.want {
			t.Errorf("%q:\n got %v\nwant %s", c.body, err, c.want)
		}
	}
	// a known kind still refuses what it does not take
	_, err := Parse("harn.toml", []byte("[[triggers]]\nid = \"x\"\nhandler = \"f\"\nkind = \"manual\"\nschedule = \"* * * * *\"\n"))
	if err == nil || !strings.Contains(err.Error(), "schedule: only a cron trigger has a schedule") {
		t.Errorf("manual with schedule: %v", err)
	}
}
