package lint

import (
	"github.com/harnlang/harn/lang/check"
	"github.com/harnlang/harn/lang/syntax"
)

// preferPick reports a literal that copies fields one by one. There is
// no automatic fix yet: lang/format prints literals from their source
// tokens, and the key strings of the pick call have none.
func (l *linter) preferPick(e *syntax.DictLit) {
	fc := check.CopiedFields(e, l.file.Comments)
	if fc == nil || l.info == nil || check.BindsName(l.info, "pick") {
		return
	}
	l.report(PreferPick, e.At, 1, "", nil, "%s (replace it with `%s`)", fc.Message(), fc.Pick())
}
