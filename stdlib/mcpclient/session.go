package mcpclient

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/harnlang/harn/internal/jsonv"
)

// A session is one connected server: the transport plus what the
// handshake negotiated. Every method is safe for concurrent use (tasks
// may share a client).

// Protocol versions: the released ones a client negotiates through
// initialize (newest first), and the session-free version of Harn's own
// servers, which has no handshake (server/discover describes the server
// and every request carries the version in _meta).
const (
	latestReleased = "2025-11-25"
	sessionFreeV   = "2026-07-28"
)

var releasedVersions = []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}

// _meta keys of the session-free profile (docs/spec/mcp-projection.md §3.2).
const (
	metaVersion    = "io.modelcontextprotocol/protocolVersion"
	metaClientInfo = "io.modelcontextprotocol/clientInfo"
	metaClientCaps = "io.modelcontextprotocol/clientCapabilities"
	metaServerInfo = "io.modelcontextprotocol/serverInfo"
)

// maxPages bounds the pages one list call follows.
const maxPages = 10000

type session struct {
	t       transport
	timeout time.Duration // per request; 0 = none

	clientName, clientVersion string
	in                        *inputs // what the client answers

	// Set by the handshake.
	version      string
	sessionFree  bool
	serverInfo   *jsonv.Object
	capabilities *jsonv.Object
	instructions string

	tools toolsCache

	mu     sync.Mutex
	closed bool
}

// clientVersion is the version clientInfo reports: the module's, when
// the binary was built from a tagged version.
func defaultClientVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return strings.TrimPrefix(bi.Main.Version, "v")
	}
	return "0.0.0-dev"
}

// clientCapabilities declares what the client can answer: roots when
// the config gives some, elicitation and sampling when it has handlers.
func (s *session) clientCapabilities() *jsonv.Object { return s.in.capabilities() }

func (s *session) clientInfo() *jsonv.Object {
	o := jsonv.NewObject(2)
	o.Set("name", s.clientName)
	o.Set("version", s.clientVersion)
	return o
}

// handshake negotiates the protocol: initialize with want (a released
// version), or server/discover when want is the session-free version or
// the server refuses initialize in favour of it (Harn's HTTP servers do).
func (s *session) handshake(ctx context.Context, want string) error {
	if want == sessionFreeV {
		return s.discover(ctx)
	}
	p := jsonv.NewObject(3)
	p.Set("protocolVersion", want)
	p.Set("capabilities", s.clientCapabilities())
	p.Set("clientInfo", s.clientInfo())
	res, err := s.request(ctx, "initialize", p, "")
	if err != nil {
		if re, ok := err.(*rpcError); ok && re.Code == -32022 && supports(re.Data, sessionFreeV) {
			return s.discover(ctx)
		}
		return err
	}
	o, ok := res.(*jsonv.Object)
	if !ok {
		return fmt.Errorf("the answer to initialize is not an object")
	}
	v, _ := jsonv.Member[string](o, "protocolVersion")
	if !slices.Contains(releasedVersions, v) {
		return fmt.Errorf("the server chose protocol version %q, which this client does not speak (it speaks %s)", v, strings.Join(releasedVersions, ", "))
	}
	s.version = v
	s.serverInfo, _ = jsonv.Member[*jsonv.Object](o, "serverInfo")
	s.capabilities, _ = jsonv.Member[*jsonv.Object](o, "capabilities")
	s.instructions, _ = jsonv.Member[string](o, "instructions")
	if ht, ok := s.t.(*httpTransport); ok {
		ht.setProfile(v, false)
	}
	return s.t.notify(ctx, "notifications/initialized", nil)
}

// reinitialize starts a new HTTP session after the server ended the
// previous one, on the version already negotiated; what the first
// handshake learned about the server is kept.
func (s *session) reinitialize(ctx context.Context) error {
	p := jsonv.NewObject(3)
	p.Set("protocolVersion", s.version)
	p.Set("capabilities", s.clientCapabilities())
	p.Set("clientInfo", s.clientInfo())
	res, err := s.t.call(ctx, "initialize", p, "")
	if err != nil {
		return err
	}
	o, _ := res.(*jsonv.Object)
	if v, _ := jsonv.Member[string](o, "protocolVersion"); v != s.version {
		return fmt.Errorf("the server chose protocol version %q, not %q as before", v, s.version)
	}
	return s.t.notify(ctx, "notifications/initialized", nil)
}

// supports reports whether an unsupported-version error's data lists v.
func supports(data any, v string) bool {
	o, ok := data.(*jsonv.Object)
	if !ok {
		return false
	}
	list, _ := jsonv.Member[[]any](o, "supported")
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

// discover starts a session-free session: server/discover says what the
// server is; there is nothing to initialize.
func (s *session) discover(ctx context.Context) error {
	s.sessionFree = true
	s.version = sessionFreeV
	if ht, ok := s.t.(*httpTransport); ok {
		ht.setProfile(sessionFreeV, true)
	}
	res, err := s.request(ctx, "server/discover", nil, "")
	if err != nil {
		return err
	}
	o, ok := res.(*jsonv.Object)
	if !ok {
		return fmt.Errorf("the answer to server/discover is not an object")
	}
	if vs, ok := jsonv.Member[[]any](o, "supportedVersions"); ok && !slices.Contains(vs, any(sessionFreeV)) {
		return fmt.Errorf("the server does not support protocol version %s", sessionFreeV)
	}
	s.capabilities, _ = jsonv.Member[*jsonv.Object](o, "capabilities")
	s.instructions, _ = jsonv.Member[string](o, "instructions")
	if meta, ok := jsonv.Member[*jsonv.Object](o, "_meta"); ok {
		s.serverInfo, _ = jsonv.Member[*jsonv.Object](meta, metaServerInfo)
	}
	return nil
}

// request sends one request, adding the session-free _meta when that
// profile is in use, bounded by the session's timeout.
func (s *session) request(ctx context.Context, method string, params *jsonv.Object, name string) (any, error) {
	return s.requestWithin(ctx, method, params, name, s.timeout)
}

// requestWithin is request with its own time limit (0: none).
func (s *session) requestWithin(ctx context.Context, method string, params *jsonv.Object, name string, timeout time.Duration) (any, error) {
	s.mu.Lock()
	closed := s.closed
	s.mu.Unlock()
	if closed {
		return nil, errClosed
	}
	if s.sessionFree {
		if params == nil {
			params = jsonv.NewObject(1)
		} else {
			params = params.Copy()
		}
		meta := jsonv.NewObject(3)
		if m, ok := jsonv.Member[*jsonv.Object](params, "_meta"); ok {
			meta = m.Copy()
		}
		meta.Set(metaVersion, sessionFreeV)
		meta.Set(metaClientInfo, s.clientInfo())
		meta.Set(metaClientCaps, s.clientCapabilities())
		params.Set("_meta", meta)
	}
	cctx, cancel := callCtx(ctx, timeout)
	defer cancel()
	res, err := s.t.call(cctx, method, params, name)
	if errors.Is(err, errSessionExpired) && method != "initialize" {
		if rerr := s.reinitialize(cctx); rerr != nil {
			err = fmt.Errorf("%v, and starting a new one failed: %w", err, rerr)
		} else {
			res, err = s.t.call(cctx, method, params, name)
		}
	}
	if err != nil && cctx.Err() != nil && ctx.Err() == nil {
		return nil, ctxError(cctx, method, timeout)
	}
	return res, err
}

// list calls a paginated list method and gathers key's items from every
// page, following nextCursor.
func (s *session) list(ctx context.Context, method, key string) ([]any, error) {
	var out []any
	var cursor string
	seen := map[string]bool{}
	for page := 0; ; page++ {
		if page == maxPages {
			return nil, fmt.Errorf("%s: more than %d pages", method, maxPages)
		}
		var p *jsonv.Object
		if cursor != "" {
			p = jsonv.NewObject(1)
			p.Set("cursor", cursor)
		}
		res, err := s.request(ctx, method, p, "")
		if err != nil {
			return nil, err
		}
		o, ok := res.(*jsonv.Object)
		if !ok {
			return nil, fmt.Errorf("the answer to %s is not an object", method)
		}
		items, ok := jsonv.Member[[]any](o, key)
		if !ok {
			if v, has := o.Get(key); has && v != nil {
				return nil, fmt.Errorf("the answer to %s has no %s list", method, key)
			}
		}
		out = append(out, items...)
		next, _ := jsonv.Member[string](o, "nextCursor")
		if next == "" {
			return out, nil
		}
		if seen[next] {
			return nil, fmt.Errorf("the server repeated the cursor %q of %s", next, method)
		}
		seen[next] = true
		cursor = next
	}
}

// close ends the session once.
func (s *session) close() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	s.mu.Unlock()
	s.t.close()
}

func (s *session) isClosed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}

// serverName is serverInfo.name ("" when the server gave none).
func (s *session) serverName() string {
	if s.serverInfo == nil {
		return ""
	}
	n, _ := jsonv.Member[string](s.serverInfo, "name")
	return n
}
