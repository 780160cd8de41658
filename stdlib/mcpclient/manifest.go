package mcpclient

import (
	"fmt"
	"os"
	"path/filepath"

	toml "github.com/pelletier/go-toml/v2"

	"github.com/harnlang/harn/stdlib/process"
	"github.com/harnlang/harn/tool"
	"github.com/harnlang/harn/vm"
)

// Servers declared in the project's harn.toml (the nearest one above the
// script, project_root()), one [[mcp]] table each:
//
//	[[mcp]]
//	name = "github"
//	command = "npx"
//	args = ["-y", "@modelcontextprotocol/server-github"]
//	env = { GITHUB_TOKEN = "..." }
//
// The keys are those of a mcp_connect config dict. mcp_ensure_active
// connects such a server by name without a config argument, and
// mcp_registry_status lists them before they are used.

// manifestServers reads the [[mcp]] tables of the project's harn.toml:
// name → config, or name → error for a table that is not a valid
// config. A project without harn.toml, or one without [[mcp]], has none;
// a harn.toml that does not parse is an error.
func manifestServers(th *vm.Thread) (map[string]*config, map[string]error, error) {
	root := process.ProjectRoot(th)
	if root == "" {
		return nil, nil, nil
	}
	path := filepath.Join(root, "harn.toml")
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, nil
	}
	var doc struct {
		MCP []map[string]any `toml:"mcp"`
	}
	if err := toml.Unmarshal(data, &doc); err != nil {
		return nil, nil, fmt.Errorf("%s: %v", path, err)
	}
	configs := map[string]*config{}
	errs := map[string]error{}
	for i, table := range doc.MCP {
		name, _ := table["name"].(string)
		if name == "" {
			return nil, nil, fmt.Errorf("%s: [[mcp]] table %d has no name", path, i+1)
		}
		v := tool.FromJSON(plainTOML(table))
		c, cerr := parseConfig("harn.toml [[mcp]] "+name, vm.Args{v})
		if cerr != nil {
			errs[name] = cerr
			continue
		}
		c.name, c.baseDir = name, root
		configs[name] = c
	}
	return configs, errs, nil
}

// plainTOML turns go-toml's decoded values into the generic JSON forms
// tool.FromJSON reads (dates and times become their text).
func plainTOML(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = plainTOML(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = plainTOML(e)
		}
		return out
	case string, bool, int64, float64, nil:
		return x
	case fmt.Stringer:
		return x.String()
	}
	return fmt.Sprint(v)
}
