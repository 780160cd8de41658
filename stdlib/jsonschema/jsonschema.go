//go:build !harnlite

// Package jsonschema compiles and caches JSON Schema (Draft 2020-12)
// validators for schemas a script supplies at run time, and owns the
// standard library's mapping between Harn values and the generic Go form
// of JSON (map[string]any, []any, string, bool, nil, int64, float64).
//
// The tool registry has its own, stricter counterparts: portable JSON
// (tool.ToJSON, where a non-data value is an error rather than null) and
// validators compiled once per prepared catalog (tool/internal/schema).
//
// A schema is compiled once per distinct document: documents are keyed by
// their canonical JSON text (sorted keys, compact), so equal schemas built
// in different places share one validator. Compiling checks the document
// against the Draft 2020-12 meta-schema (embedded in the library; nothing
// is fetched) and reports an invalid schema as an error. Validators are
// immutable and safe for concurrent use.
//
// The value mapping is the one json_stringify uses: sets become arrays,
// struct instances objects of their set fields, ranges their display
// string, bytes {"$bytes_b64": "<base64>"}, and every non-data kind
// (closures, enum variants, durations, handles…) null.
package jsonschema

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"sort"
	"strings"
	"sync"

	"github.com/harnlang/harn/internal/jsonv"
	"github.com/harnlang/harn/vm"
	js "github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// Validator is a compiled schema.
type Validator struct {
	schema *js.Schema
	// Source is the canonical JSON text of the schema document.
	Source string
}

// Validate checks an instance in generic JSON form; the error lists every
// violation the library found.
func (v *Validator) Validate(instance any) error {
	return v.schema.Validate(instance)
}

// ValidateValue converts a Harn value with ToAny and validates it.
func (v *Validator) ValidateValue(x vm.Value) error {
	inst, err := ToAny(x)
	if err != nil {
		return err
	}
	return v.schema.Validate(inst)
}

// Cache compiles schemas and remembers them by canonical text.
type Cache struct {
	mu sync.Mutex
	m  map[string]*Validator
}

// NewCache returns an empty cache.
func NewCache() *Cache { return &Cache{m: map[string]*Validator{}} }

// shared is the process-wide cache behind Compile: compiled validators
// are immutable, so sharing them across VMs is safe.
var shared = NewCache()

// Compile compiles a schema document given in generic JSON form, using
// the process-wide cache.
func Compile(doc any) (*Validator, error) { return shared.Compile(doc) }

// CompileValue compiles a schema given as a Harn value (a dict, or a bool).
func CompileValue(schema vm.Value) (*Validator, error) {
	doc, err := ToAny(schema)
	if err != nil {
		return nil, err
	}
	return shared.Compile(doc)
}

// Compile returns the validator for doc, compiling it on first use.
func (c *Cache) Compile(doc any) (*Validator, error) {
	text, err := Canonical(doc)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	v, ok := c.m[text]
	c.mu.Unlock()
	if ok {
		return v, nil
	}
	if err := knownDialect(doc); err != nil {
		return nil, err
	}
	// Recompile from the canonical text so the library sees plain
	// json.Number/map/slice values whatever form doc came in.
	parsed, err := js.UnmarshalJSON(stringsReader(text))
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256([]byte(text))
	url := "urn:harn:schema:" + hex.EncodeToString(sum[:16])
	comp := js.NewCompiler()
	comp.DefaultDraft(js.Draft2020)
	if err := comp.AddResource(url, parsed); err != nil {
		return nil, withoutURL(err, url)
	}
	sch, err := comp.Compile(url)
	if err != nil {
		return nil, withoutURL(err, url)
	}
	v = &Validator{schema: sch, Source: text}
	c.mu.Lock()
	c.m[text] = v
	c.mu.Unlock()
	return v, nil
}

// knownDialects are the `$schema` URLs of the drafts whose meta-schemas
// are built in (with or without an empty fragment, http or https).
var knownDialects = map[string]bool{
	"json-schema.org/schema":               true,
	"json-schema.org/draft/2020-12/schema": true,
	"json-schema.org/draft/2019-09/schema": true,
	"json-schema.org/draft-07/schema":      true,
	"json-schema.org/draft-06/schema":      true,
	"json-schema.org/draft-04/schema":      true,
}

// knownDialect refuses a document whose `$schema` is not a built-in
// draft: nothing is fetched, so any other meta-schema cannot be read.
func knownDialect(doc any) error {
	m, ok := doc.(map[string]any)
	if !ok {
		return nil
	}
	raw, ok := m["$schema"]
	if !ok {
		return nil
	}
	url, ok := raw.(string)
	if !ok {
		return fmt.Errorf("$schema must be a string, got %s", jsonv.TypeName(raw))
	}
	u := strings.TrimSuffix(url, "#")
	if rest, ok := strings.CutPrefix(u, "https://"); ok {
		u = rest
	} else {
		u = strings.TrimPrefix(u, "http://")
	}
	if !knownDialects[u] {
		return fmt.Errorf("unknown $schema %q: nothing is fetched, so only the drafts 2020-12, 2019-09, 7, 6 and 4 are known (https://json-schema.org/draft/2020-12/schema)", url)
	}
	return nil
}

// withoutURL replaces the schema's internal cache id in a compile error
// with "schema": the id means nothing to the script or the client who
// may read the error. A document the meta-schema rejects is worded on
// one line, as its places in the document and what is wrong there
// (`at /type: value must be one of 'array', …; at /type: got number,
// want array`), the way a value's violations are.
func withoutURL(err error, url string) error {
	var sve *js.SchemaValidationError
	if errors.As(err, &sve) {
		if _, ok := sve.Err.(*js.ValidationError); ok {
			return errors.New("the document does not match the draft's meta-schema: " + strings.Join(Violations(sve.Err), "; "))
		}
	}
	return errors.New(strings.ReplaceAll(err.Error(), url, "schema"))
}

// Canonical is the compact JSON text of doc with object keys sorted.
func Canonical(doc any) (string, error) {
	b, err := json.Marshal(doc)
	if err != nil {
		return "", fmt.Errorf("schema is not representable as JSON: %w", err)
	}
	return string(b), nil
}

// Violations lists the failures of a validation error, one per failing
// keyword, each "at <instance location>: <message>" ("root" for the
// document itself) — the shape of the Harn dialect's messages. A `$ref`
// (or `$dynamicRef`) that fails is reported by the keywords that failed
// behind it, at their own instance locations, not as a bare
// "validation failed".
func Violations(err error) []string {
	ve, ok := err.(*js.ValidationError)
	if !ok {
		return []string{err.Error()}
	}
	var out []string
	var walk func(e *js.ValidationError)
	walk = func(e *js.ValidationError) {
		switch e.ErrorKind.(type) {
		case *kind.Schema, *kind.Group, *kind.Reference, *kind.AllOf:
			// Containers: their causes say what failed.
		default:
			loc := jsonPointer(e.InstanceLocation)
			if loc == "" {
				loc = "root"
			}
			out = append(out, "at "+loc+": "+violation(e.ErrorKind))
		}
		// The library checks properties in map order: report them in
		// instance-location order, so the same value always reads the same.
		causes := append([]*js.ValidationError(nil), e.Causes...)
		sort.SliceStable(causes, func(i, j int) bool {
			return jsonPointer(causes[i].InstanceLocation) < jsonPointer(causes[j].InstanceLocation)
		})
		for _, c := range causes {
			walk(c)
		}
	}
	walk(ve)
	if len(out) == 0 {
		// ve.Error() would name the schema by its internal cache id.
		out = append(out, "at root: the value does not match the schema")
	}
	return out
}

// violation words one failed keyword as the library does, but for the
// exclusive bounds, whose "got 5, want 5" reads as if 5 should have
// passed: they say which side the value must be on ("want > 5").
func violation(k js.ErrorKind) string {
	switch k := k.(type) {
	case *kind.ExclusiveMinimum:
		return printer.Sprintf("exclusiveMinimum: got %v, want > %v", ratFloat(k.Got), ratFloat(k.Want))
	case *kind.ExclusiveMaximum:
		return printer.Sprintf("exclusiveMaximum: got %v, want < %v", ratFloat(k.Got), ratFloat(k.Want))
	}
	return k.LocalizedString(printer)
}

func ratFloat(r *big.Rat) float64 { f, _ := r.Float64(); return f }

// printer words violations as the library's own output does.
var printer = message.NewPrinter(language.English)

// jsonPointer is the RFC 6901 pointer of an instance location.
func jsonPointer(path []string) string {
	var sb strings.Builder
	for _, tok := range path {
		sb.WriteByte('/')
		sb.WriteString(strings.ReplaceAll(strings.ReplaceAll(tok, "~", "~0"), "/", "~1"))
	}
	return sb.String()
}
