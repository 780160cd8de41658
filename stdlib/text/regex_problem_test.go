package text

import (
	"testing"

	"github.com/harnlang/harn/vm"
)

// RegexProblem runs before every schema validation (stdlib/schema), so a
// valid pattern it checks stays compiled in the VM's regex cache, where
// the validation itself finds it.
func TestRegexProblemCachesAValidPattern(t *testing.T) {
	th := vm.New(vm.NewUniverse()).NewThread()
	const pattern = `^\d{3}-\d{4}$`
	if why := RegexProblem(th, pattern); why != "" {
		t.Fatalf("RegexProblem(%q) = %q, want \"\"", pattern, why)
	}
	cache := th.VM().Local(regexCacheKey{}, func() any { return &regexCache{m: map[string]*harnRegex{}} }).(*regexCache)
	if cache.m["\x00"+pattern] == nil {
		t.Fatalf("RegexProblem(%q) left the pattern out of the regex cache", pattern)
	}
}

func TestRegexProblemDescribesABadPattern(t *testing.T) {
	th := vm.New(vm.NewUniverse()).NewThread()
	if why := RegexProblem(th, "("); why != "missing closing )" {
		t.Fatalf("RegexProblem(\"(\") = %q, want %q", why, "missing closing )")
	}
}
