package lint

import (
	"fmt"

	"github.com/harnlang/harn/lang/format"
	"github.com/harnlang/harn/lang/resolve"
	"github.com/harnlang/harn/lang/syntax"
)

// Analyzer parses and resolves a version of the file being fixed (the
// caller decides how imports load; info may be nil when the file does not
// resolve). A parse failure is returned as the error; so are the errors of
// a file the caller does not accept (harn lint --fix and the language
// server refuse a file harn check rejects). Every fixed version is
// analysed before it is returned, so a fix that would break the program
// fails with that error instead.
type Analyzer func(src []byte) (*syntax.File, *resolve.Info, error)

// maxRounds bounds fix rounds: a fix can expose another finding (deleting
// unreachable code can leave a variable unused).
const maxRounds = 4

// Fix applies every fix lint offers for the file, re-analysing after each
// round, and returns the fixed file formatted by lang/format together with
// the number of fixes applied. When there is nothing to fix the result is
// the formatted file.
func Fix(path string, src []byte, analyze Analyzer, opts Options) (out []byte, fixed int, err error) {
	for round := 0; ; round++ {
		f, info, err := analyze(src)
		if err != nil {
			return nil, fixed, err
		}
		if round == maxRounds {
			break // the last round's result analysed without error
		}
		n := 0
		for _, fd := range File(f, info, opts) {
			if fd.HasFix() {
				fd.Apply()
				n++
			}
		}
		if n == 0 {
			break
		}
		if info != nil {
			info.RestoreSpelling()
		}
		next, err := format.File(path, src, f)
		if err != nil {
			return nil, fixed, err
		}
		if _, err := syntax.Parse(path, next); err != nil {
			return nil, fixed, fmt.Errorf("%s: internal error: fixes produced a file that does not parse: %v", path, err)
		}
		src = next
		fixed += n
	}
	out, err = format.Source(path, src)
	return out, fixed, err
}

// FixOne applies the fix of the finding with the given rule and position
// (as reported on src) and returns the fixed, formatted file: the
// language server's code action for one finding.
func FixOne(path string, src []byte, analyze Analyzer, opts Options, rule string, pos syntax.Pos) ([]byte, error) {
	f, info, err := analyze(src)
	if err != nil {
		return nil, err
	}
	for _, fd := range File(f, info, opts) {
		if fd.Rule.ID == rule && fd.Pos == pos && fd.HasFix() {
			fd.Apply()
			if info != nil {
				info.RestoreSpelling()
			}
			out, err := format.File(path, src, f)
			if err != nil {
				return nil, err
			}
			if _, _, err := analyze(out); err != nil {
				return nil, err
			}
			return out, nil
		}
	}
	return nil, fmt.Errorf("no fix for %s at %d:%d", rule, pos.Line, pos.Col)
}
