package mcpclient

import (
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/harnlang/harn/internal/jsonv"
	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/tool"
	"github.com/harnlang/harn/vm"
)

// mcp_host_discover finds servers a script can start or connect to,
// each as {name, transport, config, source, error}: config is a dict
// mcp_host_spawn, mcp_ensure_active and mcp_bootstrap take as it is.
// Without an argument the servers are the [[mcp]] tables of the
// project's harn.toml (paths made absolute, since a declared server
// starts in the project root while a config passed to a builtin starts
// in the execution root); with a URL, the server whose discovery
// document the HTTP origin publishes (mcp_server_card's search).

func mcpHostDiscover(th *vm.Thread, a vm.Args) (vm.Value, error) {
	const builtin = "mcp_host_discover"
	if a.Given(0) && !a.At(0).IsNil() {
		target, ok := a.Str(0)
		if !ok || strings.TrimSpace(target) == "" {
			return vm.Value{}, argErr(builtin, "expected the URL of an HTTP MCP server, got %s", a.At(0).Type())
		}
		return discoverURL(th, builtin, strings.TrimSpace(target))
	}
	m, err := readManifest(th)
	if err != nil {
		return vm.Value{}, vm.Throwf("%s: %v", builtin, err)
	}
	if m == nil {
		return vm.Of(vm.NewList(nil)), nil
	}
	byName := map[string]mcpTable{}
	for _, t := range m.tables {
		byName[t.name] = t // a later table of the same name wins, as in the registry
	}
	names := make([]string, 0, len(byName))
	for n := range byName {
		names = append(names, n)
	}
	sort.Strings(names)
	items := make([]vm.Value, 0, len(names))
	for _, n := range names {
		t := byName[n]
		transport, errText := vm.Nil, vm.Nil
		c, cerr := t.config()
		switch {
		case cerr != nil:
			errText = vm.Str(configErrText(cerr))
		case c.url != "":
			transport = vm.Str("http")
		default:
			transport = vm.Str("stdio")
		}
		keys := t.keys
		if cerr == nil && c.url == "" {
			keys = anchored(keys, m.root)
		}
		items = append(items, vm.Of(lib.DictOf(
			"name", vm.Str(n),
			"transport", transport,
			"config", tool.FromJSON(keys),
			"source", vm.Str(m.path),
			"error", errText,
		)))
	}
	return vm.Of(lib.List(items)), nil
}

// anchored is a declared stdio server's table with its directory and
// relative root paths made absolute against the project root.
func anchored(keys map[string]any, root string) map[string]any {
	out := make(map[string]any, len(keys)+1)
	for k, v := range keys {
		out[k] = v
	}
	abs := func(p string) string {
		if filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(root, p)
	}
	cwd, _ := out["cwd"].(string)
	out["cwd"] = abs(cwd)
	if roots, ok := out["roots"].([]any); ok {
		fixed := make([]any, len(roots))
		for i, r := range roots {
			switch x := r.(type) {
			case string:
				if !strings.HasPrefix(x, "file://") {
					r = abs(x)
				}
			case map[string]any:
				if p, ok := x["path"].(string); ok {
					d := make(map[string]any, len(x))
					for k, v := range x {
						d[k] = v
					}
					d["path"] = abs(p)
					r = d
				}
			}
			fixed[i] = r
		}
		out["roots"] = fixed
	}
	return out
}

// discoverURL describes the server whose discovery document target's
// origin publishes.
func discoverURL(th *vm.Thread, builtin, target string) (vm.Value, error) {
	if !strings.Contains(target, "://") {
		target = "http://" + target
	}
	if err := lib.CheckEgress(th, target); err != nil {
		return vm.Value{}, err
	}
	doc, err := fetchCardWithin(th, target, nil, 10*time.Second)
	if err != nil {
		return vm.Value{}, failure(builtin, nil, err)
	}
	endpoint, _ := jsonv.Member[string](doc, "endpoint")
	if !isURL(endpoint) {
		// A card without an endpoint: the URL given is the server's.
		endpoint = target
	}
	name, _ := jsonv.Member[string](doc, "name")
	if name == "" {
		name = (&config{url: endpoint}).label()
	}
	cfg := jsonv.NewObject(1)
	cfg.Set("url", endpoint)
	return vm.Of(lib.List([]vm.Value{vm.Of(lib.DictOf(
		"name", vm.Str(name),
		"transport", vm.Str("http"),
		"config", tool.FromJSON(cfg),
		"source", vm.Str(target),
		"error", vm.Nil,
		"card", tool.FromJSON(doc),
	))})), nil
}
