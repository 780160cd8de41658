package syntax

// ExprStart is the position of an expression's first token. Position
// reports an operator's position for binary, pipe and postfix forms;
// tools that place text before an expression (the formatter, lint fixes)
// need where its leftmost operand begins.
func ExprStart(x Expr) Pos {
	return Leftmost(x).Position()
}

// Leftmost is the operand an expression starts with: x itself unless x is
// a binary, pipe, ternary, range or postfix form, whose first token is
// its left operand's.
func Leftmost(x Expr) Expr {
	for {
		switch n := x.(type) {
		case *BinaryExpr:
			x = n.X
		case *TernaryExpr:
			x = n.Cond
		case *RangeExpr:
			x = n.Start
		case *PipeExpr:
			x = n.X
		case *MemberExpr:
			x = n.X
		case *IndexExpr:
			x = n.X
		case *SliceExpr:
			x = n.X
		case *MethodCall:
			x = n.X
		case *ValueCall:
			x = n.Fn
		case *PropagateExpr:
			x = n.X
		case *NonNilExpr:
			x = n.X
		default:
			return x
		}
	}
}
