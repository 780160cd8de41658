package vm

import "strings"

// Set is an immutable, insertion-ordered collection without duplicates.
// Construction deduplicates by the structural key (docs/spec/builtins.md §1.7); the
// set *methods* compare with ordinary equality (§3.9), which callers
// implement on top of Items.
type Set struct {
	items []Value
	index map[string]int // structural key -> position
}

// EmptySet is set().
var EmptySet = &Set{}

// NewSet builds a set from values in order, keeping the first of each
// structural key.
func NewSet(items []Value) *Set {
	s := &Set{}
	for _, v := range items {
		s.add(v)
	}
	return s
}

func (s *Set) add(v Value) bool {
	k := StructuralKey(v)
	if s.index == nil {
		s.index = make(map[string]int)
	}
	if _, ok := s.index[k]; ok {
		return false
	}
	s.index[k] = len(s.items)
	s.items = append(s.items, v)
	return true
}

func (*Set) Type() string                  { return "set" }
func (s *Set) Truth() bool                 { return len(s.items) > 0 }
func (s *Set) Display(sb *strings.Builder) { s.display(sb, 0) }
func (s *Set) display(sb *strings.Builder, depth int) {
	sb.WriteString("set(")
	for i, v := range s.items {
		if i > 0 {
			sb.WriteString(", ")
		}
		displayAt(sb, v, depth)
	}
	sb.WriteByte(')')
}

// Len is the number of items.
func (s *Set) Len() int { return len(s.items) }

// Items returns the items in insertion order. The slice must not be modified.
func (s *Set) Items() []Value { return s.items[:len(s.items):len(s.items)] }

// HasKey reports membership by structural key.
func (s *Set) HasKey(v Value) bool {
	_, ok := s.index[StructuralKey(v)]
	return ok
}

// Has reports whether an item equals x, as `x in s` asks (ordinary
// equality, 1 == 1.0). For a string, or an int that a float represents
// exactly, the structural key agrees with equality, so the index answers;
// any other x is compared with every item.
func (s *Set) Has(x Value) bool {
	if n, ok := x.AsInt(); ok && n >= -maxExactInt && n <= maxExactInt || x.Kind() == KString {
		return s.HasKey(x)
	}
	for _, v := range s.items {
		if Equal(v, x) {
			return true
		}
	}
	return false
}

// maxExactInt bounds the ints that convert to float64 exactly.
const maxExactInt = 1 << 53

// Add returns a set with v appended if its structural key is new.
func (s *Set) Add(v Value) *Set {
	if s.HasKey(v) {
		return s
	}
	noteGrowth(int64(len(s.items)+1) * dictEntrySize)
	return NewSet(append(s.Items(), v))
}

// Iterate walks the items in insertion order.
func (s *Set) Iterate() Iterator { return &sliceIter{items: s.items} }
