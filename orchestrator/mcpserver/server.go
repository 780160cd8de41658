// Package mcpserver is `harn mcp serve`: the orchestrator control plane
// as an MCP server (docs/spec/orchestrator.md §1, §5–§12). It is a
// protocol.Provider — the wire rules (lifecycles, envelopes, paging,
// tasks, progress, the session-free HTTP transport) are package
// mcp/protocol's — over an orchestrator node: the nine tools and the
// harn::secret_scan alias, the harn:// resources and their templates,
// the project's .harn.prompt files, completion, observability (a stderr
// line and an action-graph record per tool call) and the watcher that
// reloads the project and sends list-changed notifications. The HTTP
// listener also receives the webhook deliveries of the manifest.
package mcpserver

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/harnlang/harn/eventlog"
	"github.com/harnlang/harn/internal/jsonv"
	"github.com/harnlang/harn/mcp/protocol"
	"github.com/harnlang/harn/mcp/watch"
	"github.com/harnlang/harn/orchestrator"
	"github.com/harnlang/harn/orchestrator/manifest"
)

// Identity of the server (docs/spec/orchestrator.md §1).
const (
	ServerName   = "harn-orchestrator"
	ServerTitle  = "Harn Orchestrator MCP"
	Instructions = "Expose Harn trigger and orchestrator controls over MCP."
)

// Options configures a Server.
type Options struct {
	// ManifestPath is the project manifest; its directory is the root.
	ManifestPath string
	// Manifest says how it is loaded, at start and on every reload (a
	// stdio server needs no webhook secrets).
	Manifest manifest.Options
	// StateDir holds the SQLite log and the state snapshot.
	StateDir string
	// Log is the event log (the caller opens and closes it).
	Log eventlog.Log
	// Version is the Harn version reported in serverInfo.
	Version string
	// Bind is reported in the state snapshot ("stdio" or host:port).
	Bind string
	// Stderr receives the per-call log lines and handler output.
	Stderr io.Writer
	// PageSize overrides HARN_MCP_LIST_PAGE_SIZE (0: environment).
	PageSize int
	// Node tunes the orchestrator node (Workers, LeaseTTL, Poll, Owner).
	Node orchestrator.Options
}

// Server is one `harn mcp serve` process.
type Server struct {
	opts  Options
	orch  *orchestrator.Orchestrator
	proto *protocol.Server
	errMu sync.Mutex
	// promptErrs are the prompt files that failed to parse, by path, and
	// the problem last reported for each.
	promptMu   sync.Mutex
	promptErrs map[string]string
	root       string
	// manifest is opts.ManifestPath made absolute, as the watcher sees
	// it; it may have any name.
	manifest string
	rec      *recorder
	trust    trustCache
	// endpoint is the HTTP MCP path ("" on stdio): no webhook may take it.
	endpoint atomic.Value // string
	// baseline is the project as New found it, where Watch starts.
	baseline watch.Snapshot
}

// New loads the manifest and its handlers, opens the orchestrator node
// on the log and starts its workers and triggers. A bad manifest is an
// error naming the file, trigger and field.
func New(ctx context.Context, opts Options) (*Server, error) {
	if opts.Stderr == nil {
		opts.Stderr = os.Stderr
	}
	// The watcher's first look predates the load (the root is the
	// manifest's directory, as manifest.Parse makes it), so a file
	// edited while the server starts is a change, not its baseline.
	root, err := filepath.Abs(filepath.Dir(opts.ManifestPath))
	if err != nil {
		root = filepath.Dir(opts.ManifestPath)
	}
	baseline := (&Server{root: root, manifest: filepath.Join(root, filepath.Base(opts.ManifestPath))}).snapshot()
	m, err := manifest.LoadWith(opts.ManifestPath, opts.Manifest)
	if err != nil {
		return nil, err
	}
	node := opts.Node
	node.Log, node.Manifest, node.StateDir, node.Bind, node.Stderr = opts.Log, m, opts.StateDir, opts.Bind, opts.Stderr
	o, err := orchestrator.New(ctx, node)
	if err != nil {
		return nil, err
	}
	s := &Server{opts: opts, orch: o, root: m.Root, manifest: filepath.Join(m.Root, filepath.Base(opts.ManifestPath)), baseline: baseline}
	s.rec = newRecorder(opts.Log, s.writeStderr, o.Appended, func(err error) { s.logf("[harn] mcp: recording a tool call: %v", err) })
	s.proto = protocol.NewServer(s, protocol.Options{PageSize: opts.PageSize, Parallel: true})
	o.Start()
	return s, nil
}

// Orchestrator is the node the server controls.
func (s *Server) Orchestrator() *orchestrator.Orchestrator { return s.orch }

// Protocol is the MCP protocol server.
func (s *Server) Protocol() *protocol.Server { return s.proto }

// ServeStdio serves one stdio connection until r ends.
func (s *Server) ServeStdio(r io.Reader, w io.Writer) error { return s.proto.Serve(r, w) }

// HTTPHandler is the HTTP listener's handler: the MCP endpoint at path
// and the well-known documents (package protocol), and the webhook
// deliveries of the manifest at their paths. Unsigned webhook bindings
// require the same credentials as MCP requests when auth is set (an
// HMAC-signed delivery signs its body as an MCP request does), and
// every delivery the same loopback Origin, when it has one.
func (s *Server) HTTPHandler(path string, auth protocol.Authenticator) http.Handler {
	s.endpoint.Store(path)
	mcp := s.proto.HTTPHandler(protocol.HTTPOptions{Path: path, Auth: auth,
		Discovery: &protocol.Discovery{Name: ServerName, Title: ServerTitle, Version: s.opts.Version}})
	s.orch.ServingWebhooks()
	var unsigned func(http.ResponseWriter, *http.Request, []byte) bool
	if auth != nil {
		unsigned = func(w http.ResponseWriter, r *http.Request, body []byte) bool {
			endpoint := protocol.PublicEndpoint(r, path)
			id, ok := auth.Authenticate(w, r, endpoint)
			if ba, signs := auth.(protocol.BodyAuthenticator); ok && signs {
				return ba.AuthenticateBody(w, r, endpoint, id, body)
			}
			return ok
		}
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == path || strings.HasPrefix(r.URL.Path, "/.well-known/") {
			mcp.ServeHTTP(w, r)
			return
		}
		// Webhook senders are servers; a browser page must not post
		// deliveries through the user's loopback listener either.
		if o := r.Header.Get("Origin"); o != "" && !protocol.LocalOrigin(o) {
			w.WriteHeader(http.StatusForbidden)
			return
		}
		if s.orch.ServeWebhook(w, r, unsigned) {
			return
		}
		http.NotFound(w, r)
	})
}

// EndpointConflict is the error of a manifest whose webhook takes the
// MCP endpoint's path, where it could never receive a delivery; nil
// otherwise. `harn mcp serve` checks it at start, a reload on every
// manifest change.
func EndpointConflict(m *manifest.Manifest, path string) error {
	for _, t := range m.Triggers {
		if t.Webhook != nil && t.Webhook.Path == path {
			return manifest.Problem{File: m.Path, Line: t.Line, Index: t.Index, ID: t.ID, Field: "webhook.path",
				Msg: fmt.Sprintf("%s is the MCP endpoint (--path); give one of them another path", path)}
		}
	}
	return nil
}

// Drain stops taking MCP calls and waits for the calls in progress (an
// inline harn.trigger.fire waits for its first attempt) to be answered,
// up to the node's DrainTimeout; the calls still running then are
// answered with a JSON-RPC error saying the server is shutting down.
// Requests received meanwhile get that error too. Call it before Close.
func (s *Server) Drain() {
	ctx, cancel := context.WithTimeout(context.Background(), s.orch.DrainTimeout())
	defer cancel()
	if s.proto.Drain(ctx) != nil {
		s.logf("[harn] mcp: calls still running after %s answered: server is shutting down", s.orch.DrainTimeout())
	}
}

// DrainTimeout bounds Drain (and Close's wait for attempts).
func (s *Server) DrainTimeout() time.Duration { return s.orch.DrainTimeout() }

// Close stops the node: triggers stop, attempts in flight finish and
// are recorded, the final snapshot is written.
func (s *Server) Close() error {
	err := s.orch.Close()
	s.rec.close()
	return err
}

// Flush waits until the observability records of the calls answered so
// far are in the log.
func (s *Server) Flush() { s.rec.Flush() }

// logf writes one operational line to stderr.
func (s *Server) logf(format string, args ...any) {
	s.writeStderr(fmt.Appendf(nil, format+"\n", args...))
}

// writeStderr writes whole lines to stderr, one writer at a time.
func (s *Server) writeStderr(lines []byte) {
	s.errMu.Lock()
	defer s.errMu.Unlock()
	s.opts.Stderr.Write(lines)
}

// ServerInfo is serverInfo (docs/spec/orchestrator.md §1).
func (s *Server) ServerInfo() *jsonv.Object {
	o := jsonv.NewObject(3)
	o.Set("name", ServerName)
	o.Set("title", ServerTitle)
	o.Set("version", s.opts.Version)
	return o
}

// Instructions are the server instructions.
func (s *Server) Instructions() string { return Instructions }

// Capabilities lists what the server supports; listChanged because the
// watcher sends list-changed notifications.
func (s *Server) Capabilities() *jsonv.Object {
	return mustObject(`{"tools":{"listChanged":true},"resources":{"listChanged":true},"prompts":{"listChanged":true},"extensions":{"io.modelcontextprotocol/tasks":{}},"completions":{}}`)
}

func mustObject(text string) *jsonv.Object {
	v, err := jsonv.Parse([]byte(text))
	if err != nil {
		panic(err)
	}
	return v.(*jsonv.Object)
}

// toJSONV converts a Go value to the ordered JSON form through
// encoding/json (struct field order is kept; map keys are sorted).
func toJSONV(v any) any {
	b, err := jsonMarshal(v)
	if err != nil {
		return fmt.Sprintf("<unencodable: %v>", err)
	}
	out, err := jsonv.Parse(b)
	if err != nil {
		return nil
	}
	return out
}
