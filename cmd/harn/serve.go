//go:build !harnlite

package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"

	"github.com/harnlang/harn/adapter/mcp"
	"github.com/harnlang/harn/internal/jsonv"
	"github.com/harnlang/harn/mcp/protocol"
	"github.com/harnlang/harn/tool/exports"
	"github.com/harnlang/harn/tool/load"
)

// `harn serve mcp`: the MCP projection (docs/spec/mcp-projection.md).

const serveHelp = `Usage: harn serve mcp [--surface script|exports|auto] [--watch]
                      [--transport stdio|http] [--bind ADDR] [--path PATH]
                      [--api-key KEY[,KEY...]] [--hmac-secret SECRET]
                      [--tls plain|edge|self-signed-dev|pem] [--cert PEM]
                      [--key PEM] [--card PATH_OR_JSON] FILE

Serve FILE's tools, resources and prompts to MCP clients. The script surface
runs FILE once and serves the ToolRegistry it publishes with
harness.tools.mcp_tools(...); only tools whose governance includes the "mcp"
audience are listed or callable.

  --surface    script, exports or auto (default auto: exports when the module
               has public functions, else script)
  --watch      reload FILE's directory on changes (stdio, script surface)
  --transport  stdio (default: newline-delimited JSON-RPC on stdin/stdout) or
               http (session-free Streamable HTTP, 2026-07-28 clients)
  --bind       HTTP listen address (default 127.0.0.1:8765,
               env HARN_SERVE_MCP_BIND)
  --path       HTTP endpoint path (default /mcp)
  --api-key    HTTP API keys (env HARN_SERVE_API_KEY), sent as
               Authorization: Bearer KEY or X-API-Key: KEY
  --hmac-secret HTTP request signing (env HARN_SERVE_HMAC_SECRET): requests
               carry Authorization: HMAC-SHA256 timestamp=UNIX,signature=HEX,
               HEX the HMAC-SHA256 of "UNIX.BODY", UNIX within 5 minutes of
               the server's clock; with --api-key too, either credential passes
  --tls        HTTP listener TLS: plain (default: HTTP), edge (HTTP behind a
               proxy that terminates TLS), self-signed-dev (HTTPS with a
               certificate for localhost made at start-up; development only)
               or pem (HTTPS with --cert and --key)
  --cert, --key PEM certificate chain and private key, a file or the PEM text
               (env HARN_SERVE_CERT, HARN_SERVE_KEY); both imply --tls pem
  --card       Server Card JSON (file or inline), served as serverInfo.card and
               the resource well-known://mcp-card

Stdout carries protocol messages only; the script's output and the server's
diagnostics go to stderr. SIGINT or SIGTERM stops the server: calls in
progress get 5 s to finish and are answered, later calls are refused with
"server is shutting down". Exit status: 0 when the client closes the
connection or on SIGINT/SIGTERM, 1 when FILE fails to load or to prepare
or the --cert/--key pair cannot be read or used, 2 on a usage error.
`

// watchRefusal is the error for a --watch serve cannot honour: always
// the message of docs/spec/mcp-projection.md §1, and when auto picked
// exports, why, since the user asked for no surface at all.
func watchRefusal(f *serveFlags, surface string) string {
	const msg = "error: --watch requires the stdio transport and the script surface"
	if f.transport != "http" && f.surface == exports.SurfaceAuto && surface == exports.SurfaceExports {
		return fmt.Sprintf("%s: --surface auto resolved to exports because %s has public functions. Use --surface script to serve the registry the script publishes.", msg, f.file)
	}
	return msg
}

// serveSurfaces build the surface named by --surface once auto is
// resolved; harnVersion is the fallback server version.
var serveSurfaces = map[string]func(path string, stderr io.Writer, harnVersion string) (*mcp.Surface, error){
	exports.SurfaceScript:  mcp.LoadScript,
	exports.SurfaceExports: mcp.LoadExports,
}

type serveFlags struct {
	surface, transport, bind, path, card, hmac string
	apiKeys                                    []string
	apiKeyEnv                                  string // HARN_SERVE_API_KEY, unparsed
	watch                                      bool
	file                                       string
	// tls is the listener's TLS mode (serveTLSModes), resolved; cert and
	// key are the PEM certificate and key of mode pem (a file path or
	// the PEM text).
	tls, cert, key string
}

func cmdServe(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] != "mcp" {
		if len(args) > 0 && (args[0] == "--help" || args[0] == "-h") {
			fmt.Fprint(stdout, serveHelp)
			return 0
		}
		if len(args) > 0 {
			msg := unknownCommand("serve subcommand", args[0], []string{"mcp"})
			if strings.HasPrefix(args[0], "-") {
				msg = unknownOption(args[0], "--help")
			}
			fmt.Fprintf(stderr, "error: %s\n\n", msg)
		}
		fmt.Fprint(stderr, serveHelp)
		return 2
	}
	f, code := parseServeFlags(args[1:], stdout, stderr)
	if f == nil {
		return code
	}
	surviveBrokenPipes()
	var card any
	if f.card != "" {
		text := f.card
		if !strings.HasPrefix(strings.TrimSpace(text), "{") {
			b, err := os.ReadFile(text)
			if err != nil {
				fmt.Fprintf(stderr, "error: --card: %v\n", err)
				return 1
			}
			text = string(b)
		}
		v, err := jsonv.Parse([]byte(text))
		if err != nil {
			fmt.Fprintf(stderr, "error: --card: invalid JSON: %v\n", err)
			return 1
		}
		card = v
	}
	cert, err := loadServeTLS(f)
	if err != nil {
		fmt.Fprintf(stderr, "error: --tls %s: %v\n", f.tls, err)
		return 1
	}
	surface, skipsMain := exports.Choose(f.surface, f.file)
	if f.watch && (f.transport == "http" || surface == exports.SurfaceExports) {
		fmt.Fprintln(stderr, watchRefusal(f, surface))
		return 2
	}
	if skipsMain {
		fmt.Fprintln(stderr, exports.AutoNote(f.file))
	}
	build := func() (*mcp.Surface, error) { return serveSurfaces[surface](f.file, stderr, version) }
	var since mcp.Snapshot
	if f.watch {
		since = mcp.TakeSnapshot(filepath.Dir(f.file)) // before the build: an edit during loading is a change
	}
	stopLoading := exitOnSignal(stderr)
	sf, err := build()
	stopLoading()
	if err != nil {
		if le, ok := err.(*load.Error); ok {
			fmt.Fprint(stderr, le.Render())
			return le.Status
		}
		fmt.Fprintf(stderr, "error: %v\n", err)
		return 1
	}
	srv := mcp.NewServer(sf, mcp.Options{Watch: f.watch, Card: card, Stderr: stderr})
	signals := stopSignals()
	defer signal.Stop(signals)
	fmt.Fprintln(stderr, sf.StartupLine(f.watch))
	if f.transport == "http" {
		return serveHTTP(srv, f, cert, signals, stderr)
	}
	if f.watch {
		stop := make(chan struct{})
		defer close(stop)
		go srv.Watch(filepath.Dir(f.file), since, build, stop)
	}
	err = serveStdioUntilSignal(func() error { return srv.Serve(stdin, stdout) }, signals, func() { drainServe(srv, stderr) })
	if err != nil {
		fmt.Fprintf(stderr, "error: %v\n", err)
		return 1
	}
	return 0
}

// drainServe answers the calls in progress before `harn serve mcp`
// stops (docs/mcp.md, Stopping): from now on calls are refused with
// "server is shutting down"; those running or queued get shutdownGrace
// to finish, and those still running then are interrupted and answered
// with that error.
func drainServe(srv *mcp.Server, stderr io.Writer) {
	fmt.Fprintf(stderr, "[harn] serve mcp: stopping; calls in progress get %s to finish\n", shutdownGrace)
	ctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	if srv.Drain(ctx) != nil {
		fmt.Fprintf(stderr, "[harn] serve mcp: calls still running after %s answered: server is shutting down\n", shutdownGrace)
	}
}

func parseServeFlags(args []string, stdout, stderr io.Writer) (*serveFlags, int) {
	f := &serveFlags{surface: "auto", transport: "stdio", path: "/mcp"}
	f.bind = os.Getenv("HARN_SERVE_MCP_BIND")
	if f.bind == "" {
		f.bind = "127.0.0.1:8765"
	}
	// HARN_SERVE_API_KEY is parsed only if --api-key does not replace
	// it, and only for the HTTP transport (serveHTTP).
	f.apiKeyEnv = os.Getenv("HARN_SERVE_API_KEY")
	f.hmac = os.Getenv("HARN_SERVE_HMAC_SECRET")
	usage := func(format string, a ...any) (*serveFlags, int) {
		fmt.Fprintf(stderr, "error: "+format+"\n\n%s", append(a, serveHelp)...)
		return nil, 2
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, _, _ := strings.Cut(a, "=")
		switch name {
		case "--help", "-h":
			fmt.Fprint(stdout, serveHelp)
			return nil, 0
		case "--watch":
			f.watch = true
		case "--surface", "--transport", "--bind", "--path", "--api-key", "--hmac-secret", "--card", "--tls", "--cert", "--key":
			v, last, err := flagValue(args, i)
			if err != nil {
				return usage("%v", err)
			}
			i = last
			switch name {
			case "--surface":
				if !slices.Contains(schemaSurfaces, v) {
					return usage("unsupported --surface %q (available: %s)", v, strings.Join(schemaSurfaces, ", "))
				}
				f.surface = v
			case "--transport":
				if v != "stdio" && v != "http" {
					return usage("--transport must be stdio or http")
				}
				f.transport = v
			case "--bind":
				f.bind = v
			case "--path":
				f.path = v
			case "--api-key":
				keys, err := protocol.ParseAPIKeys("--api-key", v)
				if err != nil {
					return usage("%v", err)
				}
				f.apiKeys, f.apiKeyEnv = keys, ""
			case "--hmac-secret":
				if v == "" {
					return usage("--hmac-secret must not be empty")
				}
				f.hmac = v
			case "--card":
				f.card = v
			case "--tls":
				if !slices.Contains(serveTLSModes, v) {
					return usage("--tls must be plain, edge, self-signed-dev or pem")
				}
				f.tls = v
			case "--cert":
				f.cert = v
			case "--key":
				f.key = v
			}
		default:
			if strings.HasPrefix(a, "-") && a != "-" {
				return usage("%s", unknownOption(a, "--surface", "--watch", "--transport", "--bind", "--path", "--api-key", "--hmac-secret", "--card", "--tls", "--cert", "--key", "--help"))
			}
			if f.file != "" {
				return usage("unexpected argument %q", a)
			}
			f.file = a
		}
	}
	if f.file == "" {
		return usage("missing FILE")
	}
	if msg := resolveServeTLS(f); msg != "" {
		return usage("%s", msg)
	}
	return f, 0
}
