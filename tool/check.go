package tool

import (
	"fmt"
	"strings"
)

// labelTool names a tool field in catalog-stage messages.
func labelTool(i int, field string) string { return fmt.Sprintf("tools[%d].%s", i, field) }

// checkCatalog applies the whole-registry rules (C1-C6 of docs/spec/registry.md
// §3) to a catalog built from a registry.
func checkCatalog(cat *Catalog, label func(int, string) string) error {
	seen := map[string]bool{}
	for _, e := range cat.Tools {
		if seen[e.Name] {
			return catalogErr("tool registry contains duplicate tool name %q", e.Name)
		}
		seen[e.Name] = true
	}
	if err := checkCLIPaths(cat); err != nil {
		return err
	}
	for i, e := range cat.Tools {
		if err := checkMetaKeys(i, e); err != nil {
			return err
		}
	}
	return checkComponentRefs(cat, label)
}

func checkComponentRefs(cat *Catalog, label func(int, string) string) error {
	var comps *SchemaMap
	if cat.Components != nil {
		comps = cat.Components.Schemas
	}
	for i, e := range cat.Tools {
		for _, s := range []struct {
			name string
			doc  Schema
		}{{"inputSchema", e.InputSchema}, {"outputSchema", e.OutputSchema}, {"errorSchema", e.ErrorSchema}} {
			if s.doc.IsZero() {
				continue
			}
			if err := componentCheck(label(i, s.name), s.doc.Doc(), comps); err != nil {
				return catalogErr("%s", err.Error())
			}
		}
	}
	if comps != nil {
		for _, name := range comps.Names() {
			c, _ := comps.Get(name)
			if err := componentCheck("components.schemas."+name, c.Doc(), comps); err != nil {
				return catalogErr("%s", err.Error())
			}
		}
	}
	return nil
}

// checkCLIPaths rejects two CLI-audience tools on one path (C2) and a
// path that is both a tool and a parent (C3).
func checkCLIPaths(cat *Catalog) error {
	owner := map[string]string{}
	for _, e := range cat.Tools {
		if !e.Governance.Allows(AudienceCLI) {
			continue
		}
		key := strings.Join(e.CLI.Command, " ")
		if prev, dup := owner[key]; dup {
			return catalogErr("duplicate CLI command path %q: tools %q and %q claim it", key, prev, e.Name)
		}
		owner[key] = e.Name
	}
	for _, e := range cat.Tools {
		if !e.Governance.Allows(AudienceCLI) {
			continue
		}
		for n := 1; n < len(e.CLI.Command); n++ {
			prefix := strings.Join(e.CLI.Command[:n], " ")
			if leaf, ok := owner[prefix]; ok {
				return catalogErr("CLI command path conflict: tools %q and %q make '%s' both a tool and a parent command", leaf, e.Name, prefix)
			}
		}
	}
	return nil
}

// MetaContractKey is the _meta key reserved for Harn's MCP projection.
const MetaContractKey = "com.harnlang/toolContract"

func checkMetaKeys(i int, e *Entry) error {
	for _, k := range e.Meta.Keys() {
		if msg := metaKeyProblem(k); msg != "" {
			if k == MetaContractKey {
				return catalogErr("tools[%d]._meta[%q] %s", i, k, msg)
			}
			return catalogErr("tools[%d]._meta key %q %s", i, k, msg)
		}
	}
	return nil
}

// metaKeyProblem checks a _meta key against MCP's metadata-key grammar
// and Harn's reservation; it returns "" for a valid key, else the tail of
// the message.
func metaKeyProblem(k string) string {
	if strings.Count(k, "/") > 1 {
		return "must contain at most one '/' separator"
	}
	if k == MetaContractKey {
		return "is reserved for Harn-owned adapter projections"
	}
	name := k
	if i := strings.IndexByte(k, '/'); i >= 0 {
		prefix := k[:i]
		name = k[i+1:]
		labels := strings.Split(prefix, ".")
		for _, l := range labels {
			if !validLabel(l) {
				return "has an invalid reverse-DNS prefix"
			}
		}
		if len(labels) >= 2 && (labels[1] == "mcp" || labels[1] == "modelcontextprotocol") {
			return "uses an MCP-reserved prefix"
		}
	}
	if !validMetaName(name) {
		return "has an invalid metadata name"
	}
	return ""
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isAlnum(c byte) bool  { return isLetter(c) || c >= '0' && c <= '9' }

func validLabel(l string) bool {
	if l == "" || !isLetter(l[0]) || !isAlnum(l[len(l)-1]) {
		return false
	}
	for i := 0; i < len(l); i++ {
		if !isAlnum(l[i]) && l[i] != '-' {
			return false
		}
	}
	return true
}

func validMetaName(n string) bool {
	if n == "" {
		return true
	}
	if !isAlnum(n[0]) || !isAlnum(n[len(n)-1]) {
		return false
	}
	for i := 0; i < len(n); i++ {
		c := n[i]
		if !isAlnum(c) && c != '-' && c != '_' && c != '.' {
			return false
		}
	}
	return true
}
