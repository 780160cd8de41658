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
	m, err := readManifest(th)
	if err != nil || m == nil {
		return nil, nil, err
	}
	configs := map[string]*config{}
	errs := map[string]error{}
	for _, t := range m.tables {
		c, cerr := t.config()
		if cerr != nil {
			errs[t.name] = cerr
			continue
		}
		c.baseDir = m.root
		configs[t.name] = c
	}
	return configs, errs, nil
}

// manifest is the [[mcp]] part of a project's harn.toml.
type manifest struct {
	path, root string
	tables     []mcpTable
}

// mcpTable is one [[mcp]] table: its name and its keys as generic
// JSON values (tool.FromJSON's input), name excluded.
type mcpTable struct {
	name string
	keys map[string]any
}

// config parses the table as a mcp_connect config dict.
func (t mcpTable) config() (*config, error) {
	c, err := parseConfig("harn.toml [[mcp]] "+t.name, vm.Args{tool.FromJSON(t.keys)})
	if err != nil {
		return nil, err
	}
	c.name = t.name
	return c, nil
}

// readManifest reads the [[mcp]] tables of the project's harn.toml; nil
// when the project has no harn.toml. A table without a name is an error.
func readManifest(th *vm.Thread) (*manifest, error) {
	root := process.ProjectRoot(th)
	if root == "" {
		return nil, nil
	}
	path := filepath.Join(root, "harn.toml")
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil
	}
	var doc struct {
		MCP []map[string]any `toml:"mcp"`
	}
	if err := toml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	m := &manifest{path: path, root: root}
	for i, table := range doc.MCP {
		name, _ := table["name"].(string)
		if name == "" {
			return nil, fmt.Errorf("%s: [[mcp]] table %d has no name", path, i+1)
		}
		keys := plainTOML(table).(map[string]any)
		delete(keys, "name")
		m.tables = append(m.tables, mcpTable{name: name, keys: keys})
	}
	return m, nil
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
