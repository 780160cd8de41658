package compiler

import (
	"fmt"
	"strings"
)

// Disassemble renders a function's code, one instruction per line, with
// nested functions after it. It is a debugging aid for people working on
// the compiler; nothing in the build calls it.
func Disassemble(f *Func) string {
	var sb strings.Builder
	disassemble(&sb, f, "")
	return sb.String()
}

func disassemble(sb *strings.Builder, f *Func, indent string) {
	name := f.Name
	if name == "" {
		name = "<anon>"
	}
	fmt.Fprintf(sb, "%sfunc %s (locals %d, stack %d)\n", indent, name, f.NumLocals, f.MaxStack)
	for pc := 0; pc < len(f.Code); {
		op := Opcode(f.Code[pc])
		n := Info[op].Operands
		fmt.Fprintf(sb, "%s  %4d  %-16s", indent, pc, op)
		for i := 1; i <= n && pc+i < len(f.Code); i++ {
			fmt.Fprintf(sb, " %d", f.Code[pc+i])
		}
		sb.WriteByte('\n')
		pc += 1 + n
	}
	for _, child := range f.Funcs {
		disassemble(sb, child, indent+"  ")
	}
}
