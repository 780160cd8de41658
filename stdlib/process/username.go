//go:build !harnlite

package process

import (
	"os"
	"os/user"

	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/vm"
)

// username is left out of the lite harn: os/user is what made it a cgo
// binary, whose dynamic loader and C start-up cost about a third of its
// start (docs/architecture.md, "Start-up").
func init() {
	lib.Def("username", "username() -> string", "the current user's name", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		if u, err := user.Current(); err == nil && u.Username != "" {
			return vm.Str(u.Username), nil
		}
		for _, k := range []string{"USER", "USERNAME", "LOGNAME"} {
			if v := os.Getenv(k); v != "" {
				return vm.Str(v), nil
			}
		}
		return vm.Str(""), nil
	})
}
