package mcpclient

import (
	"context"
	"fmt"
	"sync"

	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/vm"
)

// mcp_bootstrap registers named servers in one call and connects, all at
// once, those whose config does not say lazy: true. Without an argument
// it bootstraps the servers harn.toml declares. A server it connects
// holds one reference, as if mcp_ensure_active had been called for it;
// a connection that fails is recorded in the server's last_error, not
// thrown, so one unreachable server does not stop the others.

// bootstrapConfigs reads mcp_bootstrap's argument: a list of config
// dicts with a name each, or a dict from name to config dict. Every
// config is checked before anything is connected.
func bootstrapConfigs(builtin string, v vm.Value) ([]string, map[string]*config, error) {
	configs := map[string]*config{}
	var names []string
	add := func(name string, d vm.Value) error {
		if _, dup := configs[name]; dup {
			return argErr(builtin, "the server %q is given twice", name)
		}
		if _, ok := d.AsDict(); !ok {
			return argErr(builtin, "the config of %q must be a dict {command, args?, env?, cwd?} or {url, headers?}, got %s", name, d.Type())
		}
		c, err := parseConfig(fmt.Sprintf("%s: server %q", builtin, name), vm.Args{d})
		if err != nil {
			return err
		}
		c.name = name
		configs[name] = c
		names = append(names, name)
		return nil
	}
	if l, ok := v.AsList(); ok {
		for i, it := range l.Items() {
			d, ok := it.AsDict()
			if !ok {
				return nil, nil, argErr(builtin, "servers[%d] must be a config dict with a name, got %s", i, it.Type())
			}
			nv, _ := d.Get("name")
			name, ok := nv.AsString()
			if !ok || name.Go() == "" {
				return nil, nil, argErr(builtin, "servers[%d] needs a name (a non-empty string)", i)
			}
			if err := add(name.Go(), it); err != nil {
				return nil, nil, err
			}
		}
		return names, configs, nil
	}
	d, ok := v.AsDict()
	if !ok {
		return nil, nil, argErr(builtin, "expected a list of config dicts with names, or a dict from name to config, got %s", v.Type())
	}
	for _, k := range d.Keys() {
		if k == "" {
			return nil, nil, argErr(builtin, "a server name must not be empty")
		}
		cv, _ := d.Get(k)
		if err := add(k, cv); err != nil {
			return nil, nil, err
		}
	}
	return names, configs, nil
}

func mcpBootstrap(th *vm.Thread, a vm.Args) (vm.Value, error) {
	const builtin = "mcp_bootstrap"
	var names []string
	var configs map[string]*config
	if a.Given(0) && !a.At(0).IsNil() {
		var err error
		if names, configs, err = bootstrapConfigs(builtin, a.At(0)); err != nil {
			return vm.Value{}, err
		}
	}
	r := registryOf(th)
	r.mu.Lock()
	if configs == nil {
		if err := r.loadManifest(th); err != nil {
			r.mu.Unlock()
			return vm.Value{}, vm.Throwf("%s: %v", builtin, err)
		}
		names = r.declared
	}
	type job struct {
		name string
		e    *entry
		conf *config
		done chan struct{}
		p    prepared
		c    *Client
		err  error
	}
	var jobs []*job
	for _, name := range names {
		e := r.entries[name]
		if e == nil {
			e = &entry{}
			r.entries[name] = e
		}
		if c := configs[name]; c != nil {
			// A new config applies from the next connection on.
			e.cfg, e.cfgErr = c, nil
		}
		if e.cfg == nil || e.cfg.lazy || e.connecting != nil || e.client != nil && e.client.alive() {
			// Invalid (its status says why), lazy, or already being
			// connected or active: left as it is.
			continue
		}
		conf, done := e.startConnecting()
		jobs = append(jobs, &job{name: name, e: e, conf: conf, done: done})
	}
	r.mu.Unlock()
	for _, j := range jobs {
		j.p = prepare(th, j.conf)
	}
	err := blocking(th, func(ctx context.Context) error {
		var wg sync.WaitGroup
		for _, j := range jobs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				j.c, j.err = j.p.connect(ctx, j.conf)
			}()
		}
		wg.Wait()
		return nil
	})
	r.mu.Lock()
	for _, j := range jobs {
		j.e.settle(j.name, builtin, j.done, j.c, j.err)
	}
	items := r.statuses(names)
	r.mu.Unlock()
	if err != nil {
		return vm.Value{}, err
	}
	return vm.Of(lib.List(items)), nil
}
