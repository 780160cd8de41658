//go:build !harnlite

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/harnlang/harn/eventlog"
	"github.com/harnlang/harn/eventlog/backend"
	"github.com/harnlang/harn/internal/jsonv"
	"github.com/harnlang/harn/orchestrator"
	"github.com/harnlang/harn/orchestrator/manifest"
)

const orchestratorHelp = `Usage: harn orchestrator fire TRIGGER_ID [--payload JSON]   dispatch a trigger now
       harn orchestrator replay EVENT_ID [--as-of RFC3339]    re-dispatch a recorded event
       harn orchestrator queue                                queue counts and recent records
       harn orchestrator dlq list                             pending dead letters
       harn orchestrator dlq retry ENTRY_ID                   re-dispatch a dead letter
       harn orchestrator inspect                              triggers, metrics, flow control

Every command takes --config PATH (default harn.toml), --state-dir DIR
(default .harn/orchestrator) and --json, and reads the same state directory
or PostgreSQL log (HARN_EVENT_LOG_URL) as 'harn mcp serve', but creates
none: a state directory without an event log is refused. fire, replay and
dlq retry run as a worker node until the event's first attempt is recorded
(a running server may take the attempt instead; the lease lasts
HARN_ORCHESTRATOR_LEASE_TTL) and print the dispatch handle; their events
carry a cli_ trace id. The commands run no cron schedule and register no
trigger versions: that is the servers' work. See docs/orchestrator.md.

Exit status: 0 on success (fire/replay/retry: the first attempt succeeded or
was skipped); 1 when the attempt failed or dead-lettered, or on an error;
2 on a usage error; 130 when Ctrl-C stopped the wait for an accepted
event, which continues (an attempt running in this process is let finish;
Ctrl-C again leaves it to its lease).
`

func init() {
	commandHelp["orchestrator"] = orchestratorHelp
	for _, c := range []string{"fire", "replay", "queue", "dlq", "dlq list", "dlq retry", "inspect"} {
		commandHelp["orchestrator "+c] = orchestratorHelp
	}
}

func cmdOrchestrator(args []string, stdout, stderr io.Writer) int {
	usage := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "error: "+format+"\n\n%s", append(a, orchestratorHelp)...)
		return 2
	}
	f := defaultOrchestratorFlags()
	var pos []string
	asJSON := false
	payload, asOf := "", ""
	for i := 0; i < len(args); {
		n, err := f.take(args, i)
		if err != nil {
			return usage("%v", err)
		}
		if n > 0 {
			i += n
			continue
		}
		a := args[i]
		name, _, _ := strings.Cut(a, "=")
		switch {
		case a == "--json":
			asJSON = true
			i++
		case a == "--help" || a == "-h":
			fmt.Fprint(stdout, orchestratorHelp)
			return 0
		case name == "--payload" || name == "--as-of":
			dst := &payload
			if name == "--as-of" {
				dst = &asOf
			}
			val, last, err := flagValue(args, i)
			if err != nil {
				return usage("%v", err)
			}
			*dst, i = val, last+1
		case strings.HasPrefix(a, "-"):
			return usage("%s", unknownOption(a, orchestratorFlagNames("--json", "--payload", "--as-of")...))
		default:
			pos = append(pos, a)
			i++
		}
	}
	if len(pos) == 0 {
		fmt.Fprint(stderr, orchestratorHelp)
		return 2
	}
	cmd := pos[0]
	if cmd == "dlq" {
		switch {
		case len(pos) < 2:
			return usage("dlq needs list or retry")
		case pos[1] != "list" && pos[1] != "retry":
			return usage("unknown dlq command %q (list or retry)", pos[1])
		}
		cmd, pos = "dlq "+pos[1], pos[1:]
	}
	// the one positional argument of each command, "" for none
	want := map[string]string{"fire": "TRIGGER_ID", "replay": "EVENT_ID", "queue": "", "dlq list": "", "dlq retry": "ENTRY_ID", "inspect": ""}
	arg, known := want[cmd]
	if !known {
		return usage("unknown orchestrator command %q", cmd)
	}
	switch extra := pos[1:]; {
	case arg == "" && len(extra) > 0:
		return usage("%s takes no argument, got %s", cmd, strings.Join(extra, " "))
	case arg != "" && len(extra) == 0:
		return usage("%s needs %s", cmd, arg)
	case arg != "" && len(extra) > 1:
		return usage("%s takes one argument, %s; got %d: %s", cmd, arg, len(extra), strings.Join(extra, " "))
	}
	if payload != "" && cmd != "fire" {
		return usage("--payload applies to fire only")
	}
	if asOf != "" && cmd != "replay" {
		return usage("--as-of applies to replay only")
	}
	var payloadValue any = map[string]any{}
	if payload != "" {
		v, err := orchestrator.ParseJSON([]byte(payload))
		if err != nil {
			return usage("--payload is not JSON: %v", err)
		}
		if _, ok := v.(map[string]any); !ok {
			return usage("--payload must be a JSON object (the event fields merged over the synthetic event), got %s", jsonv.TypeName(v))
		}
		payloadValue = v
	}
	var asOfTime *time.Time
	if asOf != "" {
		t, err := time.Parse(time.RFC3339Nano, asOf)
		if err != nil {
			return usage("--as-of must be an RFC 3339 timestamp, got %q", asOf)
		}
		asOfTime = &t
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	// The CLI receives no webhook deliveries, and only a dispatching
	// command runs handlers (as a worker node, any binding's).
	dispatches := cmd == "fire" || cmd == "replay" || cmd == "dlq retry"
	m, ok := f.readManifest(manifest.Options{NoWebhookSecrets: true, NoHandlerSecrets: !dispatches}, stderr)
	if !ok {
		return 1
	}
	log, ok := f.openOperatorLog(ctx, stderr)
	if !ok {
		return 1
	}
	defer log.Close()
	o, err := openNode(ctx, m, log, f.stateDir, stderr)
	if err != nil {
		if !reportManifestError(stderr, f.config, err) {
			fmt.Fprintf(stderr, "error: %v\n", err)
		}
		return 1
	}
	if dispatches {
		o.Start()
	}
	closed := false
	defer func() {
		if !closed {
			o.Close()
		}
	}()
	caller := orchestrator.CLICaller("harn-cli/" + version)
	var out any
	switch cmd {
	case "fire":
		out, err = o.Fire(ctx, pos[1], payloadValue, caller)
	case "replay":
		out, err = o.Replay(ctx, pos[1], asOfTime, caller)
	case "dlq retry":
		out, err = o.RetryDLQ(ctx, pos[1], caller)
	case "queue":
		out, err = o.Queue(ctx)
	case "dlq list":
		out, err = o.DLQList(ctx)
	case "inspect":
		out, err = o.Inspect(ctx)
	}
	if h := handleOf(out); err != nil && h != nil && h.EventID != "" && ctx.Err() != nil {
		closed = true
		return interrupted(o, *h, f, stderr)
	}
	if err != nil {
		fmt.Fprintf(stderr, "error: %v\n", err)
		return 1
	}
	if asJSON {
		b, _ := marshalJSON(out, "  ")
		fmt.Fprintf(stdout, "%s\n", b)
	} else {
		if cmd == "inspect" {
			// Not in the inspect object: docs/spec/orchestrator.md §5.1 fixes its keys.
			fmt.Fprintf(stdout, "node %s, event log %s\n", o.Owner(), log.Backend())
		}
		printHuman(stdout, cmd, out)
	}
	if dispatches {
		if h := handleOf(out); h != nil && h.Status != "succeeded" && h.Status != "skipped" {
			return 1
		}
	}
	return 0
}

// interrupted ends a dispatching command whose wait for event h was
// interrupted (SIGINT) once the event was accepted: the event runs on
// (docs/orchestrator.md, failure semantics). An attempt running in this
// process is let finish and record its outcome (up to the drain
// timeout); a second Ctrl-C leaves it to its lease, after which a server
// node runs it again. The exit status is 130, as for any SIGINT.
func interrupted(o *orchestrator.Orchestrator, h orchestrator.Handle, f orchestratorFlags, stderr io.Writer) int {
	again := make(chan os.Signal, 1) // before any message: the next Ctrl-C must not kill the process
	signal.Notify(again, os.Interrupt)
	defer signal.Stop(again)
	fmt.Fprintf(stderr, "interrupted: stopped waiting for event %s (binding %s); it was accepted and continues\n", h.EventID, h.BindingID)
	fmt.Fprintf(stderr, "follow it with: harn orchestrator queue --config %s --state-dir %s\n", f.config, f.stateDir)
	if o.InFlight() == 0 {
		o.Close()
		return 130
	}
	fmt.Fprintln(stderr, "finishing the attempt running in this process so its outcome is recorded; Ctrl-C again to leave it to its lease (a server node then runs it again)")
	closed := make(chan struct{})
	go func() { o.Close(); close(closed) }()
	select {
	case <-closed:
	case <-again:
	}
	return 130
}

// openNode opens an orchestrator node for one operator command: one
// worker, with the lease TTL of HARN_ORCHESTRATOR_LEASE_TTL as a
// server's (nodeOptions); its handler output goes to stderr.
func openNode(ctx context.Context, m *manifest.Manifest, log eventlog.Log, stateDir string, stderr io.Writer) (*orchestrator.Orchestrator, error) {
	opts, err := nodeOptions(os.Getenv)
	if err != nil {
		return nil, err
	}
	opts.Log, opts.Manifest, opts.StateDir, opts.Operator, opts.Workers, opts.Stderr = log, m, stateDir, true, 1, stderr
	return orchestrator.New(ctx, opts)
}

// openOperatorLog opens the event log an operator command works on,
// which must exist already: a command never creates one. A state
// directory without the log the environment selects — a mistyped
// --state-dir, the parent of the real one, or one holding a file-backend
// log read without HARN_EVENT_LOG_BACKEND=file — is refused, saying
// what was looked for, rather than read as an idle orchestrator.
func (f *orchestratorFlags) openOperatorLog(ctx context.Context, stderr io.Writer) (eventlog.Log, bool) {
	cfg, err := backend.Resolve(f.stateDir, os.Getenv)
	if err != nil {
		fmt.Fprintf(stderr, "error: cannot open the event log: eventlog: %v\n", err)
		return nil, false
	}
	if !backend.Exists(cfg) {
		fmt.Fprintf(stderr, "error: %s\n", missingLog(f.stateDir, cfg, os.Getenv))
		return nil, false
	}
	return f.openLog(ctx, stderr)
}

// missingLog says why stateDir holds no log cfg could open, with a hint
// when the log is nearby: the other on-disk backend's log in the same
// directory, or the selected backend's in a subdirectory.
func missingLog(stateDir string, cfg backend.Config, getenv func(string) string) string {
	if cfg.Backend == "memory" {
		return "HARN_EVENT_LOG_BACKEND=memory: a memory log lives inside the server's process, which harn orchestrator cannot reach (use the sqlite or file backend, or HARN_EVENT_LOG_URL)"
	}
	if fi, err := os.Stat(stateDir); err != nil || !fi.IsDir() {
		return fmt.Sprintf("no state directory %s (start harn mcp serve with it first, or pass --state-dir)", stateDir)
	}
	msg := fmt.Sprintf("no event log in state directory %s: looked for %s", stateDir, logPlace(cfg))
	other := "file"
	if cfg.Backend == "file" {
		other = "sqlite"
	}
	alt, err := backend.Resolve(stateDir, func(k string) string {
		if k == "HARN_EVENT_LOG_BACKEND" {
			return other
		}
		return getenv(k)
	})
	if err == nil && backend.Exists(alt) {
		return fmt.Sprintf("%s, but the directory holds %s: set HARN_EVENT_LOG_BACKEND=%s", msg, logPlace(alt), other)
	}
	entries, _ := os.ReadDir(stateDir)
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		sub := filepath.Join(stateDir, e.Name())
		if in, err := backend.Resolve(sub, getenv); err == nil && backend.Exists(in) {
			return fmt.Sprintf("%s, but its subdirectory %s holds one: pass --state-dir %s", msg, sub, sub)
		}
	}
	return msg + " (start harn mcp serve with this state directory first, or pass the one it uses with --state-dir)"
}

// logPlace names where a log of cfg's backend is kept.
func logPlace(cfg backend.Config) string {
	if cfg.Backend == "file" {
		return "a file-backend log in " + cfg.Dir
	}
	return "the SQLite log " + cfg.SQLitePath
}

func handleOf(out any) *orchestrator.Handle {
	switch v := out.(type) {
	case orchestrator.Handle:
		return &v
	case orchestrator.ReplayReport:
		return &v.Handle
	case orchestrator.DLQRetry:
		return &v.Handle
	}
	return nil
}

func str(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// marshalJSON encodes v as the MCP tools do: `<`, `>` and `&` stay
// literal (encoding/json would write \u003c …), indented by indent
// unless it is "".
func marshalJSON(v any, indent string) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", indent)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

func compact(v any) string {
	b, err := marshalJSON(v, "")
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// printHuman prints a command's result as short key: value lines.
func printHuman(w io.Writer, cmd string, out any) {
	handle := func(h orchestrator.Handle) {
		fmt.Fprintf(w, "event:   %s\nbinding: %s (version %d)\nstatus:  %s\n", h.EventID, h.BindingID, h.BindingVersion, h.Status)
		if h.Duplicate {
			fmt.Fprintln(w, "duplicate: an event with the same key (dedupe_key) was accepted first; this is its handle")
		}
		if h.ReplayOfEventID != nil {
			fmt.Fprintf(w, "replay of: %s\n", *h.ReplayOfEventID)
		}
		if h.DLQEntryID != nil {
			fmt.Fprintf(w, "dlq entry: %s\n", *h.DLQEntryID)
		}
		if h.Error != nil {
			fmt.Fprintf(w, "error:   %s\n", *h.Error)
		}
		if h.Result != nil {
			fmt.Fprintf(w, "result:  %s\n", compact(h.Result))
		}
	}
	switch v := out.(type) {
	case orchestrator.Handle:
		handle(v)
	case orchestrator.ReplayReport:
		fmt.Fprintf(w, "as of %s: binding %s version %s (now %d)\n%s\n", v.AsOf, v.BindingID, intOrNone(v.BindingVersionAsOf), v.BindingVersionCurrent, v.Note)
		handle(v.Handle)
	case orchestrator.DLQRetry:
		fmt.Fprintf(w, "retried %s\n", v.EntryID)
		handle(v.Handle)
	case map[string]any:
		switch cmd {
		case "queue":
			d := v["dispatcher"].(orchestrator.Dispatcher)
			fmt.Fprintf(w, "in flight %d, waiting for retry %d, dead letters %d\n", d.InFlight, d.RetryQueueDepth, d.DLQDepth)
			for _, k := range []string{"inbox", "outbox", "attempts", "dlq"} {
				tp := v[k].(orchestrator.TopicPreview)
				fmt.Fprintf(w, "%-9s %d %s\n", k, tp.Count, plural(int(tp.Count), "record", "records"))
				for _, p := range tp.Head {
					fmt.Fprintf(w, "  #%d %s %s %s\n", p.EventID, time.UnixMilli(p.OccurredAtMs).UTC().Format(time.RFC3339), p.Kind, p.Headers["event_id"])
				}
			}
		case "dlq list":
			entries := v["entries"].([]orchestrator.DLQEntry)
			if len(entries) == 0 {
				fmt.Fprintln(w, "no pending dead letters")
			}
			for _, e := range entries {
				n := len(e.RetryHistory)
				fmt.Fprintf(w, "%s  %s  %s  %s (%d %s): %s\n", e.ID, e.BindingID, e.EventID, e.ErrorClass, n, plural(n, "attempt", "attempts"), e.Error)
			}
		case "inspect":
			d := v["dispatcher"].(orchestrator.Dispatcher)
			fmt.Fprintf(w, "in flight %d, waiting for retry %d, dead letters %d\n", d.InFlight, d.RetryQueueDepth, d.DLQDepth)
			b, _ := json.Marshal(v["triggers"])
			var triggers []map[string]any
			json.Unmarshal(b, &triggers)
			for _, t := range triggers {
				m := t["metrics"].(map[string]any)
				fmt.Fprintf(w, "%-24v %-8v v%v %-10v received %v, dispatched %v, failed %v, in flight %v", t["id"], t["kind"], t["version"], t["state"], m["received"], m["dispatched"], m["failed"], m["in_flight"])
				if fc, _ := t["flow_control"].(map[string]any); len(fc) > 0 {
					keys := make([]string, 0, len(fc))
					for k := range fc {
						keys = append(keys, k)
					}
					sort.Strings(keys)
					fmt.Fprintf(w, "; flow control: %s", strings.Join(keys, ", "))
				}
				fmt.Fprintln(w)
			}
		default:
			fmt.Fprintln(w, compact(v))
		}
	default:
		fmt.Fprintln(w, compact(v))
	}
}

func intOrNone(p *int) string {
	if p == nil {
		return "none"
	}
	return fmt.Sprint(*p)
}
