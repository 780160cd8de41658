package syntax

// Precedence levels of docs/spec/language.md §2.5, loosest first. The
// parser climbs the binary levels (PrecOr to PrecMul) and lang/format
// parenthesises an operand whose level is below what its position
// requires: the tree keeps no parentheses.
const (
	PrecPipe = iota + 1
	PrecRange
	PrecTernary
	PrecOr
	PrecAnd
	PrecEq
	PrecCmp
	PrecAdd
	PrecNil
	PrecMul
	PrecUnary
	PrecPower
	PrecPostfix
	PrecPrimary
)

// BinaryPrec is the level of a binary operator as BinaryExpr.Op spells
// it ("not in", "**" included), or 0 for any other string.
func BinaryPrec(op string) int {
	switch op {
	case "||":
		return PrecOr
	case "&&":
		return PrecAnd
	case "==", "!=":
		return PrecEq
	case "<", ">", "<=", ">=", "in", "not in":
		return PrecCmp
	case "+", "-":
		return PrecAdd
	case "??":
		return PrecNil
	case "*", "/", "%":
		return PrecMul
	case "**":
		return PrecPower
	}
	return 0
}

// Prec is the level of the expression x.
func Prec(x Expr) int {
	switch x := x.(type) {
	case *PipeExpr:
		return PrecPipe
	case *RangeExpr:
		return PrecRange
	case *TernaryExpr:
		return PrecTernary
	case *BinaryExpr:
		return BinaryPrec(x.Op)
	case *UnaryExpr:
		return PrecUnary
	case *MemberExpr, *IndexExpr, *SliceExpr, *CallExpr, *MethodCall,
		*ValueCall, *PropagateExpr, *NonNilExpr, *StructLit:
		return PrecPostfix
	}
	return PrecPrimary
}
