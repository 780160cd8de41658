package syntax

// This file defines the abstract syntax tree produced by Parse.
//
// Every node records the position of its first token. Statements and
// expressions share one Node interface; the marker methods stmtNode and
// exprNode keep the two families apart where the grammar does (an `if` or
// `match` is an expression that may also stand as a statement, so it is
// both).

// Pos is a 1-based source position; Col counts Unicode characters.
type Pos struct {
	Line int
	Col  int
}

// IsValid reports whether the position was set.
func (p Pos) IsValid() bool { return p.Line > 0 }

// Before reports whether p comes before q in the source.
func (p Pos) Before(q Pos) bool { return p.Line < q.Line || p.Line == q.Line && p.Col < q.Col }

// Node is any syntax tree node.
type Node interface {
	Position() Pos
}

// Stmt is a statement or a top-level item.
type Stmt interface {
	Node
	stmtNode()
}

// Expr is an expression.
type Expr interface {
	Node
	exprNode()
}

// TypeExpr is a type annotation.
type TypeExpr interface {
	Node
	typeNode()
}

// Pattern is a destructuring pattern after let/var/const and in for loops.
type Pattern interface {
	Node
	patternNode()
}

// File is one parsed source file.
type File struct {
	Path  string // as given to Parse
	Doc   string // leading module doc comment (a doc comment at the top of the file not attached to an item), text without comment markers
	Items []Stmt // top-level items in source order
	// Comments is where each comment starts, in source order (a lint
	// leaves code with comments inside it as written).
	Comments []Pos
}

// ---- declarations (also statements) ----

// BindingKind tells let, var and const apart.
type BindingKind int

const (
	BindLet BindingKind = iota
	BindVar
	BindConst
)

func (k BindingKind) String() string {
	switch k {
	case BindVar:
		return "var"
	case BindConst:
		return "const"
	}
	return "let"
}

// ImportDecl is `import "p"`, `import { a, b } from "p"`, `import a::b::{x}`
// (normalised to Path "a/b" and Names [x]) or `import * as ns from "p"`
// (Namespace ns, no Names: docs/spec/newer.md §1.3).
type ImportDecl struct {
	At        Pos
	Pub       bool
	Path      string
	PathPos   Pos
	Names     []*Ident // nil for a wildcard import
	Namespace *Ident   // the name bound to the module's exports
}

// Attribute is `@name(args)` before a declaration.
type Attribute struct {
	At   Pos
	Name string
	Args []*AttrArg
}

// AttrArg is one attribute argument, optionally named (`since: "0.8"`).
// Value is a restricted expression: literals, identifiers, dotted names
// (MemberExpr), call-shaped values (CallExpr/MethodCall), lists, dicts and
// negative numbers (UnaryExpr).
type AttrArg struct {
	Name  string
	Value Expr
}

// Param is a function, closure, variant or pipeline parameter.
type Param struct {
	At      Pos
	Name    string
	Type    TypeExpr // nil when unannotated
	Default Expr     // nil when absent
	Rest    bool     // `...name`
}

// TypeParam is `T`, `in T` or `out T` in a generic parameter list, or
// `T: A + B` in a function's, whose inline bounds mean what `where T:
// A + B` does: the function's Where lists them too, first, each clause
// at the parameter's position.
type TypeParam struct {
	At       Pos
	Name     string
	Variance string   // "", "in" or "out"
	Bounds   []string // inline bounds of a function's type parameter
	BoundsAt []Pos
	// boundArgs[i] holds the type arguments of a generic interface bound
	// (`T: Container<U>`), nil for a bare name; nil when no bound has any.
	// Unexported so that a walk meets them once, in the function's Where.
	boundArgs [][]TypeExpr
}

// BoundArgs returns, for each of Bounds, the type arguments a generic
// interface bound gives (`T: Container<U>`), nil for a bare name; nil
// when no bound has any.
func (tp *TypeParam) BoundArgs() [][]TypeExpr { return tp.boundArgs }

// WhereClause is one `T: A + B` bound; BoundsAt[i] is where Bounds[i]
// is written, BoundArgs[i] the type arguments of a generic interface
// bound (`where C: Container<T>`), nil for a bare name (BoundArgs is nil
// when no bound has any).
type WhereClause struct {
	At        Pos
	Param     string
	Bounds    []string
	BoundsAt  []Pos
	BoundArgs [][]TypeExpr
}

// FnDecl is `[pub] [gen] fn name<T>(params) -> R throws E where … { body }`.
type FnDecl struct {
	At         Pos
	Doc        string
	Attrs      []*Attribute
	Pub        bool
	Gen        bool
	Name       string
	NamePos    Pos
	TypeParams []*TypeParam
	Params     []*Param
	Return     TypeExpr // nil when absent
	Throws     TypeExpr // nil when absent
	Where      []*WhereClause
	Body       *Block
}

// PipelineDecl is `pipeline name(params) -> R extends parent { body }`.
type PipelineDecl struct {
	At      Pos
	Doc     string
	Attrs   []*Attribute
	Pub     bool
	Name    string
	NamePos Pos
	Params  []*Param
	Return  TypeExpr
	Throws  TypeExpr
	Extends string
	Body    *Block
}

// ToolDecl is `tool name(params) -> R { description "…" body }`.
type ToolDecl struct {
	At          Pos
	Doc         string
	Attrs       []*Attribute
	Pub         bool
	Name        string
	NamePos     Pos
	Params      []*Param
	Return      TypeExpr
	Throws      TypeExpr
	Description string
	Body        *Block
}

// FieldDecl is one struct field.
type FieldDecl struct {
	At       Pos
	Name     string
	Optional bool
	Type     TypeExpr
}

// StructDecl is `struct Name<T> { fields }`.
type StructDecl struct {
	At         Pos
	Doc        string
	Attrs      []*Attribute
	Pub        bool
	Name       string
	NamePos    Pos
	TypeParams []*TypeParam
	Fields     []*FieldDecl
}

// Variant is one enum variant; Params is nil for a variant without payload.
type Variant struct {
	At     Pos
	Name   string
	Params []*Param
}

// EnumDecl is `enum Name<T> { variants }`.
type EnumDecl struct {
	At         Pos
	Doc        string
	Attrs      []*Attribute
	Pub        bool
	Name       string
	NamePos    Pos
	TypeParams []*TypeParam
	Variants   []*Variant
}

// TypeDecl is `type Name<T> = Type`.
type TypeDecl struct {
	At         Pos
	Doc        string
	Attrs      []*Attribute
	Pub        bool
	Name       string
	NamePos    Pos
	TypeParams []*TypeParam
	Type       TypeExpr
}

// MethodSig is a method signature inside an interface.
type MethodSig struct {
	At         Pos
	Name       string
	TypeParams []*TypeParam
	Params     []*Param
	Return     TypeExpr
}

// AssocType is an associated type: `type Name [= Type]` inside an
// interface, where Type is the type every implementation must resolve it
// to (nil when free), or `type Name = Type` inside an impl block, where
// Type is what the impl provides.
type AssocType struct {
	At   Pos
	Name string
	Type TypeExpr
}

// InterfaceDecl is `interface Name<T> { … }`.
type InterfaceDecl struct {
	At         Pos
	Doc        string
	Attrs      []*Attribute
	Pub        bool
	Name       string
	NamePos    Pos
	TypeParams []*TypeParam
	Methods    []*MethodSig
	Types      []*AssocType
}

// ImplBlock is `impl Name { type … fn … }`.
type ImplBlock struct {
	At      Pos
	Doc     string
	Attrs   []*Attribute
	Name    string
	NamePos Pos
	Types   []*AssocType
	Methods []*FnDecl
}

// SkillField is one `name expr` line of a skill body.
type SkillField struct {
	At    Pos
	Name  string
	Value Expr
}

// SkillDecl is `skill name { field expr … }` (later tier; parsed only).
type SkillDecl struct {
	At     Pos
	Doc    string
	Attrs  []*Attribute
	Pub    bool
	Name   string
	Fields []*SkillField
}

// EvalPackItem is one item of an eval_pack body: a `key: expr` field, a
// `summarize { … }` block, or a statement.
type EvalPackItem struct {
	At        Pos
	Key       string // field form
	Value     Expr   // field form
	Summarize *Block // summarize form
	Stmt      Stmt   // statement form
}

// EvalPackDecl is `eval_pack name "title" { … }` (later tier; parsed only).
type EvalPackDecl struct {
	At    Pos
	Doc   string
	Attrs []*Attribute
	Pub   bool
	Name  string
	Title string
	Items []*EvalPackItem
}

// OverrideDecl is `override name(a, b) { … }` inside a pipeline (ignored at run time).
type OverrideDecl struct {
	At     Pos
	Name   string
	Params []string
	Body   *Block
}

// ---- statements ----

// Block is `{ statements }`.
type Block struct {
	At    Pos
	Stmts []Stmt
	End   Pos // position of the closing brace
}

// LetStmt is `let|var|const pattern [: T] = value`, optionally `pub` at top level.
type LetStmt struct {
	At      Pos
	Doc     string // the doc comment of a pub top-level binding
	Kind    BindingKind
	Pub     bool
	Pattern Pattern
	Type    TypeExpr // only with an IdentPattern
	Value   Expr
}

// AssignStmt is `target op value`; Target is an Ident optionally followed by
// a chain of MemberExpr/IndexExpr; Op is "=", "+=", "-=", "*=", "/=" or "%=".
type AssignStmt struct {
	At     Pos
	Target Expr
	Op     string
	Value  Expr
}

// TargetRoot splits an assignment target into the variable it writes (x
// in `x = …`, `x.f = …`, `x[k] = …`; nil for any other target) and the
// index expressions along its path, the last written first.
func TargetRoot(t Expr) (*Ident, []Expr) {
	var idx []Expr
	for {
		switch x := t.(type) {
		case *Ident:
			return x, idx
		case *MemberExpr:
			t = x.X
		case *IndexExpr:
			idx = append(idx, x.Index)
			t = x.X
		default:
			return nil, idx
		}
	}
}

// ExprStmt is an expression evaluated for its effect. Expression forms that
// read like statements (if, match, try, retry, parallel, deadline, select)
// always appear wrapped in an ExprStmt.
type ExprStmt struct {
	X Expr
}

// ForStmt is `for pattern in iter { body }` or `for (a, b) in iter { body }`.
type ForStmt struct {
	At      Pos
	Pattern Pattern // IdentPattern, DictPattern, ListPattern or PairPattern
	Iter    Expr
	Body    *Block
}

// WhileStmt is `while cond { body }`.
type WhileStmt struct {
	At   Pos
	Cond Expr
	Body *Block
}

// DeferStmt is `defer { body }`.
type DeferStmt struct {
	At   Pos
	Body *Block
}

// ReturnStmt is `return [value]`.
type ReturnStmt struct {
	At    Pos
	Value Expr // nil for a bare return
}

// ThrowStmt is `throw value`.
type ThrowStmt struct {
	At    Pos
	Value Expr
}

// GuardStmt is `guard cond else { body }`.
type GuardStmt struct {
	At   Pos
	Cond Expr
	Else *Block
}

// RequireStmt is `require cond [, message]`.
type RequireStmt struct {
	At      Pos
	Cond    Expr
	Message Expr // nil when absent
}

// MutexStmt is `mutex { body }`, `mutex(key) { body }` or
// `mutex(key, timeout) { body }`.
type MutexStmt struct {
	At           Pos
	Key          Expr // nil for the bare form, whose key is its call site
	Timeout      Expr // nil when absent: a duration or an options dict {timeout}
	TimeoutNamed bool // written `timeout: d`
	Body         *Block
}

// CostRouteStmt is `cost_route { key: value … body }`, a later-tier block
// form the parser accepts (docs/spec/newer.md §1.13): option entries, then
// the body's statements. The reference leaves its run-time meaning out;
// here the option values are evaluated in order and the body runs as a
// block.
type CostRouteStmt struct {
	At      Pos
	Options []*DictEntry
	Body    *Block
}

// ScopeStmt is `scope { body }`, a task nursery: the tasks spawned while
// the body runs are joined when it ends, and the first failure among them
// cancels the others and is raised (docs/spec/newer.md §1.13).
type ScopeStmt struct {
	At   Pos
	Body *Block
}

// BreakStmt is `break`.
type BreakStmt struct{ At Pos }

// ContinueStmt is `continue`.
type ContinueStmt struct{ At Pos }

// YieldStmt is `yield [value]`.
type YieldStmt struct {
	At    Pos
	Value Expr
}

// EmitStmt is `emit value`.
type EmitStmt struct {
	At    Pos
	Value Expr
}

// ---- patterns ----

// IdentPattern binds one name (`_` binds nothing).
type IdentPattern struct {
	At   Pos
	Name string
}

// DictPatItem is `name`, `key: alias`, either with `= default`, or `...rest`.
type DictPatItem struct {
	At      Pos
	Key     string
	Alias   string // equals Key when no alias was written; "_" discards
	Default Expr
	Rest    bool // `...Key`
}

// DictPattern is `{ items }`.
type DictPattern struct {
	At    Pos
	Items []*DictPatItem
}

// ListPatItem is `name`, `name = default`, `_` or `...rest`.
type ListPatItem struct {
	At      Pos
	Name    string
	Default Expr
	Rest    bool
}

// ListPattern is `[ items ]`.
type ListPattern struct {
	At    Pos
	Items []*ListPatItem
}

// PairPattern is the `(a, b)` form of a for loop.
type PairPattern struct {
	At     Pos
	First  string
	Second string
}

// PatternNames calls fn for each name p binds, in source order, with the
// node that binds it: the pattern itself, or an item of a dict or list
// pattern. `_` binds nothing.
func PatternNames(p Pattern, fn func(name string, node Node)) {
	switch p := p.(type) {
	case *IdentPattern:
		if p.Name != "_" {
			fn(p.Name, p)
		}
	case *DictPattern:
		for _, it := range p.Items {
			name := it.Alias
			if it.Rest || name == "" {
				name = it.Key
			}
			if name != "_" {
				fn(name, it)
			}
		}
	case *ListPattern:
		for _, it := range p.Items {
			if it.Name != "_" && it.Name != "" {
				fn(it.Name, it)
			}
		}
	case *PairPattern:
		if p.First != "_" {
			fn(p.First, p)
		}
		if p.Second != "_" {
			fn(p.Second, p)
		}
	}
}

// ---- expressions ----

// Ident is a name reference.
type Ident struct {
	At   Pos
	Name string
}

// IntLit is an integer literal.
type IntLit struct {
	At    Pos
	Value int64
}

// FloatLit is a float literal (also an integer literal beyond the int64 range).
type FloatLit struct {
	At    Pos
	Value float64
}

// DurationLit is a duration literal in milliseconds.
type DurationLit struct {
	At Pos
	Ms int64
}

// StringLit is a string without interpolation (plain, raw or triple-quoted).
type StringLit struct {
	At    Pos
	Value string
	Raw   bool
}

// StrPart is one part of an interpolated string: literal text or an expression.
// Expr is nil for a literal part.
type StrPart struct {
	Lit  string
	Expr Expr
}

// InterpString is a string containing `${…}` interpolations.
type InterpString struct {
	At    Pos
	Parts []StrPart
}

// BoolLit is true or false.
type BoolLit struct {
	At    Pos
	Value bool
}

// NilLit is nil.
type NilLit struct{ At Pos }

// SpreadExpr is `...x` inside a list literal, a call or a dict literal.
type SpreadExpr struct {
	At Pos
	X  Expr
}

// ListLit is `[a, ...b, c]`.
type ListLit struct {
	At    Pos
	Elems []Expr // may contain *SpreadExpr
}

// DictEntry is one dict literal item. Exactly one of KeyName (identifier or
// keyword, or a string literal's value when KeyIsString), KeyExpr (computed
// `[expr]` key) or Spread is set.
type DictEntry struct {
	At          Pos
	KeyName     string
	KeyIsString bool
	KeyExpr     Expr
	Spread      Expr
	Value       Expr
}

// DictLit is `{k: v, ...}`.
type DictLit struct {
	At      Pos
	Entries []*DictEntry
}

// ClosureKind tells closure literal syntaxes apart.
type ClosureKind int

const (
	ClosureBrace ClosureKind = iota // `{ x -> … }`
	ClosureFn                       // anonymous `fn(x) { … }`
)

// ClosureLit is a closure literal.
type ClosureLit struct {
	At     Pos
	Kind   ClosureKind
	Params []*Param
	Return TypeExpr
	Throws TypeExpr
	Body   *Block
}

// BinaryExpr is `X op Y` for the operators || && == != < > <= >= in "not in"
// + - ?? * / % **.
type BinaryExpr struct {
	At   Pos // position of the operator
	Op   string
	X, Y Expr
}

// UnaryExpr is `!x`, `-x` or `try* x` (Op "try*").
type UnaryExpr struct {
	At Pos
	Op string
	X  Expr
}

// TernaryExpr is `cond ? then : else`.
type TernaryExpr struct {
	At   Pos
	Cond Expr
	Then Expr
	Else Expr
}

// RangeExpr is `start to end [exclusive]`.
type RangeExpr struct {
	At        Pos
	Start     Expr
	End       Expr
	Exclusive bool
}

// PipeExpr is `x |> f`.
type PipeExpr struct {
	At Pos
	X  Expr
	F  Expr
}

// MemberExpr is `x.name` or `x?.name`.
type MemberExpr struct {
	At       Pos
	Dot      Pos // the `.` or `?.` (zero when built, not parsed): where a failed read points
	X        Expr
	Name     string
	Optional bool
}

// IndexExpr is `x[i]` or `x?[i]`.
type IndexExpr struct {
	At       Pos
	X        Expr
	Index    Expr
	Optional bool
}

// SliceExpr is `x[lo:hi]` with either bound optional, or `x?.[lo:hi]`
// (nil when x is nil).
type SliceExpr struct {
	At       Pos
	X        Expr
	Lo, Hi   Expr
	Optional bool
}

// CallExpr is `name(args)` or `name<T>(args)`; calls attach only to a plain identifier.
type CallExpr struct {
	At       Pos
	Fn       *Ident
	TypeArgs []TypeExpr
	Args     []Expr // may contain *SpreadExpr
}

// ValueCall is a call whose callee is any expression other than a plain
// name: `f()(x)`, `(expr)(x)`, `d.make()(1)`, `xs[0](2)` (docs/spec/newer.md
// §1.11). The callee is evaluated, then called.
type ValueCall struct {
	At   Pos // the opening parenthesis
	Fn   Expr
	Args []Expr // may contain *SpreadExpr
}

// MethodCall is `x.name(args)` or `x?.name(args)`, with type arguments
// `x.name<T>(args)`.
type MethodCall struct {
	At       Pos
	X        Expr
	Name     string
	TypeArgs []TypeExpr
	Args     []Expr
	Optional bool
}

// PropagateExpr is postfix `x?` (Result propagation).
type PropagateExpr struct {
	At Pos
	X  Expr
}

// NonNilExpr is postfix `x!`, the non-null assertion (docs/spec/newer.md §1.4).
type NonNilExpr struct {
	At Pos // of the `!`
	X  Expr
}

// StructLit is `Name { field: value, … }`, or `ns.Name { … }` for a struct
// that the namespace import ns exports (docs/spec/newer.md §1.3).
type StructLit struct {
	At     Pos
	NS     *Ident // the namespace of a qualified literal, else nil
	Name   string
	Fields []*DictEntry
}

// IfExpr is `if cond { … } else …`; Else is nil, a *Block or an *IfExpr.
type IfExpr struct {
	At   Pos
	Cond Expr
	Then *Block
	Else Node
}

// MatchArm is `p1 | p2 if guard -> { body }`. Patterns are expressions
// interpreted by the rules of docs/spec/language.md §7.4.
type MatchArm struct {
	At       Pos
	Patterns []Expr
	Guard    Expr
	Body     *Block
}

// MatchExpr is `match x { arms }`.
type MatchExpr struct {
	At   Pos
	X    Expr
	Arms []*MatchArm
}

// TryExpr is `try { … } [catch [(e[: T])] { … }] [finally { … }]`.
type TryExpr struct {
	At        Pos
	Body      *Block
	HasCatch  bool
	CatchVar  string   // "" when the catch binds nothing
	CatchPos  Pos      // where CatchVar is written (zero when it is "")
	CatchType TypeExpr // nil when untyped
	Catch     *Block
	Finally   *Block
}

// RetryExpr is `retry N { body }`.
type RetryExpr struct {
	At    Pos
	Count Expr
	Body  *Block
}

// ParallelMode tells the parallel forms apart.
type ParallelMode int

const (
	ParallelCount  ParallelMode = iota // parallel N { i -> … }
	ParallelEach                       // parallel each xs { x -> … }
	ParallelSettle                     // parallel settle xs { x -> … }
)

// ParallelExpr is a `parallel` form.
type ParallelExpr struct {
	At            Pos
	Mode          ParallelMode
	Arg           Expr
	MaxConcurrent Expr // nil unless `with { max_concurrent: K }`
	Param         string
	Body          *Block
	Stream        bool // `as stream`
}

// DeadlineExpr is `deadline d { body }`.
type DeadlineExpr struct {
	At       Pos
	Duration Expr
	Body     *Block
}

// MutexExpr is `mutex { body }` or `mutex(key) { body }` where an
// expression is expected (`let v = mutex("k") { … }`); its value is the
// body's (docs/spec/newer.md §1.7). At statement position the form is a
// MutexStmt.
type MutexExpr struct {
	At           Pos
	Key          Expr // nil for the bare form, whose key is its call site
	Timeout      Expr // as MutexStmt.Timeout
	TimeoutNamed bool
	Body         *Block
}

// SpawnExpr is `spawn { body }`.
type SpawnExpr struct {
	At   Pos
	Body *Block
}

// SelectCase is `name from channel { body }`.
type SelectCase struct {
	At      Pos
	Name    string
	Channel Expr
	Body    *Block
}

// SelectExpr is `select { cases, timeout d { … } | default { … } }`.
type SelectExpr struct {
	At          Pos
	Cases       []*SelectCase
	Timeout     Expr
	TimeoutBody *Block
	Default     *Block
}

// ---- type expressions ----

// NamedType is `Name` or `Name<Args>` (including int, string, list<T>,
// dict<K, V>, Result<T, E>, any, never, Harness…).
type NamedType struct {
	At   Pos
	Name string
	Args []TypeExpr
}

// ListType is `[T]`.
type ListType struct {
	At   Pos
	Elem TypeExpr
}

// ShapeField is one field of a shape type.
type ShapeField struct {
	At       Pos
	Name     string
	Optional bool
	Type     TypeExpr
}

// ShapeType is `{name: T, age?: U}`, optionally open with a row tail
// `...rest` or `...dict<string, V>` (Rest) standing for the other fields.
type ShapeType struct {
	At     Pos
	Fields []*ShapeField
	Rest   TypeExpr // nil for a closed shape
}

// FnType is `fn(A, B) -> R`.
type FnType struct {
	At     Pos
	Params []TypeExpr
	Return TypeExpr
}

// UnionType is `A | B | …`.
type UnionType struct {
	At    Pos
	Types []TypeExpr
}

// InterType is `A & B & …`.
type InterType struct {
	At    Pos
	Types []TypeExpr
}

// OptionalType is `T?`.
type OptionalType struct {
	At   Pos
	Elem TypeExpr
}

// LiteralType is a string or integer literal type (`"pass"`, `0`, `-1`).
type LiteralType struct {
	At    Pos
	Value any // string or int64
}

// NilType is the `nil` type.
type NilType struct{ At Pos }

// AttrsOf is the attributes written on a declaration (none for any other
// statement).
func AttrsOf(s Stmt) []*Attribute {
	switch s := s.(type) {
	case *FnDecl:
		return s.Attrs
	case *PipelineDecl:
		return s.Attrs
	case *ToolDecl:
		return s.Attrs
	case *StructDecl:
		return s.Attrs
	case *EnumDecl:
		return s.Attrs
	case *TypeDecl:
		return s.Attrs
	case *InterfaceDecl:
		return s.Attrs
	case *ImplBlock:
		return s.Attrs
	case *SkillDecl:
		return s.Attrs
	case *EvalPackDecl:
		return s.Attrs
	}
	return nil
}

// ---- Position and marker methods ----

func (n *ImportDecl) Position() Pos    { return n.At }
func (n *FnDecl) Position() Pos        { return n.At }
func (n *PipelineDecl) Position() Pos  { return n.At }
func (n *ToolDecl) Position() Pos      { return n.At }
func (n *StructDecl) Position() Pos    { return n.At }
func (n *EnumDecl) Position() Pos      { return n.At }
func (n *TypeDecl) Position() Pos      { return n.At }
func (n *InterfaceDecl) Position() Pos { return n.At }
func (n *ImplBlock) Position() Pos     { return n.At }
func (n *SkillDecl) Position() Pos     { return n.At }
func (n *EvalPackDecl) Position() Pos  { return n.At }
func (n *OverrideDecl) Position() Pos  { return n.At }
func (n *Block) Position() Pos         { return n.At }
func (n *LetStmt) Position() Pos       { return n.At }
func (n *AssignStmt) Position() Pos    { return n.At }
func (n *ExprStmt) Position() Pos      { return n.X.Position() }
func (n *ForStmt) Position() Pos       { return n.At }
func (n *WhileStmt) Position() Pos     { return n.At }
func (n *DeferStmt) Position() Pos     { return n.At }
func (n *ReturnStmt) Position() Pos    { return n.At }
func (n *ThrowStmt) Position() Pos     { return n.At }
func (n *GuardStmt) Position() Pos     { return n.At }
func (n *RequireStmt) Position() Pos   { return n.At }
func (n *MutexStmt) Position() Pos     { return n.At }
func (n *ScopeStmt) Position() Pos     { return n.At }
func (n *CostRouteStmt) Position() Pos { return n.At }
func (n *BreakStmt) Position() Pos     { return n.At }
func (n *ContinueStmt) Position() Pos  { return n.At }
func (n *YieldStmt) Position() Pos     { return n.At }
func (n *EmitStmt) Position() Pos      { return n.At }
func (n *IdentPattern) Position() Pos  { return n.At }
func (n *DictPattern) Position() Pos   { return n.At }
func (n *ListPattern) Position() Pos   { return n.At }
func (n *PairPattern) Position() Pos   { return n.At }
func (n *Ident) Position() Pos         { return n.At }
func (n *IntLit) Position() Pos        { return n.At }
func (n *FloatLit) Position() Pos      { return n.At }
func (n *DurationLit) Position() Pos   { return n.At }
func (n *StringLit) Position() Pos     { return n.At }
func (n *InterpString) Position() Pos  { return n.At }
func (n *BoolLit) Position() Pos       { return n.At }
func (n *NilLit) Position() Pos        { return n.At }
func (n *SpreadExpr) Position() Pos    { return n.At }
func (n *ListLit) Position() Pos       { return n.At }
func (n *DictLit) Position() Pos       { return n.At }
func (n *ClosureLit) Position() Pos    { return n.At }
func (n *BinaryExpr) Position() Pos    { return n.At }
func (n *UnaryExpr) Position() Pos     { return n.At }
func (n *TernaryExpr) Position() Pos   { return n.At }
func (n *RangeExpr) Position() Pos     { return n.At }
func (n *PipeExpr) Position() Pos      { return n.At }
func (n *MemberExpr) Position() Pos    { return n.At }
func (n *IndexExpr) Position() Pos     { return n.At }
func (n *SliceExpr) Position() Pos     { return n.At }
func (n *CallExpr) Position() Pos      { return n.At }
func (n *MethodCall) Position() Pos    { return n.At }
func (n *ValueCall) Position() Pos     { return n.At }
func (n *PropagateExpr) Position() Pos { return n.At }
func (n *NonNilExpr) Position() Pos    { return n.X.Position() }
func (n *StructLit) Position() Pos     { return n.At }
func (n *IfExpr) Position() Pos        { return n.At }
func (n *MatchExpr) Position() Pos     { return n.At }
func (n *TryExpr) Position() Pos       { return n.At }
func (n *RetryExpr) Position() Pos     { return n.At }
func (n *ParallelExpr) Position() Pos  { return n.At }
func (n *DeadlineExpr) Position() Pos  { return n.At }
func (n *MutexExpr) Position() Pos     { return n.At }
func (n *SpawnExpr) Position() Pos     { return n.At }
func (n *SelectExpr) Position() Pos    { return n.At }
func (n *NamedType) Position() Pos     { return n.At }
func (n *ListType) Position() Pos      { return n.At }
func (n *ShapeType) Position() Pos     { return n.At }
func (n *FnType) Position() Pos        { return n.At }
func (n *UnionType) Position() Pos     { return n.At }
func (n *InterType) Position() Pos     { return n.At }
func (n *OptionalType) Position() Pos  { return n.At }
func (n *LiteralType) Position() Pos   { return n.At }
func (n *NilType) Position() Pos       { return n.At }

func (*ImportDecl) stmtNode()    {}
func (*FnDecl) stmtNode()        {}
func (*PipelineDecl) stmtNode()  {}
func (*ToolDecl) stmtNode()      {}
func (*StructDecl) stmtNode()    {}
func (*EnumDecl) stmtNode()      {}
func (*TypeDecl) stmtNode()      {}
func (*InterfaceDecl) stmtNode() {}
func (*ImplBlock) stmtNode()     {}
func (*SkillDecl) stmtNode()     {}
func (*EvalPackDecl) stmtNode()  {}
func (*OverrideDecl) stmtNode()  {}
func (*LetStmt) stmtNode()       {}
func (*AssignStmt) stmtNode()    {}
func (*ExprStmt) stmtNode()      {}
func (*ForStmt) stmtNode()       {}
func (*WhileStmt) stmtNode()     {}
func (*DeferStmt) stmtNode()     {}
func (*ReturnStmt) stmtNode()    {}
func (*ThrowStmt) stmtNode()     {}
func (*GuardStmt) stmtNode()     {}
func (*RequireStmt) stmtNode()   {}
func (*MutexStmt) stmtNode()     {}
func (*ScopeStmt) stmtNode()     {}
func (*CostRouteStmt) stmtNode() {}
func (*BreakStmt) stmtNode()     {}
func (*ContinueStmt) stmtNode()  {}
func (*YieldStmt) stmtNode()     {}
func (*EmitStmt) stmtNode()      {}

func (*IdentPattern) patternNode() {}
func (*DictPattern) patternNode()  {}
func (*ListPattern) patternNode()  {}
func (*PairPattern) patternNode()  {}

func (*Ident) exprNode()         {}
func (*IntLit) exprNode()        {}
func (*FloatLit) exprNode()      {}
func (*DurationLit) exprNode()   {}
func (*StringLit) exprNode()     {}
func (*InterpString) exprNode()  {}
func (*BoolLit) exprNode()       {}
func (*NilLit) exprNode()        {}
func (*SpreadExpr) exprNode()    {}
func (*ListLit) exprNode()       {}
func (*DictLit) exprNode()       {}
func (*ClosureLit) exprNode()    {}
func (*BinaryExpr) exprNode()    {}
func (*UnaryExpr) exprNode()     {}
func (*TernaryExpr) exprNode()   {}
func (*RangeExpr) exprNode()     {}
func (*PipeExpr) exprNode()      {}
func (*MemberExpr) exprNode()    {}
func (*IndexExpr) exprNode()     {}
func (*SliceExpr) exprNode()     {}
func (*CallExpr) exprNode()      {}
func (*MethodCall) exprNode()    {}
func (*ValueCall) exprNode()     {}
func (*PropagateExpr) exprNode() {}
func (*NonNilExpr) exprNode()    {}
func (*StructLit) exprNode()     {}
func (*IfExpr) exprNode()        {}
func (*MatchExpr) exprNode()     {}
func (*TryExpr) exprNode()       {}
func (*RetryExpr) exprNode()     {}
func (*ParallelExpr) exprNode()  {}
func (*DeadlineExpr) exprNode()  {}
func (*MutexExpr) exprNode()     {}
func (*SpawnExpr) exprNode()     {}
func (*SelectExpr) exprNode()    {}

func (*NamedType) typeNode()    {}
func (*ListType) typeNode()     {}
func (*ShapeType) typeNode()    {}
func (*FnType) typeNode()       {}
func (*UnionType) typeNode()    {}
func (*InterType) typeNode()    {}
func (*OptionalType) typeNode() {}
func (*LiteralType) typeNode()  {}
func (*NilType) typeNode()      {}
