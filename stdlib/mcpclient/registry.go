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
	// when a name without a config or the status is first asked for).
	manifest bool
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
	return th.VM().Local(registryKey{}, func() any { return &registry{entries: map[string]*entry{}} }).(*registry)
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
		if e.client != nil {
			// Its process died or it was disconnected: connect again.
			dead := e.client
			e.client, e.refs = nil, 0
			go dead.s.close()
		}
		conf := e.cfg
		done := make(chan struct{})
		e.connecting = done
		r.mu.Unlock()

		var c *Client
		dir := conf.dir(th)
		in := conf.inputs(th)
		err := conf.checkEgress(th)
		if err == nil {
			err = blocking(th, func(ctx context.Context) error {
				var cerr error
				c, cerr = connect(ctx, conf, dir, in)
				return cerr
			})
		}
		r.mu.Lock()
		e.connecting = nil
		close(done)
		if err != nil {
			e.lastError = vm.ToDisplay(failure(builtin, nil, err).(*vm.Error).Caught())
			r.mu.Unlock()
			return vm.Value{}, failure(builtin, nil, err)
		}
		c.name, c.registry = name, name
		e.client, e.refs, e.lastError = c, 1, ""
		r.mu.Unlock()
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
	if closing != nil {
		blocking(th, func(context.Context) error {
			closing.s.close()
			return nil
		})
	}
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
	r.mu.Unlock()
	return vm.Of(lib.List(items)), nil
}

// configErrText is the message of an invalid harn.toml config.
func configErrText(err error) string {
	if ve, ok := err.(*vm.Error); ok {
		return ve.Msg
	}
	return err.Error()
}
