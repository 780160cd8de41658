package tool

import (
	"encoding/json"
	"strconv"

	"github.com/harnlang/harn/internal/jsonv"
)

// plainlyValid reports whether a schema document is certainly valid
// against the Draft 2020-12 meta-schema because it uses only common
// keywords whose values have the shapes the meta-schema requires. It is a
// shortcut in front of metaValidate, never a replacement: any keyword or
// shape it does not know sends the document to the full meta-schema
// check. Registries are mostly made of such plain schemas, and the full
// check costs tens of microseconds each — the bulk of loading a registry.
func plainlyValid(doc any) bool {
	switch d := doc.(type) {
	case bool:
		return true
	case *jsonv.Object:
		ok := true
		d.Range(func(k string, v any) bool {
			ok = plainKeyword(k, v)
			return ok
		})
		return ok
	}
	return false
}

func plainKeyword(k string, v any) bool {
	switch k {
	case "title", "description", "$comment", "format", "pattern", "$ref":
		_, ok := v.(string)
		return ok
	case "type":
		switch t := v.(type) {
		case string:
			return jsonTypes[t]
		case []any:
			seen := map[string]bool{}
			for _, e := range t {
				s, ok := e.(string)
				if !ok || !jsonTypes[s] || seen[s] {
					return false
				}
				seen[s] = true
			}
			return len(t) > 0
		}
		return false
	case "properties", "$defs":
		o, ok := v.(*jsonv.Object)
		if !ok {
			return false
		}
		good := true
		o.Range(func(_ string, s any) bool {
			good = plainlyValid(s)
			return good
		})
		return good
	case "items", "additionalProperties", "not", "contains", "if", "then", "else":
		return plainlyValid(v)
	case "anyOf", "allOf", "oneOf":
		list, ok := v.([]any)
		if !ok || len(list) == 0 {
			return false
		}
		for _, s := range list {
			if !plainlyValid(s) {
				return false
			}
		}
		return true
	case "required":
		list, ok := v.([]any)
		if !ok {
			return false
		}
		seen := map[string]bool{}
		for _, e := range list {
			s, ok := e.(string)
			if !ok || seen[s] {
				return false
			}
			seen[s] = true
		}
		return true
	case "enum", "examples":
		_, ok := v.([]any)
		return ok
	case "const", "default":
		return true
	case "uniqueItems", "deprecated", "readOnly", "writeOnly":
		_, ok := v.(bool)
		return ok
	case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum":
		_, ok := v.(json.Number)
		return ok
	case "minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties":
		n, ok := v.(json.Number)
		if !ok {
			return false
		}
		i, err := strconv.ParseInt(string(n), 10, 64)
		return err == nil && i >= 0
	}
	return false
}
