package tool

import (
	"encoding/json"
	"math/rand"
	"testing"

	"github.com/harnlang/harn/internal/jsonv"
)

// TestPlainlyValidImpliesMetaValid generates random schema documents from
// the keywords the shortcut knows (with right and wrong value shapes) and
// checks that whatever the shortcut accepts, the real meta-schema accepts.
func TestPlainlyValidImpliesMetaValid(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	accepted := 0
	for i := 0; i < 3000; i++ {
		doc := randomSchema(r, 3)
		if !plainlyValid(doc) {
			continue
		}
		accepted++
		if err := fullMetaValidate(doc); err != nil {
			b, _ := json.Marshal(jsonv.Plain(doc))
			t.Fatalf("shortcut accepted %s, meta-schema says: %v", b, err)
		}
	}
	if accepted < 200 {
		t.Fatalf("only %d documents exercised the shortcut", accepted)
	}
}

// fullMetaValidate is metaValidate without the shortcut.
func fullMetaValidate(doc any) error {
	if _, ok := doc.(bool); ok {
		return nil
	}
	o := jsonv.NewObject(1)
	o.Set("$comment", "force the full check")
	// wrap the document so the shortcut cannot apply: allOf with an unknown keyword
	o.Set("x-unknown-keyword", true)
	o.Set("allOf", []any{doc})
	return metaValidate(o)
}

var keywords = []string{"type", "title", "description", "properties", "$defs", "items", "additionalProperties",
	"anyOf", "allOf", "oneOf", "not", "required", "enum", "const", "default", "minimum", "maxLength",
	"minItems", "uniqueItems", "pattern", "format", "$ref", "examples", "readOnly"}

func randomValue(r *rand.Rand, depth int) any {
	switch r.Intn(8) {
	case 0:
		return "string"
	case 1:
		return []any{"string", "null"}
	case 2:
		return json.Number([]string{"0", "3", "-1", "2.5"}[r.Intn(4)])
	case 3:
		return r.Intn(2) == 0
	case 4:
		return []any{"a", "b"}
	case 5:
		return []any{"a", "a"}
	case 6:
		if depth > 0 {
			return randomSchema(r, depth-1)
		}
		return true
	}
	o := jsonv.NewObject(2)
	if depth > 0 {
		o.Set("p", randomSchema(r, depth-1))
	}
	return o
}

func randomSchema(r *rand.Rand, depth int) any {
	if r.Intn(6) == 0 {
		return r.Intn(2) == 0
	}
	o := jsonv.NewObject(3)
	for n := r.Intn(4); n >= 0; n-- {
		k := keywords[r.Intn(len(keywords))]
		switch k {
		case "properties", "$defs":
			p := jsonv.NewObject(2)
			if depth > 0 {
				p.Set("a", randomSchema(r, depth-1))
			} else {
				p.Set("a", randomValue(r, 0))
			}
			o.Set(k, p)
		case "anyOf", "allOf", "oneOf":
			if depth > 0 && r.Intn(3) > 0 {
				o.Set(k, []any{randomSchema(r, depth-1)})
			} else {
				o.Set(k, randomValue(r, depth))
			}
		default:
			o.Set(k, randomValue(r, depth))
		}
	}
	return o
}
