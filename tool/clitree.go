package tool

import (
	"fmt"
	"sort"
	"strings"
)

// CLICommand is one node of the generated command tree: the root, a
// parent command, or a leaf that runs a tool (docs/spec/cli-projection.md §2).
type CLICommand struct {
	Name    string
	Path    []string // from the root; empty for the root
	Aliases []string
	Hidden  bool
	// Title is the short about text, Description the long one.
	Title        string
	Description  string
	DisplayOrder *int64
	// Children are ordered for help: display_order first, then by name.
	Children []*CLICommand
	// Tool is set on leaves.
	Tool *PreparedTool
	// Args are the leaf's arguments in help order (positionals first).
	Args []*CLIArg
	// JSONFlag tells whether the leaf gets the framework --json flag.
	JSONFlag bool
}

// Leaf reports whether the command runs a tool.
func (c *CLICommand) Leaf() bool { return c.Tool != nil }

// Child finds the child spelled s (its name or an alias).
func (c *CLICommand) Child(s string) *CLICommand {
	for _, ch := range c.Children {
		if ch.Name == s {
			return ch
		}
	}
	for _, ch := range c.Children {
		for _, a := range ch.Aliases {
			if a == s {
				return ch
			}
		}
	}
	return nil
}

// About is the short about text: the title, else the description.
func (c *CLICommand) About() string {
	if c.Title != "" {
		return c.Title
	}
	return c.Description
}

// CLITree is the prepared command tree of the CLI-audience tools.
type CLITree struct {
	// Root's Title/Description come from the registry info.
	Root *CLICommand
	// Version is info.version ("" disables --version).
	Version string
}

// buildCLITree assembles the tree (P21-P25 and the registry-level
// metadata rules of docs/spec/registry.md §4). Leaves carry the prepared tools.
func buildCLITree(p *Prepared) (*CLITree, error) {
	root := &CLICommand{}
	tree := &CLITree{Root: root}
	if info := p.catalog.Info; info != nil {
		root.Name = info.Name
		root.Description = info.Description
		tree.Version = info.Version
	}
	nodes := map[string]*CLICommand{}
	for _, t := range p.tools {
		e := t.Tool.Entry
		if !e.Governance.Allows(AudienceCLI) {
			continue
		}
		cur := root
		for i, part := range e.CLI.Command {
			key := strings.Join(e.CLI.Command[:i+1], " ")
			n := nodes[key]
			if n == nil {
				n = &CLICommand{Name: part, Path: append([]string(nil), e.CLI.Command[:i+1]...), Aliases: []string{}}
				nodes[key] = n
				cur.Children = append(cur.Children, n)
			}
			cur = n
		}
		cur.Tool = t
		cur.Aliases = append([]string(nil), e.CLI.Aliases...)
		cur.Hidden = e.CLI.Hidden
		cur.Title = e.Title
		cur.Description = e.Description
		cur.Args = t.Args
		cur.JSONFlag = t.jsonFlag
	}
	if p.catalog.CLI != nil {
		seen := map[string]bool{}
		for _, spec := range p.catalog.CLI.Commands {
			key := strings.Join(spec.Command, " ")
			if seen[key] {
				return nil, p.metaErr("duplicate registry-level CLI command metadata path %q", key)
			}
			seen[key] = true
			n := nodes[key]
			if n == nil {
				return nil, p.metaErr("registry-level CLI metadata path %q does not name a command", key)
			}
			if n.Leaf() {
				return nil, p.metaErr("registry-level CLI metadata path %q names a tool rather than a parent command", key)
			}
			if spec.Title != nil && blank(*spec.Title) {
				return nil, p.metaErr("CLI command title must not be empty")
			}
			if spec.Description != nil && blank(*spec.Description) {
				return nil, p.metaErr("CLI command description must not be empty")
			}
			n.Title = deref(spec.Title)
			n.Description = deref(spec.Description)
			n.Aliases = append([]string(nil), spec.Aliases...)
			n.Hidden = spec.Hidden
			n.DisplayOrder = spec.DisplayOrder
		}
	}
	if err := checkSpellings(p, root); err != nil {
		return nil, err
	}
	sortTree(root)
	return tree, nil
}

// checkSpellings applies P21-P23 to every level of the tree.
func checkSpellings(p *Prepared, c *CLICommand) error {
	owner := map[string]string{}
	for _, ch := range c.Children {
		for i, s := range append([]string{ch.Name}, ch.Aliases...) {
			var err error
			if s == "help" {
				err = fmt.Errorf("CLI command spelling \"help\" is reserved by the generated command framework")
			} else if !ValidCommandComponent(s) {
				err = fmt.Errorf("CLI command spelling %q is not a portable command component", s)
			} else if prev, ok := owner[s]; ok {
				err = fmt.Errorf("CLI command spelling %q is shared by sibling commands %q and %q", s, prev, ch.Name)
			}
			if err != nil {
				return p.spellingErr(ch, i > 0, err)
			}
			owner[s] = ch.Name
		}
		if err := checkSpellings(p, ch); err != nil {
			return err
		}
	}
	return nil
}

// metaErr locates a failure of the registry-level CLI metadata
// (cli.commands) at the call that built the registry with it.
func (p *Prepared) metaErr(format string, args ...any) error {
	err := fmt.Errorf(format, args...)
	if p.registry == nil || p.registry.Value == nil {
		return err
	}
	if cv, ok := field(p.registry.Value, "cli"); ok {
		if d, ok := cv.AsDict(); ok {
			if s := p.registry.cache.SiteFor(d); s.Line > 0 {
				return &SiteError{Err: err, Site: s}
			}
		}
	}
	return err
}

// spellingErr locates a failure of command ch's spelling: a leaf's at
// the tool's registration, a parent's alias at the registry-level
// metadata that gave it, a parent's name at the first tool under it
// (whose path made it).
func (p *Prepared) spellingErr(ch *CLICommand, alias bool, err error) error {
	if ch.Leaf() {
		return p.registry.located(ch.Tool.Tool, err)
	}
	if alias {
		return p.metaErr("%w", err)
	}
	for n := ch; n != nil; {
		if n.Leaf() {
			return p.registry.located(n.Tool.Tool, err)
		}
		if len(n.Children) == 0 {
			break
		}
		n = n.Children[0]
	}
	return err
}

func sortTree(c *CLICommand) {
	sort.SliceStable(c.Children, func(i, j int) bool {
		a, b := c.Children[i], c.Children[j]
		if (a.DisplayOrder != nil) != (b.DisplayOrder != nil) {
			return a.DisplayOrder != nil
		}
		if a.DisplayOrder != nil && *a.DisplayOrder != *b.DisplayOrder {
			return *a.DisplayOrder < *b.DisplayOrder
		}
		return a.Name < b.Name
	})
	for _, ch := range c.Children {
		sortTree(ch)
	}
}

// parserError returns the first P26 problem among the CLI leaves.
func parserError(p *Prepared, c *CLICommand) error {
	for _, a := range c.Args {
		if a.parserErr != "" {
			return p.registry.located(c.Tool.Tool, fmt.Errorf("%s", a.parserErr))
		}
	}
	for _, ch := range c.Children {
		if err := parserError(p, ch); err != nil {
			return err
		}
	}
	return nil
}
