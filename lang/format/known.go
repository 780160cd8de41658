package format

import (
	"reflect"
	"strings"
	"sync"

	"github.com/harnlang/harn/lang/syntax"
)

// knownSet holds, for each node type, the fields the printer prints. A
// node carrying a non-zero field that is not listed (syntax added to
// lang/syntax after the printer) makes the formatter refuse the file with
// an UnsupportedError instead of dropping what it does not know. It is
// built on the first use: every `harn` start links this package, few
// format anything.
var knownSet = sync.OnceValue(func() map[string]map[string]bool {
	m := map[string]map[string]bool{}
	for t, fs := range known() {
		m[t] = map[string]bool{}
		for _, f := range fs {
			m[t][f] = true
		}
	}
	return m
})

func known() map[string][]string {
	return map[string][]string{
		"Pos":           {"Col", "Line"},
		"File":          {"Doc", "Items", "Path"},
		"ImportDecl":    {"At", "Names", "Namespace", "Path", "PathPos", "Pub"},
		"Attribute":     {"Args", "At", "Name"},
		"AttrArg":       {"Name", "Value"},
		"Param":         {"At", "Default", "Name", "Rest", "Type"},
		"TypeParam":     {"At", "Bounds", "BoundsAt", "Name", "Variance"},
		"WhereClause":   {"At", "Bounds", "BoundsAt", "Param"},
		"FnDecl":        {"At", "Attrs", "Body", "Doc", "Gen", "Name", "NamePos", "Params", "Pub", "Return", "Throws", "TypeParams", "Where"},
		"PipelineDecl":  {"At", "Attrs", "Body", "Doc", "Extends", "Name", "NamePos", "Params", "Pub", "Return", "Throws"},
		"ToolDecl":      {"At", "Attrs", "Body", "Description", "Doc", "Name", "NamePos", "Params", "Pub", "Return", "Throws"},
		"FieldDecl":     {"At", "Name", "Optional", "Type"},
		"StructDecl":    {"At", "Attrs", "Doc", "Fields", "Name", "NamePos", "Pub", "TypeParams"},
		"Variant":       {"At", "Name", "Params"},
		"EnumDecl":      {"At", "Attrs", "Doc", "Name", "NamePos", "Pub", "TypeParams", "Variants"},
		"TypeDecl":      {"At", "Attrs", "Doc", "Name", "NamePos", "Pub", "Type", "TypeParams"},
		"MethodSig":     {"At", "Name", "Params", "Return", "TypeParams"},
		"AssocType":     {"At", "Name", "Type"},
		"InterfaceDecl": {"At", "Attrs", "Doc", "Methods", "Name", "NamePos", "Pub", "TypeParams", "Types"},
		"ImplBlock":     {"At", "Attrs", "Doc", "Methods", "Name", "NamePos", "Types"},
		"SkillField":    {"At", "Name", "Value"},
		"SkillDecl":     {"At", "Attrs", "Doc", "Fields", "Name", "Pub"},
		"EvalPackItem":  {"At", "Key", "Stmt", "Summarize", "Value"},
		"EvalPackDecl":  {"At", "Attrs", "Doc", "Items", "Name", "Pub", "Title"},
		"OverrideDecl":  {"At", "Body", "Name", "Params"},
		"Block":         {"At", "End", "Stmts"},
		"LetStmt":       {"At", "Doc", "Kind", "Pattern", "Pub", "Type", "Value"},
		"AssignStmt":    {"At", "Op", "Target", "Value"},
		"ExprStmt":      {"X"},
		"ForStmt":       {"At", "Body", "Iter", "Pattern"},
		"WhileStmt":     {"At", "Body", "Cond"},
		"DeferStmt":     {"At", "Body"},
		"ReturnStmt":    {"At", "Value"},
		"ThrowStmt":     {"At", "Value"},
		"GuardStmt":     {"At", "Cond", "Else"},
		"RequireStmt":   {"At", "Cond", "Message"},
		"MutexStmt":     {"At", "Body", "Key", "Timeout", "TimeoutNamed"},
		"ScopeStmt":     {"At", "Body"},
		"CostRouteStmt": {"At", "Body", "Options"},
		"BreakStmt":     {"At"},
		"ContinueStmt":  {"At"},
		"YieldStmt":     {"At", "Value"},
		"EmitStmt":      {"At", "Value"},
		"IdentPattern":  {"At", "Name"},
		"DictPatItem":   {"Alias", "At", "Default", "Key", "Rest"},
		"DictPattern":   {"At", "Items"},
		"ListPatItem":   {"At", "Default", "Name", "Rest"},
		"ListPattern":   {"At", "Items"},
		"PairPattern":   {"At", "First", "Second"},
		"Ident":         {"At", "Name"},
		"IntLit":        {"At", "Value"},
		"FloatLit":      {"At", "Value"},
		"DurationLit":   {"At", "Ms"},
		"StringLit":     {"At", "Raw", "Value"},
		"StrPart":       {"Expr", "Lit"},
		"InterpString":  {"At", "Parts"},
		"BoolLit":       {"At", "Value"},
		"NilLit":        {"At"},
		"SpreadExpr":    {"At", "X"},
		"ListLit":       {"At", "Elems"},
		"DictEntry":     {"At", "KeyExpr", "KeyIsString", "KeyName", "Spread", "Value"},
		"DictLit":       {"At", "Entries"},
		"ClosureLit":    {"At", "Body", "Kind", "Params", "Return", "Throws"},
		"BinaryExpr":    {"At", "Op", "X", "Y"},
		"UnaryExpr":     {"At", "Op", "X"},
		"TernaryExpr":   {"At", "Cond", "Else", "Then"},
		"RangeExpr":     {"At", "End", "Exclusive", "Start"},
		"PipeExpr":      {"At", "F", "X"},
		"MemberExpr":    {"At", "Dot", "Name", "Optional", "X"},
		"IndexExpr":     {"At", "Index", "Optional", "X"},
		"SliceExpr":     {"At", "Hi", "Lo", "Optional", "X"},
		"CallExpr":      {"Args", "At", "Fn", "TypeArgs"},
		"MethodCall":    {"Args", "At", "Name", "Optional", "TypeArgs", "X"},
		"ValueCall":     {"Args", "At", "Fn"},
		"PropagateExpr": {"At", "X"},
		"NonNilExpr":    {"At", "X"},
		"StructLit":     {"At", "Fields", "NS", "Name"},
		"IfExpr":        {"At", "Cond", "Else", "Then"},
		"MatchArm":      {"At", "Body", "Guard", "Patterns"},
		"MatchExpr":     {"Arms", "At", "X"},
		"TryExpr":       {"At", "Body", "Catch", "CatchPos", "CatchType", "CatchVar", "Finally", "HasCatch"},
		"RetryExpr":     {"At", "Body", "Count"},
		"ParallelExpr":  {"Arg", "At", "Body", "MaxConcurrent", "Mode", "Param", "Stream"},
		"DeadlineExpr":  {"At", "Body", "Duration"},
		"SpawnExpr":     {"At", "Body"},
		"MutexExpr":     {"At", "Body", "Key", "Timeout", "TimeoutNamed"},
		"SelectCase":    {"At", "Body", "Channel", "Name"},
		"SelectExpr":    {"At", "Cases", "Default", "Timeout", "TimeoutBody"},
		"NamedType":     {"Args", "At", "Name"},
		"ListType":      {"At", "Elem"},
		"ShapeField":    {"At", "Name", "Optional", "Type"},
		"ShapeType":     {"At", "Fields", "Rest"},
		"FnType":        {"At", "Params", "Return"},
		"UnionType":     {"At", "Types"},
		"InterType":     {"At", "Types"},
		"OptionalType":  {"At", "Elem"},
		"LiteralType":   {"At", "Value"},
		"NilType":       {"At"},
	}
}

// checkKnown refuses a node with fields the printer does not know.
func checkKnown(n any) {
	v := reflect.ValueOf(n)
	for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
		if v.IsNil() {
			return
		}
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return
	}
	name := v.Type().Name()
	fields, ok := knownSet()[name]
	if !ok {
		panic(unsupported("syntax of kind " + name))
	}
	for i := 0; i < v.NumField(); i++ {
		f := v.Type().Field(i)
		if f.IsExported() && !fields[f.Name] && !v.Field(i).IsZero() {
			panic(unsupported("the " + strings.ToLower(f.Name) + " of a " + name))
		}
	}
}

var _ = syntax.Pos{}
