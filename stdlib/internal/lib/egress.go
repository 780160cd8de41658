package lib

import (
	"sync/atomic"

	"github.com/harnlang/harn/vm"
)

// EgressGuard decides whether a builtin may open a connection to rawURL:
// nil to go ahead, else the error the builtin raises. egress_policy
// (stdlib/policy) installs the run's guard; every builtin that reaches
// the network asks CheckEgress first (docs/policy.md, "Enforcement").
type EgressGuard func(rawURL string) error

type egressKey struct{}

type egressSlot struct{ guard atomic.Pointer[EgressGuard] }

func egressOf(v *vm.VM) *egressSlot {
	return v.Local(egressKey{}, func() any { return &egressSlot{} }).(*egressSlot)
}

// SetEgressGuard makes g the run's egress guard; nil removes it.
func SetEgressGuard(v *vm.VM, g EgressGuard) {
	if g == nil {
		egressOf(v).guard.Store(nil)
		return
	}
	egressOf(v).guard.Store(&g)
}

// CheckEgress asks the run's egress guard about rawURL: nil when there is
// no guard or it allows the URL.
func CheckEgress(th *vm.Thread, rawURL string) error {
	if g := egressOf(th.VM()).guard.Load(); g != nil {
		return (*g)(rawURL)
	}
	return nil
}
