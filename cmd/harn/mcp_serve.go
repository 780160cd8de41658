//go:build !harnlite

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/harnlang/harn/eventlog"
	"github.com/harnlang/harn/eventlog/backend"
	"github.com/harnlang/harn/mcp/auth"
	"github.com/harnlang/harn/mcp/protocol"
	"github.com/harnlang/harn/orchestrator"
	"github.com/harnlang/harn/orchestrator/manifest"
	"github.com/harnlang/harn/orchestrator/mcpserver"
)

const mcpServeHelp = `Usage: harn mcp serve [--config PATH] [--state-dir DIR]
                      [--transport stdio|http] [--bind ADDR] [--path PATH]

Serve the orchestrator of the project whose manifest is PATH over MCP: list
and fire triggers, inspect queues, replay events, retry dead letters, scan
for secrets, read harn:// resources and the project's .harn.prompt prompts.
Cron triggers run on schedule; on HTTP, webhook triggers receive deliveries
on the same listener. See docs/orchestrator.md.

Options:
  --config PATH      the manifest (alias --manifest; env HARN_ORCHESTRATOR_MANIFEST;
                     default harn.toml)
  --state-dir DIR    state directory: events.sqlite, orchestrator-state.json
                     (env HARN_ORCHESTRATOR_STATE_DIR; default .harn/orchestrator)
  --transport T      stdio (default) or http
  --bind ADDR        HTTP listen address (env HARN_MCP_SERVE_BIND; default 127.0.0.1:8765)
  --path PATH        HTTP endpoint path (default /mcp)

Environment: HARN_EVENT_LOG_URL (a postgres:// URL: share one log between
several servers), HARN_EVENT_LOG_BACKEND, HARN_EVENT_LOG_SQLITE_PATH,
HARN_ORCHESTRATOR_API_KEYS, HARN_ORCHESTRATOR_HMAC_SECRET and
HARN_MCP_OAUTH_* (HTTP auth, docs/orchestrator-auth.md),
HARN_MCP_LIST_PAGE_SIZE, HARN_ORCHESTRATOR_WORKERS (concurrent dispatches,
default 16), HARN_ORCHESTRATOR_LEASE_TTL (default 30s).

Exit status: 0 when the client closes stdio or on SIGINT/SIGTERM; 1 when the
manifest, auth configuration, state directory or event log is unusable;
2 on a usage error.
`

func init() {
	commandHelp["mcp serve"] = mcpServeHelp
}

// orchestratorFlags are the project flags `harn mcp serve` and `harn
// orchestrator` share.
type orchestratorFlags struct {
	config, stateDir string
}

func defaultOrchestratorFlags() orchestratorFlags {
	return orchestratorFlags{config: envOr("HARN_ORCHESTRATOR_MANIFEST", "harn.toml"), stateDir: envOr("HARN_ORCHESTRATOR_STATE_DIR", ".harn/orchestrator")}
}

// take consumes a project flag at args[i] ("--config X" or
// "--config=X"); it returns how many arguments it used (0: not one of
// them) or an error.
func (f *orchestratorFlags) take(args []string, i int) (int, error) {
	name, _, _ := strings.Cut(args[i], "=")
	var dst *string
	switch name {
	case "--config", "--manifest":
		dst = &f.config
	case "--state-dir":
		dst = &f.stateDir
	default:
		return 0, nil
	}
	val, last, err := flagValue(args, i)
	if err != nil {
		return 0, err
	}
	if val == "" {
		// "" is no path: it would read as the current directory's
		// nothing ("cannot create state directory : …")
		return 0, fmt.Errorf("%s needs a value, got an empty one", name)
	}
	*dst = val
	return last - i + 1, nil
}

// orchestratorFlagNames is every option of a command that takes the
// project flags (take) besides its own, for the unknown-option message.
func orchestratorFlagNames(own ...string) []string {
	return append([]string{"--config", "--manifest", "--state-dir", "--help"}, own...)
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

// readManifest reads the manifest, refusing a bad one with every
// problem.
func (f *orchestratorFlags) readManifest(opts manifest.Options, stderr io.Writer) (*manifest.Manifest, bool) {
	m, err := manifest.LoadWith(f.config, opts)
	if err != nil {
		if !reportManifestError(stderr, f.config, err) {
			fmt.Fprintf(stderr, "failed to read manifest %s: %v\n", f.config, unwrapPathError(err))
		}
		return nil, false
	}
	return m, true
}

// openLog creates the state directory and opens the event log.
func (f *orchestratorFlags) openLog(ctx context.Context, stderr io.Writer) (eventlog.Log, bool) {
	if err := os.MkdirAll(f.stateDir, 0o755); err != nil {
		fmt.Fprintf(stderr, "error: cannot create state directory %s: %v\n", f.stateDir, unwrapPathError(err))
		return nil, false
	}
	log, err := backend.Open(ctx, f.stateDir, os.Getenv)
	if err != nil {
		fmt.Fprintf(stderr, "error: cannot open the event log: %v\n", err)
		return nil, false
	}
	return log, true
}

// reportManifestError prints a refused manifest, every problem on an
// indented line; false when err is not a refused manifest.
func reportManifestError(stderr io.Writer, path string, err error) bool {
	var bad *manifest.Error
	if !errors.As(err, &bad) {
		return false
	}
	fmt.Fprintf(stderr, "error: invalid manifest %s:\n", path)
	for _, p := range bad.Problems {
		fmt.Fprintf(stderr, "  %s\n", strings.ReplaceAll(p.Error(), "\n", "\n  "))
	}
	return true
}

func unwrapPathError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// nodeOptions reads the node's tuning from the environment:
// HARN_ORCHESTRATOR_WORKERS (concurrent dispatches, default 16) and
// HARN_ORCHESTRATOR_LEASE_TTL (how long a dead node's deliveries stay
// leased, default 30s).
func nodeOptions(getenv func(string) string) (orchestrator.Options, error) {
	var o orchestrator.Options
	if v := getenv("HARN_ORCHESTRATOR_WORKERS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return o, fmt.Errorf("HARN_ORCHESTRATOR_WORKERS must be a positive integer, got %q", v)
		}
		o.Workers = n
	}
	if v := getenv("HARN_ORCHESTRATOR_LEASE_TTL"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d < time.Second {
			return o, fmt.Errorf("HARN_ORCHESTRATOR_LEASE_TTL must be a duration of at least 1s, got %q", v)
		}
		o.LeaseTTL = d
	}
	return o, nil
}

func mcpServe(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	f := defaultOrchestratorFlags()
	transport, bind, path := "stdio", envOr("HARN_MCP_SERVE_BIND", "127.0.0.1:8765"), "/mcp"
	for i := 0; i < len(args); {
		n, err := f.take(args, i)
		if err != nil {
			fmt.Fprintf(stderr, "error: %v\n\n%s", err, mcpServeHelp)
			return 2
		}
		if n > 0 {
			i += n
			continue
		}
		name, _, _ := strings.Cut(args[i], "=")
		var dst *string
		switch name {
		case "--transport":
			dst = &transport
		case "--bind":
			dst = &bind
		case "--path":
			dst = &path
		case "--help", "-h":
			fmt.Fprint(stdout, mcpServeHelp)
			return 0
		default:
			fmt.Fprintf(stderr, "error: %s\n\n%s", unknownOption(args[i], orchestratorFlagNames("--transport", "--bind", "--path")...), mcpServeHelp)
			return 2
		}
		val, last, err := flagValue(args, i)
		if err != nil {
			fmt.Fprintf(stderr, "error: %v\n\n%s", err, mcpServeHelp)
			return 2
		}
		*dst, i = val, last+1
	}
	if transport != "stdio" && transport != "http" {
		fmt.Fprintf(stderr, "error: --transport must be stdio or http, got %q\n", transport)
		return 2
	}
	if !strings.HasPrefix(path, "/") {
		fmt.Fprintf(stderr, "error: --path must start with /, got %q\n", path)
		return 2
	}
	if strings.HasPrefix(path, "/.well-known/") {
		fmt.Fprintf(stderr, "error: --path must not be under /.well-known/ (the discovery documents are served there), got %q\n", path)
		return 2
	}
	surviveBrokenPipes()
	// Start-up order of docs/spec/orchestrator.md §1: the manifest, the
	// auth configuration, then the state directory. Webhook deliveries
	// arrive only on the HTTP listener.
	mopts := manifest.Options{NoWebhookSecrets: transport == "stdio"}
	m, ok := f.readManifest(mopts, stderr)
	if !ok {
		return 1
	}
	var authn *auth.Config
	if transport == "http" {
		var err error
		if authn, err = auth.FromEnv(os.Getenv); err != nil {
			fmt.Fprintf(stderr, "error: %v\n", err)
			return 1
		}
		defer authn.Close()
	}
	node, err := nodeOptions(os.Getenv)
	if err != nil {
		fmt.Fprintf(stderr, "error: %v\n", err)
		return 1
	}
	// Everything that can refuse the start comes before the node writes
	// its bindings to the shared event log, so a failed start leaves the
	// log as it was.
	reported := "stdio"
	var ln net.Listener
	if transport == "http" {
		if err := mcpserver.EndpointConflict(m, path); err != nil {
			fmt.Fprintf(stderr, "error: %v\n", err)
			return 1
		}
		if ln, err = net.Listen("tcp", bind); err != nil {
			fmt.Fprintf(stderr, "error: %v\n", err)
			return 1
		}
		defer ln.Close()
		reported = bind
	}
	ctx := context.Background()
	log, ok := f.openLog(ctx, stderr)
	if !ok {
		return 1
	}
	defer log.Close()
	srv, err := mcpserver.New(ctx, mcpserver.Options{ManifestPath: f.config, Manifest: mopts, StateDir: f.stateDir, Log: log, Version: version, Bind: reported, Stderr: stderr, Node: node})
	if err != nil {
		if !reportManifestError(stderr, f.config, err) {
			fmt.Fprintf(stderr, "error: %v\n", err)
		}
		return 1
	}
	stopWatch := make(chan struct{})
	watched := make(chan struct{})
	go func() { srv.Watch(stopWatch); close(watched) }()
	shutdown := func() {
		close(stopWatch)
		<-watched
		srv.Close()
	}
	signals := stopSignals()
	defer signal.Stop(signals)

	if transport == "stdio" {
		fmt.Fprintln(stderr, "[harn] MCP stdio server ready")
		// The calls in progress are answered before the process exits
		// (docs/orchestrator.md, Shutdown).
		err = serveStdioUntilSignal(func() error { return srv.ServeStdio(stdin, stdout) }, signals, srv.Drain)
		shutdown()
		if err != nil {
			fmt.Fprintf(stderr, "error: %v\n", err)
			return 1
		}
		return 0
	}

	var authenticator protocol.Authenticator
	if authn.Mode() != "none" {
		authenticator = authn
	}
	hs := protocol.NewHTTPServer(srv.HTTPHandler(path, authenticator), protocol.HTTPServerOptions{})
	fmt.Fprintf(stderr, "[harn] MCP HTTP listener ready on http://%s%s\n", ln.Addr(), path)
	if abs, err := filepath.Abs(f.stateDir); err == nil {
		fmt.Fprintf(stderr, "[harn] state directory %s, event log %s, auth %s\n", abs, log.Backend(), authn.Mode())
	}
	err = serveUntilSignal(hs, ln, signals, srv.DrainTimeout()+shutdownSettle, srv.Drain)
	shutdown()
	if err != nil {
		fmt.Fprintf(stderr, "error: %v\n", err)
		return 1
	}
	return 0
}
