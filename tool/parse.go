package tool

import (
	"encoding/json"
	"fmt"
	"sort"

	"github.com/harnlang/harn/internal/jsonv"
	stdjson "github.com/harnlang/harn/stdlib/json"
)

// ParseCatalog reads a serialized harn-tools/2.0 catalog. It is the
// reader every consumer that executes tools from a catalog must use:
// the first stage checks the structure (version, closed records, types,
// enum values, exactly as the published JSON Schema does), the second
// the semantics (Draft 2020-12 validity, local and component reference
// closure, command uniqueness and the other cross-entry invariants).
func ParseCatalog(data []byte) (*Catalog, error) {
	v, err := jsonv.Parse(data)
	if err != nil {
		// in serde_json's words (docs/tool-diff.md)
		return nil, fmt.Errorf("invalid tool catalog JSON: %s", stdjson.ErrorText(data, err))
	}
	o, ok := v.(*jsonv.Object)
	if !ok {
		return nil, fmt.Errorf("invalid tool catalog: a catalog must be a JSON object")
	}
	ver, ok := o.Get("schema_version")
	if !ok {
		return nil, fmt.Errorf("invalid tool catalog: missing schema_version")
	}
	if ver != any(CatalogVersion) {
		return nil, fmt.Errorf("unsupported tool catalog schema_version %s; expected %q", jsonv.Marshal(ver), CatalogVersion)
	}
	if err := checkShape(catalogShape(), o, ""); err != nil {
		return nil, fmt.Errorf("invalid tool catalog: %v", err)
	}
	var cat Catalog
	if err := json.Unmarshal(data, &cat); err != nil {
		return nil, fmt.Errorf("invalid tool catalog: %v", err)
	}
	cat.fillDefaults()
	if err := checkParsed(&cat); err != nil {
		return nil, fmt.Errorf("invalid tool catalog: %v", err)
	}
	return &cat, nil
}

// checkParsed runs the semantic stage on a decoded catalog.
func checkParsed(cat *Catalog) error {
	if info := cat.Info; info != nil {
		for _, f := range []struct{ name, val string }{{"name", info.Name}, {"version", info.Version}, {"description", info.Description}} {
			if (f.name == "name" || f.val != "") && blank(f.val) {
				return fmt.Errorf("info.%s must not be empty", f.name)
			}
		}
	}
	if cat.Components != nil {
		for _, name := range cat.Components.Schemas.Names() {
			if blank(name) {
				return fmt.Errorf("components.schemas key must not be empty")
			}
			s, _ := cat.Components.Schemas.Get(name)
			label := "components.schemas." + name
			if err := schemaDocCheck(label, s.Doc(), func(r string) string {
				return label + " is not a valid Draft 2020-12 JSON Schema: " + r
			}); err != nil {
				return err
			}
		}
	}
	if cat.CLI != nil {
		for i, c := range cat.CLI.Commands {
			if err := c.check(i); err != nil {
				return err
			}
		}
	}
	names := map[string]bool{}
	for i, e := range cat.Tools {
		at := func(f string) string { return labelTool(i, f) }
		if blank(e.Name) {
			return fmt.Errorf("%s must not be empty", at("name"))
		}
		if names[e.Name] {
			return fmt.Errorf("duplicate tool name %q", e.Name)
		}
		names[e.Name] = true
		if e.Title != "" && blank(e.Title) {
			return fmt.Errorf("%s must not be empty", at("title"))
		}
		if e.Namespace != "" && blank(e.Namespace) {
			return fmt.Errorf("%s must not be empty", at("namespace"))
		}
		in, isObj := e.InputSchema.Object()
		if t, _ := in.Get("type"); !isObj || t != any("object") {
			return fmt.Errorf("%s must explicitly declare an object root with type: object", at("inputSchema"))
		}
		for _, s := range []struct {
			field string
			doc   Schema
		}{{"inputSchema", e.InputSchema}, {"outputSchema", e.OutputSchema}, {"errorSchema", e.ErrorSchema}} {
			if s.doc.IsZero() {
				continue
			}
			label := at(s.field)
			if err := schemaDocCheck(label, s.doc.Doc(), func(r string) string {
				return label + " is not a valid Draft 2020-12 JSON Schema: " + r
			}); err != nil {
				return err
			}
		}
		if e.Annotations != nil && e.Annotations.Title != "" && blank(e.Annotations.Title) {
			return fmt.Errorf("%s must not be empty", at("annotations.title"))
		}
		if len(e.Governance.Audiences) == 0 {
			return fmt.Errorf("%s must be a non-empty list", at("governance.audiences"))
		}
		seen := map[Audience]bool{}
		for _, a := range e.Governance.Audiences {
			if seen[a] {
				return fmt.Errorf("%s contains duplicate audience %q", at("governance.audiences"), a)
			}
			seen[a] = true
		}
		sort.Slice(e.Governance.Audiences, func(x, y int) bool {
			return audienceRank(e.Governance.Audiences[x]) < audienceRank(e.Governance.Audiences[y])
		})
		if len(e.CLI.Command) == 0 {
			return fmt.Errorf("%s must be a non-empty list of command names", at("cli.command"))
		}
		for _, p := range e.CLI.Command {
			if !ValidCommandComponent(p) {
				return fmt.Errorf("%s must contain only non-empty command names", at("cli.command"))
			}
		}
		for _, p := range e.CLI.Aliases {
			if !ValidCommandComponent(p) {
				return fmt.Errorf("%s must contain only portable command names", at("cli.aliases"))
			}
		}
		if e.Source != nil {
			if blank(e.Source.Kind) {
				return fmt.Errorf("%s must not be empty", at("source.kind"))
			}
			if e.Source.ID != "" && blank(e.Source.ID) {
				return fmt.Errorf("%s must not be empty", at("source.id"))
			}
		}
		if e.Icons != nil && len(e.Icons) == 0 {
			return fmt.Errorf("%s must be a non-empty list", at("icons"))
		}
		for j, icon := range e.Icons {
			if blank(icon.Src) {
				return fmt.Errorf("%s must not be empty", at(fmt.Sprintf("icons[%d].src", j)))
			}
			if icon.Sizes != nil && len(icon.Sizes) == 0 {
				return fmt.Errorf("%s must be a non-empty list", at(fmt.Sprintf("icons[%d].sizes", j)))
			}
			sizes := map[string]bool{}
			for _, s := range icon.Sizes {
				if blank(s) || sizes[s] {
					return fmt.Errorf("%s must contain unique non-empty strings", at(fmt.Sprintf("icons[%d].sizes", j)))
				}
				sizes[s] = true
			}
			for _, prev := range e.Icons[:j] {
				if iconEqual(prev, icon) {
					return fmt.Errorf("%s contains a duplicate icon", at("icons"))
				}
			}
		}
	}
	if err := checkCLIPaths(cat); err != nil {
		return err
	}
	for i, e := range cat.Tools {
		if err := checkMetaKeys(i, e); err != nil {
			return err
		}
	}
	if err := checkComponentRefs(cat, labelTool); err != nil {
		return err
	}
	return nil
}

// Check applies the catalog reader's semantic rules to a catalog made
// from a registry, so that what `harn tool schema` writes the reader
// accepts.
func (c *Catalog) Check() error {
	if err := checkParsed(c); err != nil {
		return fmt.Errorf("invalid tool catalog: %v", err)
	}
	return nil
}

// check applies the registry-level CLI command rules (docs/spec/registry.md
// §4; P23, P24 of docs/spec/cli-projection.md §9) to entry i of
// cli.commands, for the catalog reader and Check.
func (c *CLICommandSpec) check(i int) error {
	if len(c.Command) == 0 {
		return fmt.Errorf("cli.commands[%d].command must be a non-empty list of command names", i)
	}
	for _, p := range append(append([]string(nil), c.Command...), c.Aliases...) {
		if !ValidCommandComponent(p) {
			return fmt.Errorf("CLI command spelling %q is not a portable command component", p)
		}
	}
	if c.Title != nil && blank(*c.Title) {
		return fmt.Errorf("cli.commands[%d]: CLI command title must not be empty", i)
	}
	if c.Description != nil && blank(*c.Description) {
		return fmt.Errorf("cli.commands[%d]: CLI command description must not be empty", i)
	}
	seen := map[string]bool{}
	for _, a := range c.Aliases {
		if seen[a] {
			return fmt.Errorf("cli.commands[%d].aliases lists %q twice", i, a)
		}
		seen[a] = true
	}
	return nil
}
