package mcpclient

import (
	"context"
	"sort"
	"sync"

	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/vm"
)

// The registry of named servers (one per run): mcp_ensure_active
// connects a server by name on first use and counts references,
// mcp_release drops one and disconnects with the last, and
// mcp_registry_status lists every name the run configured.

type registry struct {
	mu      sync.Mutex
	entries map[string]*entry
	// manifest: the [[mcp]] tables of harn.toml were read (once per run,
	// when a name without a config or the status is first asked for);
	// declared are their names, sorted.
	manifest bool
	declared []string
}

// loadManifest adds the servers harn.toml declares to the entries, once;
// names the script configured already keep their config. r.mu is held.
func (r *registry) loadManifest(th *vm.Thread) error {
	if r.manifest {
		return nil
	}
	configs, errs, err := manifestServers(th)
	if err != nil {
		return err
	}
	r.manifest = true
	for name := range configs {
		r.declared = append(r.declared, name)
	}
	for name := range errs {
		r.declared = append(r.declared, name)
	}
	sort.Strings(r.declared)
	for name, c := range configs {
		if r.entries[name] == nil {
			r.entries[name] = &entry{cfg: c}
		}
	}
	for name, cerr := range errs {
		if r.entries[name] == nil {
			r.entries[name] = &entry{cfgErr: cerr}
		}
	}
	return nil
}

type entry struct {
	cfg       *config
	cfgErr    error   // harn.toml declares the name with an invalid config
	client    *Client // nil while inactive
	refs      int
	lastError string
	// connecting is closed when a connection attempt in progress ends
	// (tasks asking for the same name wait for it).
	connecting chan struct{}
}

type registryKey struct{}

func registryOf(th *vm.Thread) *registry {
	var made *registry
	r := th.VM().Local(registryKey{}, func() any {
		made = &registry{entries: map[string]*entry{}}
		return made
	}).(*registry)
	if made != nil {
		th.VM().OnClose(made.closeAll)
	}
	return r
}

// closeAll disconnects every active server (the run is over).
func (r *registry) closeAll() {
	r.mu.Lock()
	var clients []*Client
	for _, e := range r.entries {
		if e.client != nil {
			clients = append(clients, e.client)
			e.client, e.refs = nil, 0
		}
	}
	r.mu.Unlock()
	closeClients(clients)
}

// closeClients closes clients at once: each stdio server gets the same
// grace period to exit.
func closeClients(clients []*Client) {
	var wg sync.WaitGroup
	for _, c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.s.close()
		}()
	}
	wg.Wait()
}

// settle records how the connection attempt of e (marked by done) ended
// and counts the caller's reference when it connected. r.mu is held.
func (e *entry) settle(name, builtin string, done chan struct{}, c *Client, err error) {
	if e.connecting == done {
		e.connecting = nil
	}
	close(done)
	if err != nil {
		e.lastError = errText(failure(builtin, nil, err))
		return
	}
	c.name, c.registry = name, name
	e.client, e.refs, e.lastError = c, 1, ""
}

// startConnecting marks e as connecting with its config, after dropping
// a client whose server exited or was disconnected. r.mu is held.
func (e *entry) startConnecting() (*config, chan struct{}) {
	if e.client != nil {
		dead := e.client
		e.client, e.refs = nil, 0
		go dead.s.close()
	}
	done := make(chan struct{})
	e.connecting = done
	return e.cfg, done
}

// prepared is what connecting with a config needs from the script's
// thread: the server's directory, the answers to its requests, and the
// egress policy's verdict.
type prepared struct {
	dir    string
	in     *inputs
	refuse error
}

func prepare(th *vm.Thread, conf *config) prepared {
	return prepared{dir: conf.dir(th), in: conf.inputs(th), refuse: conf.checkEgress(th)}
}

func (p prepared) connect(ctx context.Context, conf *config) (*Client, error) {
	if p.refuse != nil {
		return nil, p.refuse
	}
	return connect(ctx, conf, p.dir, p.in)
}

// forget makes c's entry inactive (c was disconnected directly).
func (r *registry) forget(c *Client) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if e := r.entries[c.registry]; e != nil && e.client == c {
		e.client, e.refs = nil, 0
	}
}

func mcpEnsureActive(th *vm.Thread, a vm.Args) (vm.Value, error) {
	const builtin = "mcp_ensure_active"
	name, err := textArg(builtin, "server name", a, 0)
	if err != nil {
		return vm.Value{}, err
	}
	var cfg *config
	if a.Given(1) && !a.At(1).IsNil() {
		if _, ok := a.Dict(1); !ok {
			return vm.Value{}, argErr(builtin, "the config must be a dict {command, args?, env?, cwd?} or {url, headers?}, got %s", a.At(1).Type())
		}
		c, err := parseConfig(builtin, a[1:])
		if err != nil {
			return vm.Value{}, err
		}
		c.name = name
		cfg = c
	}
	r := registryOf(th)
	for {
		r.mu.Lock()
		e := r.entries[name]
		if e == nil && cfg == nil {
			if err := r.loadManifest(th); err != nil {
				r.mu.Unlock()
				return vm.Value{}, vm.Throwf("%s: %v", builtin, err)
			}
			e = r.entries[name]
		}
		if e == nil {
			if cfg == nil {
				r.mu.Unlock()
				return vm.Value{}, vm.Throwf("%s: no configuration for the MCP server %q; pass one, mcp_ensure_active(%q, {command: ...}), or declare it in harn.toml ([[mcp]] name = %q)", builtin, name, name, name)
			}
			e = &entry{}
			r.entries[name] = e
		}
		if cfg != nil {
			// A new config applies from the next connection on.
			e.cfg, e.cfgErr = cfg, nil
		}
		if e.cfg == nil {
			err := e.cfgErr
			r.mu.Unlock()
			return vm.Value{}, vm.Throwf("%s: %s", builtin, configErrText(err))
		}
		if e.connecting != nil {
			wait := e.connecting
			r.mu.Unlock()
			if err := blocking(th, func(ctx context.Context) error {
				select {
				case <-wait:
				case <-ctx.Done():
				}
				return nil
			}); err != nil {
				return vm.Value{}, err
			}
			continue
		}
		if e.client != nil && e.client.alive() {
			e.refs++
			c := e.client
			r.mu.Unlock()
			return vm.Of(c), nil
		}
		// Not connected, or its process died or it was disconnected.
		conf, done := e.startConnecting()
		r.mu.Unlock()

		p := prepare(th, conf)
		var c *Client
		err := blocking(th, func(ctx context.Context) error {
			var cerr error
			c, cerr = p.connect(ctx, conf)
			return cerr
		})
		r.mu.Lock()
		e.settle(name, builtin, done, c, err)
		r.mu.Unlock()
		if err != nil {
			return vm.Value{}, failure(builtin, nil, err)
		}
		return vm.Of(c), nil
	}
}

func mcpRelease(th *vm.Thread, a vm.Args) (vm.Value, error) {
	const builtin = "mcp_release"
	name, ok := a.Str(0)
	if !ok {
		if c, isClient := a.At(0).Object().(*Client); isClient && c.registry != "" {
			name = c.registry
		} else {
			return vm.Value{}, argErr(builtin, "expected the name of a server from mcp_ensure_active, got %s", a.At(0).Type())
		}
	}
	r := registryOf(th)
	r.mu.Lock()
	e := r.entries[name]
	if e == nil || e.client == nil || e.refs == 0 {
		r.mu.Unlock()
		return vm.Value{}, vm.Throwf("%s: the MCP server %q is not active", builtin, name)
	}
	e.refs--
	left := e.refs
	var closing *Client
	if left == 0 {
		closing, e.client = e.client, nil
	}
	r.mu.Unlock()
	closeOff(th, closing)
	return lib.IntOf(left), nil
}

func mcpRegistryStatus(th *vm.Thread, a vm.Args) (vm.Value, error) {
	r := registryOf(th)
	r.mu.Lock()
	if err := r.loadManifest(th); err != nil {
		r.mu.Unlock()
		return vm.Value{}, vm.Throwf("mcp_registry_status: %v", err)
	}
	names := make([]string, 0, len(r.entries))
	for n := range r.entries {
		names = append(names, n)
	}
	sort.Strings(names)
	items := r.statuses(names)
	r.mu.Unlock()
	return vm.Of(lib.List(items)), nil
}

// statuses are the status dicts of names (mcp_registry_status). r.mu is
// held.
func (r *registry) statuses(names []string) []vm.Value {
	items := make([]vm.Value, 0, len(names))
	for _, n := range names {
		e := r.entries[n]
		active := e.client != nil && e.client.alive()
		transport := vm.Str("stdio")
		switch {
		case e.cfg == nil:
			transport = vm.Nil
		case e.cfg.url != "":
			transport = vm.Str("http")
		}
		serverName := vm.Nil
		if e.client != nil {
			if s := e.client.s.serverName(); s != "" {
				serverName = vm.Str(s)
			}
		}
		lastErr := vm.Nil
		if e.lastError != "" {
			lastErr = vm.Str(e.lastError)
		} else if e.cfg == nil && e.cfgErr != nil {
			lastErr = vm.Str(configErrText(e.cfgErr))
		} else if e.client != nil && !active {
			if st, ok := e.client.s.t.(*stdioTransport); ok {
				if err := st.endedErr(); err != nil {
					lastErr = vm.Str(err.Error())
				}
			}
		}
		refs := e.refs
		if !active {
			refs = 0
		}
		items = append(items, vm.Of(lib.DictOf(
			"name", vm.Str(n),
			"active", vm.BoolOf(active),
			"ref_count", lib.IntOf(refs),
			"transport", transport,
			"server_name", serverName,
			"last_error", lastErr,
		)))
	}
	return items
}

// configErrText is the message of an invalid harn.toml config.
func configErrText(err error) string {
	if ve, ok := err.(*vm.Error); ok {
		return ve.Msg
	}
	return err.Error()
}
