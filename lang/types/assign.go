package types

// AssignableTo reports whether a value of type src may be used where dst
// is expected (docs/spec/language.md §10.6), by gradual rules:
//
//   - any, unknown, unresolved names and type parameters on either side
//     are compatible with everything; never flows anywhere;
//   - int flows into float; a literal flows into its base type, and a base
//     type into a literal type of that base (values are not tracked);
//   - a union source needs every member assignable, a union destination
//     one member; an intersection destination needs every member, an
//     intersection source one member (or its shapes merged);
//   - containers are covariant (values are immutable); a shape flows into
//     another shape that it covers field by field (extra fields allowed),
//     into dict<K, V> when its field types fit V; a struct flows into a
//     shape whose fields it has, but no dict or shape is a struct;
//   - a struct, enum or handle flows into the same declaration (type
//     arguments covariant); a struct satisfies an interface when its impl
//     has every method with the same number of non-`self` parameters (a
//     struct whose impl is not visible satisfies every interface);
//   - any callable flows into closure and into every fn type that passes
//     it at least as many arguments as it requires, takes parameters its
//     own accept and returns what its result accepts (a union there when
//     one member does: FuncFitsExactly holds all of it).
func AssignableTo(src, dst Type) bool { return assignable(src, dst, 0) }

func assignable(src, dst Type, depth int) bool {
	if depth > 24 {
		return true // recursive types: give up rather than loop
	}
	depth++
	src, dst = Underlying(src), Underlying(dst)
	if IsDynamic(src) || IsDynamic(dst) || src == Never {
		return true
	}
	if u, ok := src.(*Union); ok {
		for _, m := range u.Types {
			if !assignable(m, dst, depth) {
				return false
			}
		}
		return true
	}
	if u, ok := dst.(*Union); ok {
		for _, m := range u.Types {
			if assignable(src, m, depth) {
				return true
			}
		}
		return false
	}
	if in, ok := dst.(*Intersection); ok {
		for _, m := range in.Types {
			if !assignable(src, m, depth) {
				return false
			}
		}
		return true
	}
	if in, ok := src.(*Intersection); ok {
		for _, m := range in.Types {
			if assignable(m, dst, depth) {
				return true
			}
		}
		if merged := mergeShapes(in); merged != nil {
			return assignable(merged, dst, depth)
		}
		return false
	}
	switch d := dst.(type) {
	case *Basic:
		switch d.Kind {
		case KNever:
			return false
		case KFloat:
			return isNumeric(src)
		case KClosure:
			_, isFn := src.(*Func)
			return isFn || src == Closure
		}
		if l, ok := src.(*Literal); ok {
			return l.Base() == d
		}
		s, ok := src.(*Basic)
		return ok && s.Kind == d.Kind
	case *Literal:
		switch s := src.(type) {
		case *Literal:
			return s.Value == d.Value
		case *Basic:
			return s == d.Base()
		}
		return false
	case *List:
		if t, ok := src.(*Tuple); ok { // a tuple widens element-wise to a list
			for _, e := range t.Elems {
				if !assignable(e, d.Elem, depth) {
					return false
				}
			}
			return true
		}
		s, ok := src.(*List)
		return ok && assignable(s.Elem, d.Elem, depth)
	case *Tuple:
		switch s := src.(type) {
		case *Tuple:
			if len(s.Elems) != len(d.Elems) {
				return false
			}
			for i, e := range s.Elems {
				if !assignable(e, d.Elems[i], depth) {
					return false
				}
			}
			return true
		case *List:
			// a list never narrows to a tuple, unless nothing is known of
			// its elements (gradual typing)
			return IsDynamic(s.Elem)
		}
		return false
	case *Set:
		s, ok := src.(*Set)
		return ok && assignable(s.Elem, d.Elem, depth)
	case *Iter:
		if d.Kind != IterPlain {
			// Generator<T> and Stream<T> are types of their own
			// (docs/spec/newer.md §3.11): only a producer of the same
			// kind, or a plain iter<T>, is one
			s, ok := src.(*Iter)
			return ok && (s.Kind == d.Kind || s.Kind == IterPlain) && assignable(s.Elem, d.Elem, depth)
		}
		switch s := src.(type) {
		case *Iter:
			return assignable(s.Elem, d.Elem, depth)
		case *List:
			return assignable(s.Elem, d.Elem, depth)
		case *Tuple:
			return assignable(s.ElemUnion(), d.Elem, depth)
		case *Set:
			return assignable(s.Elem, d.Elem, depth)
		case *Dict, *Shape:
			return true
		case *Basic:
			return s == Range || s == String
		}
		return false
	case *Dict:
		switch s := src.(type) {
		case *Dict:
			return assignable(s.Key, d.Key, depth) && assignable(s.Value, d.Value, depth)
		case *Shape:
			for _, f := range s.Fields {
				if !assignable(f.Type, d.Value, depth) {
					return false
				}
			}
			return true
		}
		return false
	case *Shape:
		switch s := src.(type) {
		case *Shape:
			return coversShape(s.Fields, d, depth) && tailCovers(s.Fields, d, depth)
		case *Dict:
			return true // keys are not tracked
		case *Named:
			if s.Decl.Kind == StructDecl {
				return coversShape(StructFields(s), d, depth)
			}
		}
		return false
	case *Result:
		s, ok := src.(*Result)
		return ok && assignable(s.Ok, d.Ok, depth) && assignable(s.Err, d.Err, depth)
	case *Func:
		s, isFn := src.(*Func)
		if !isFn {
			return src == Closure
		}
		return funcAssignable(s, d, someAssignable, depth)
	case *Handle:
		s, ok := src.(*Handle)
		return ok && s.Name == d.Name
	case *Named:
		return assignableNamed(src, d, depth)
	}
	return false
}

// funcAssignable is assignable for two function types, comparing
// parameter and result types with fit.
func funcAssignable(s, d *Func, fit func(src, dst Type, depth int) bool, depth int) bool {
	// A callback that needs more arguments than the caller passes does
	// not fit (docs/spec/newer.md §3.4).
	min, _ := s.Arity()
	_, dmax := d.Arity()
	if dmax >= 0 && min > dmax {
		return false
	}
	// Parameters are contravariant, the result covariant
	// (docs/spec/newer.md §1.5).
	for i := 0; i < len(s.Params) && i < len(d.Params); i++ {
		if s.Params[i].Rest || d.Params[i].Rest {
			break
		}
		if !fit(d.Params[i].Type, s.Params[i].Type, depth) {
			return false
		}
	}
	// A callback whose result the caller declares as nil is called
	// for its effect: any result fits, as `() => void` in TypeScript,
	// so `fn(x) { return x * 2 }` still goes where fn(int) -> nil is
	// expected.
	if d.Return == Nil {
		return true
	}
	return fit(s.Return, d.Return, depth)
}

// FuncFitsExactly reports whether a function of type src fits where the
// fn type dst is expected with every union in full: each value dst may
// pass, every member of a union parameter type included, must be one
// src's parameter accepts, and every member of src's union result must
// fit dst's (docs/spec/newer.md §1.5). AssignableTo lets a union in those
// positions through when one member fits, as the checker's top level
// does, so that a type the checker inferred, coarser than the program,
// is not held against it; this is for signatures the program wrote on
// both sides. It is true when either side is not a function type.
func FuncFitsExactly(src, dst Type) bool {
	s, ok1 := Underlying(src).(*Func)
	d, ok2 := Underlying(dst).(*Func)
	if !ok1 || !ok2 {
		return true
	}
	exact := func(src, dst Type, depth int) bool {
		return src == nil || dst == nil || assignable(src, dst, depth)
	}
	return funcAssignable(s, d, exact, 0)
}

// someAssignable is assignable, or for a union src, one member assignable.
func someAssignable(src, dst Type, depth int) bool {
	if src == nil || dst == nil || assignable(src, dst, depth) {
		return true
	}
	if u, ok := Underlying(src).(*Union); ok {
		for _, m := range u.Types {
			if assignable(m, dst, depth) {
				return true
			}
		}
	}
	return false
}

func isNumeric(t Type) bool {
	switch t := t.(type) {
	case *Basic:
		return t.Kind == KInt || t.Kind == KFloat
	case *Literal:
		return t.Base() == Int
	}
	return false
}

// coversShape reports whether fields (a shape's or a struct's) provide
// every required field of d with an assignable type.
// tailCovers reports whether the fields of src that d does not list fit
// d's tail value type (an open record `{…, ...dict<string, V>}`).
func tailCovers(fields []Field, d *Shape, depth int) bool {
	if d.Tail == nil {
		return true
	}
	for _, f := range fields {
		if _, listed := d.Field(f.Name); !listed && !assignable(f.Type, d.Tail, depth) {
			return false
		}
	}
	return true
}

func coversShape(fields []Field, d *Shape, depth int) bool {
	for _, want := range d.Fields {
		var got *Field
		for i := range fields {
			if fields[i].Name == want.Name {
				got = &fields[i]
				break
			}
		}
		if got == nil {
			if want.Optional {
				continue
			}
			return false
		}
		if got.Optional && !want.Optional {
			return false // an optional field never satisfies a required one
		}
		wt := want.Type
		if want.Optional {
			wt = Optional(wt)
		}
		if !assignable(got.Type, wt, depth) {
			return false
		}
	}
	return true
}

func assignableNamed(src Type, d *Named, depth int) bool {
	switch d.Decl.Kind {
	case StructDecl:
		switch s := src.(type) {
		case *Named:
			return sameDecl(s.Decl, d.Decl) && argsAssignable(d.Decl, s.Args, d.Args, depth)
		}
		return false // a dict is never a struct instance
	case EnumDecl:
		s, ok := src.(*Named)
		return ok && sameDecl(s.Decl, d.Decl) && argsAssignable(d.Decl, s.Args, d.Args, depth)
	case InterfaceDecl:
		s, ok := src.(*Named)
		if !ok {
			return false
		}
		if sameDecl(s.Decl, d.Decl) {
			return argsAssignable(d.Decl, s.Args, d.Args, depth)
		}
		if s.Decl.Kind == EnumDecl {
			// an enum satisfies an interface through its impl block
			return s.Decl.HasImpl && Satisfies(s.Decl, d.Decl)
		}
		return s.Decl.Kind == StructDecl && Satisfies(s.Decl, d.Decl)
	}
	return false
}

// sameDecl compares declarations by identity, or by name and origin when
// the same file was loaded twice.
func sameDecl(a, b *Decl) bool {
	return a == b || (a.Name == b.Name && a.Origin == b.Origin && a.Kind == b.Kind)
}

// argsAssignable compares the type arguments of two applications of
// generic decl: an argument of a parameter declared `in` goes the other
// way (a Sink<float> is a Sink<int>: docs/spec/newer.md §1.5); the others
// go as values do, invariance being WidensInvariantly's to enforce.
func argsAssignable(decl *Decl, src, dst []Type, depth int) bool {
	for i := range dst {
		if i >= len(src) {
			continue
		}
		from, to := src[i], dst[i]
		if i < len(decl.TypeParams) && decl.TypeParams[i].Variance == "in" {
			from, to = to, from
		}
		if !assignable(from, to, depth) {
			return false
		}
	}
	return true
}

// Satisfies reports whether struct (or enum) s implements interface iface: its impl
// has every method of iface with the same number of non-`self`
// parameters (docs/spec/language.md §10.4). A struct whose impl blocks are not
// known satisfies every interface.
func Satisfies(s, iface *Decl) bool {
	if !s.HasImpl {
		return true
	}
	for _, want := range iface.Methods {
		got, ok := s.Method(want.Name)
		if !ok || got.Arity() != want.Arity() {
			return false
		}
	}
	return true
}

// mergeShapes combines the shape members of an intersection into one
// shape (nil when a member is not a shape).
func mergeShapes(in *Intersection) *Shape {
	out := &Shape{}
	for _, m := range in.Types {
		s, ok := Underlying(m).(*Shape)
		if !ok {
			return nil
		}
		for _, f := range s.Fields {
			if _, dup := out.Field(f.Name); !dup {
				out.Fields = append(out.Fields, f)
			}
		}
	}
	return out
}

// WidensInvariantly reports whether accepting src for dst relies on the
// int → float widening inside an invariant position — an element of a
// list, set or dict, or an argument of a generic declaration whose type
// parameter is not declared `out` (docs/spec/newer.md §1.5): `list<int>` is not a
// `list<float>`. AssignableTo stays lenient about it because the checker
// types literals before it knows what they are assigned to.
func WidensInvariantly(src, dst Type) bool { return widensInv(src, dst, false, 0) }

func widensInv(src, dst Type, inv bool, depth int) bool {
	if depth > 24 || src == nil || dst == nil {
		return false
	}
	depth++
	// Two applications of one generic alias compare by the alias's declared
	// variance (`type Box<out T>`) before the alias is expanded.
	if d, ok := dst.(*Named); ok && d.Decl.Kind == AliasDecl && len(d.Args) > 0 {
		if s, ok := src.(*Named); ok && s.Decl == d.Decl && len(s.Args) == len(d.Args) {
			return namedArgsWiden(s, d, inv, depth)
		}
	}
	src, dst = Underlying(src), Underlying(dst)
	if IsDynamic(src) || IsDynamic(dst) {
		return false
	}
	if inv && dst == Float {
		if l, ok := src.(*Literal); ok {
			src = l.Base()
		}
		if src == Int {
			return true
		}
	}
	switch d := dst.(type) {
	case *List:
		if s, ok := src.(*List); ok {
			return widensInv(s.Elem, d.Elem, true, depth)
		}
	case *Set:
		if s, ok := src.(*Set); ok {
			return widensInv(s.Elem, d.Elem, true, depth)
		}
	case *Dict:
		if s, ok := src.(*Dict); ok {
			return widensInv(s.Value, d.Value, true, depth)
		}
	case *Named:
		s, ok := src.(*Named)
		if !ok || s.Decl != d.Decl || len(s.Args) != len(d.Args) {
			return false
		}
		return namedArgsWiden(s, d, inv, depth)
	case *Result:
		// covariant sides: an invariant container inside still counts
		if s, ok := src.(*Result); ok {
			return widensInv(s.Ok, d.Ok, inv, depth) || widensInv(s.Err, d.Err, inv, depth)
		}
	case *Iter:
		if s, ok := src.(*Iter); ok {
			return widensInv(s.Elem, d.Elem, inv, depth)
		}
	case *Shape:
		if s, ok := src.(*Shape); ok {
			for _, f := range d.Fields {
				if sf, listed := s.Field(f.Name); listed && widensInv(sf.Type, f.Type, inv, depth) {
					return true
				}
			}
		}
	case *Func:
		// parameters are contravariant: the caller's value goes into the
		// function's parameter; the result goes back out
		s, ok := src.(*Func)
		if !ok {
			return false
		}
		for i := range d.Params {
			if i < len(s.Params) && widensInv(d.Params[i].Type, s.Params[i].Type, inv, depth) {
				return true
			}
		}
		return widensInv(s.Return, d.Return, inv, depth)
	}
	return false
}

// namedArgsWiden reports int → float widening in a type argument of the
// same declaration that is not declared `out`.
func namedArgsWiden(s, d *Named, inv bool, depth int) bool {
	for i := range d.Args {
		argInv := inv
		if i < len(d.Decl.TypeParams) && d.Decl.TypeParams[i].Variance != "out" {
			argInv = true
		}
		if widensInv(s.Args[i], d.Args[i], argInv, depth) {
			return true
		}
	}
	return false
}
