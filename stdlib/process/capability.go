package process

import "github.com/harnlang/harn/stdlib/harness"

// harness.env (docs/spec/language.md §5.4): the environment builtins as methods
// of the HarnessEnv handle, so `pick(harness, ["env", "fs"])` (docs/spec/newer.md
// §2.2) finds the capability.

func init() {
	const t = "HarnessEnv"
	harness.RegisterCapability("env", []harness.CapabilityMethod{
		harness.Delegate(t, "get", "env", "env.get(name: string)", "an environment variable, or nil", 0),
		harness.Delegate(t, "get_or", "env_or", "env.get_or(name: string, default)", "an environment variable, or default", 0),
	})
}
