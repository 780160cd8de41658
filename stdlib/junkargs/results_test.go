package junkargs_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/harnlang/harn/lang/check"
	"github.com/harnlang/harn/stdlib"
)

// TestDeclaredResultsHold calls every builtin whose descriptor signature
// states a result type (`upper(s) -> string`, docs/check.md) with the
// junk argument matrix, and fails when a call that returns gives a value
// of another kind: the checker trusts the declared result, so a lenient
// fallback the signature does not admit (a nil, a `0`, a float where it
// says int) would turn a valid program into a static error.
func TestDeclaredResultsHold(t *testing.T) {
	if testing.Short() {
		t.Skip("calls every typed builtin with the junk matrix")
	}
	sw := newSweeper(t)
	if err := sw.in.Eval(resultCheckPrelude); err != nil {
		t.Fatalf("prelude: %v", err)
	}
	typed := 0
	for _, b := range stdlib.Builtins() {
		name := b.Name()
		result, ok := declaredResult(b.Sig)
		if !ok || skipped[name] != "" || mayBlock[name] != "" {
			continue
		}
		kinds, elems, ok := resultKinds(result)
		if !ok {
			t.Errorf("%s: result type %q is outside what this test reads; extend resultKinds", name, result)
			continue
		}
		if kinds == nil {
			continue // any
		}
		typed++
		for _, args := range argLists(name) {
			if len(args) == 3 {
				continue
			}
			want := kinds
			if hasDecimal(args) {
				// a decimal may come back (check.DecimalResults): the checker
				// types the call so when it sees the decimal
				want = append(slices.Clone(kinds), check.DecimalResults(name)...)
			}
			src := fmt.Sprintf("__expect_kind(%s(%s), %s, %s)", name, argText(args), harnList(want), harnList(elems))
			o := sw.run(src)
			if o.hung || o.panicked != nil {
				t.Fatalf("%s%s did not return (hung %v, panic %v)", name, argNames(args), o.hung, o.panicked)
			}
			if o.timedOut {
				sw = newSweeper(t)
				if err := sw.in.Eval(resultCheckPrelude); err != nil {
					t.Fatalf("prelude: %v", err)
				}
				continue
			}
			if o.err != nil && strings.Contains(o.err.Error(), "__bad_result") {
				t.Errorf("%s%s: declared -> %s, %v", name, argNames(args), result, o.err)
				break
			}
		}
	}
	if typed < 100 {
		t.Errorf("only %d builtins declare a result type; the checker's builtin results come from their signatures", typed)
	}
}

// resultCheckPrelude defines the check each call's value goes through.
const resultCheckPrelude = `fn __expect_kind(v, kinds, elems) {
  if !kinds.contains(type_of(v)) {
    throw "__bad_result: got " + type_of(v) + " " + to_string(v)
  }
  if elems != nil && type_of(v) == "list" {
    for x in v {
      if !elems.contains(type_of(x)) {
        throw "__bad_result: element " + type_of(x) + " " + to_string(x)
      }
    }
  }
}
`

// declaredResult is the result type text of a signature, `T` in
// `f(a) -> T`; every form of a `f(a) / f(a, b)` signature must state the
// same one.
func declaredResult(sig string) (string, bool) {
	result := ""
	for i, form := range strings.Split(sig, " / ") {
		_, r, ok := strings.Cut(form[closeParen(form)+1:], "->")
		r = strings.TrimSpace(r)
		if !ok || i > 0 && r != result {
			return "", false
		}
		result = r
	}
	return result, result != ""
}

// closeParen is the index of the parenthesis closing a form's parameters.
func closeParen(form string) int {
	depth := 0
	for i, r := range form {
		switch r {
		case '(':
			depth++
		case ')':
			if depth--; depth == 0 {
				return i
			}
		}
	}
	return len(form) - 1
}

// resultKinds is what type_of may give for a value of the type text t
// (nil for any), and for a list type with a stated element type, what it
// may give for each element.
func resultKinds(t string) (kinds, elems []string, ok bool) {
	for _, member := range check.SplitTop(t, '|') {
		member = strings.TrimSpace(member)
		if m, nilable := strings.CutSuffix(member, "?"); nilable {
			kinds = append(kinds, "nil")
			member = m
		}
		switch {
		case member == "any":
			return nil, nil, true
		case member == "number":
			kinds = append(kinds, "int", "float")
		case strings.HasPrefix(member, "list<"):
			kinds = append(kinds, "list")
			e, _, ok := resultKinds(strings.TrimSuffix(strings.TrimPrefix(member, "list<"), ">"))
			if !ok {
				return nil, nil, false
			}
			if e != nil {
				elems = append(elems, e...)
			} else {
				elems = append(elems, "any")
			}
		case strings.HasPrefix(member, "dict<"), strings.HasPrefix(member, "{"):
			kinds = append(kinds, "dict")
		case strings.HasPrefix(member, "Result<"):
			kinds = append(kinds, "enum") // Ok(v) / Err(e)
		case strings.HasPrefix(member, "set<"):
			kinds = append(kinds, "set")
		case strings.HasPrefix(member, "tuple<"):
			kinds = append(kinds, "list")
		case isKind(member):
			kinds = append(kinds, member)
		default:
			return nil, nil, false
		}
	}
	if contains(elems, "any") {
		elems = nil
	}
	return kinds, elems, true
}

func isKind(s string) bool {
	switch s {
	case "int", "float", "string", "bool", "nil", "list", "dict", "set", "bytes", "duration", "never",
		"closure", "builtin", "enum", "struct", "range", "iter", "pair", "generator", "stream",
		"task_handle", "channel", "atomic", "rng", "sync_permit", "mcp_client", "decimal":
		return true
	}
	return false
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// harnList spells a list of strings as a Harn list literal, or nil.
func harnList(xs []string) string {
	if xs == nil {
		return "nil"
	}
	quoted := make([]string, len(xs))
	for i, x := range xs {
		quoted[i] = fmt.Sprintf("%q", x)
	}
	return "[" + strings.Join(quoted, ", ") + "]"
}

// hasDecimal reports whether a junk argument list holds a decimal.
func hasDecimal(args []int) bool {
	for _, a := range args {
		if junk[a].name == "decimal" {
			return true
		}
	}
	return false
}
