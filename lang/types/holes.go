package types

// hole is the unknown side of a Result of which a message knows only the
// other side (a bare `Ok(1)` is a `Result<int, _>`, docs/spec/newer.md
// §3.1). It is a display type: WithHoles puts it in a copy made for
// printing, and no check ever sees it.
type hole struct{}

func (hole) String() string { return "_" }
func (hole) isType()        {}

// WithHoles is t with the `any` side of each Result that knows only its
// other side printed `_`, also inside lists, dicts, sets, iterators,
// tuples, unions, shapes, functions and generic applications
// (`list<Result<int, _> | Result<_, string>>`). t is not changed.
func WithHoles(t Type) Type {
	return withHoles(t, 0)
}

func withHoles(t Type, depth int) Type {
	if depth > 16 {
		return t
	}
	depth++
	all := func(ts []Type) []Type {
		out := make([]Type, len(ts))
		for i, m := range ts {
			out[i] = withHoles(m, depth)
		}
		return out
	}
	switch t := t.(type) {
	case *Result:
		if (t.Ok == Any) == (t.Err == Any) {
			return &Result{Ok: withHoles(t.Ok, depth), Err: withHoles(t.Err, depth)}
		}
		side := func(s Type) Type {
			if s == Any {
				return hole{}
			}
			return withHoles(s, depth)
		}
		return &Result{Ok: side(t.Ok), Err: side(t.Err)}
	case *List:
		if t.Elem == Any {
			return t
		}
		return &List{Elem: withHoles(t.Elem, depth)}
	case *Set:
		if t.Elem == Any {
			return t
		}
		return &Set{Elem: withHoles(t.Elem, depth)}
	case *Dict:
		if t.Value == Any {
			return t
		}
		return &Dict{Key: t.Key, Value: withHoles(t.Value, depth)}
	case *Iter:
		if t.Elem == Any {
			return t
		}
		return &Iter{Kind: t.Kind, Elem: withHoles(t.Elem, depth)}
	case *Tuple:
		return &Tuple{Elems: all(t.Elems)}
	case *Union:
		return &Union{Types: all(t.Types)}
	case *Named:
		if len(t.Args) == 0 {
			return t
		}
		return &Named{Decl: t.Decl, Args: all(t.Args)}
	case *Shape:
		sh := *t
		sh.Fields = make([]Field, len(t.Fields))
		for i, f := range t.Fields {
			f.Type = withHoles(f.Type, depth)
			sh.Fields[i] = f
		}
		return &sh
	case *Func:
		fn := *t
		fn.Params = make([]Param, len(t.Params))
		for i, p := range t.Params {
			p.Type = withHoles(p.Type, depth)
			fn.Params[i] = p
		}
		fn.Return = withHoles(t.Return, depth)
		return &fn
	}
	return t
}
