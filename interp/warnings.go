package interp

import (
	"fmt"

	"github.com/harnlang/harn/lang/diag"
)

// WarningMode is what `harn run` and `harn check` do with checker
// warnings; HARN_WARNINGS chooses it.
type WarningMode int

const (
	// WarningsShow prints warnings and carries on (the default).
	WarningsShow WarningMode = iota
	// WarningsOff drops them.
	WarningsOff
	// WarningsError reports them as errors: the run does not start and
	// the exit status is non-zero, for CI.
	WarningsError
)

// ParseWarningMode reads a HARN_WARNINGS value. A misspelt value is an
// error rather than the default, so a CI job asking for `error` never
// passes silently because of a typo.
func ParseWarningMode(s string) (WarningMode, error) {
	switch s {
	case "", "on", "warn":
		return WarningsShow, nil
	case "off":
		return WarningsOff, nil
	case "error":
		return WarningsError, nil
	}
	return WarningsShow, fmt.Errorf("HARN_WARNINGS=%s: expected `error`, `off` or `warn`", s)
}

// Apply returns the diagnostics to print under the mode and how many
// warnings it turned into errors.
func (m WarningMode) Apply(ds diag.List) (shown diag.List, promoted int) {
	for _, d := range ds {
		if d.Severity == diag.SevWarning {
			switch m {
			case WarningsOff:
				continue
			case WarningsError:
				e := *d
				e.Severity = diag.SevError
				d = &e
				promoted++
			}
		}
		shown = append(shown, d)
	}
	return shown, promoted
}

// PromotedText is the closing line when warnings were reported as errors.
func PromotedText(n int) string {
	s := "s"
	if n == 1 {
		s = ""
	}
	return fmt.Sprintf("error: %d warning%s treated as error%s (HARN_WARNINGS=error)\n", n, s, s)
}
