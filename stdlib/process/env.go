package process

import (
	"crypto/rand"
	"crypto/sha1"
	"encoding/hex"
	"os"
	"runtime"
	"strings"

	"github.com/harnlang/harn/internal/uuids"
	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/vm"
)

// Environment, identifiers and system basics (docs/spec/builtins.md §3.15).

func init() {
	lib.Def("env", "env(name) -> string?", "an environment variable, or nil", func(th *vm.Thread, args vm.Args) (vm.Value, error) {
		if v, ok := os.LookupEnv(args.Text(0)); ok {
			return vm.Str(v), nil
		}
		return vm.Nil, nil
	})
	lib.Def("env_or", "env_or(name, default)", "an environment variable, or default", func(th *vm.Thread, args vm.Args) (vm.Value, error) {
		if v, ok := os.LookupEnv(args.Text(0)); ok {
			return vm.Str(v), nil
		}
		return args.At(1), nil
	})
	lib.Def("uuid", "uuid() -> string", "a random (v4) UUID", func(th *vm.Thread, args vm.Args) (vm.Value, error) {
		var u [16]byte
		rand.Read(u[:])
		return vm.Str(uuids.Format(withVersion(u, 4))), nil
	})
	lib.Def("uuid_v7", "uuid_v7() -> string", "a time-ordered (v7) UUID", func(th *vm.Thread, args vm.Args) (vm.Value, error) {
		return vm.Str(uuids.V7String()), nil
	})
	lib.Def("uuid_v5", "uuid_v5(namespace, name) -> string", "a name-based (v5, SHA-1) UUID", func(th *vm.Thread, args vm.Args) (vm.Value, error) {
		if args.Len() < 2 {
			return vm.Value{}, vm.Runtimef("uuid_v5(namespace, name): requires namespace and name")
		}
		ns, ok := uuidNamespace(args.Text(0))
		if !ok {
			return vm.Value{}, vm.Runtimef("uuid_v5: namespace must be a UUID or one of dns/url/oid/x500")
		}
		h := sha1.New()
		h.Write(ns[:])
		h.Write([]byte(args.Text(1)))
		var u [16]byte
		copy(u[:], h.Sum(nil))
		return vm.Str(uuids.Format(withVersion(u, 5))), nil
	})
	lib.Def("uuid_parse", "uuid_parse(s) -> string?", "the canonical form of a UUID, or nil", func(th *vm.Thread, args vm.Args) (vm.Value, error) {
		s, ok := args.Str(0)
		if !ok {
			return vm.Nil, nil
		}
		u, ok := parseUUID(s)
		if !ok {
			return vm.Nil, nil
		}
		return vm.Str(uuids.Format(u)), nil
	})
	lib.Def("uuid_nil", "uuid_nil() -> string", "the all-zero UUID", func(th *vm.Thread, args vm.Args) (vm.Value, error) {
		return vm.Str(uuids.Format([16]byte{})), nil
	})
	lib.Def("platform", "platform() -> string", `the OS: "darwin", "linux", "windows", …`, func(th *vm.Thread, args vm.Args) (vm.Value, error) {
		return vm.Str(runtime.GOOS), nil
	})
	lib.Def("arch", "arch() -> string", `the CPU architecture: "x86_64", "aarch64", …`, func(th *vm.Thread, args vm.Args) (vm.Value, error) {
		return vm.Str(archName(runtime.GOARCH)), nil
	})
	lib.Def("exit", "exit(code?)", "end the process at once with code (default 0); what was printed is kept (docs/run.md)", func(th *vm.Thread, args vm.Args) (vm.Value, error) {
		return vm.Value{}, vm.ExitError(int(args.IntOr(0, 0)))
	})
}

// archName spells Go's GOARCH the way upstream (Rust) names targets.
func archName(goarch string) string {
	switch goarch {
	case "amd64":
		return "x86_64"
	case "arm64":
		return "aarch64"
	case "386":
		return "x86"
	case "ppc64le":
		return "powerpc64le"
	case "ppc64":
		return "powerpc64"
	case "loong64":
		return "loongarch64"
	}
	return goarch
}

func withVersion(u [16]byte, version byte) [16]byte {
	u[6] = u[6]&0x0f | version<<4
	u[8] = u[8]&0x3f | 0x80
	return u
}

// parseUUID accepts the hyphenated, simple (32 hex digits), braced and
// `urn:uuid:` spellings, in any case.
func parseUUID(s string) ([16]byte, bool) {
	var u [16]byte
	switch {
	case len(s) == 45 && strings.EqualFold(s[:9], "urn:uuid:"):
		s = s[9:]
	case len(s) == 38 && s[0] == '{' && s[37] == '}':
		s = s[1:37]
	}
	switch len(s) {
	case 36:
		if s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-' {
			return u, false
		}
		s = s[:8] + s[9:13] + s[14:18] + s[19:23] + s[24:]
	case 32:
	default:
		return u, false
	}
	b, err := hex.DecodeString(s)
	if err != nil {
		return u, false
	}
	copy(u[:], b)
	return u, true
}

var uuidNamespaces = map[string]string{
	"dns":  "6ba7b810-9dad-11d1-80b4-00c04fd430c8",
	"url":  "6ba7b811-9dad-11d1-80b4-00c04fd430c8",
	"oid":  "6ba7b812-9dad-11d1-80b4-00c04fd430c8",
	"x500": "6ba7b814-9dad-11d1-80b4-00c04fd430c8",
}

func uuidNamespace(s string) ([16]byte, bool) {
	name := strings.TrimPrefix(strings.ToLower(s), "namespace_")
	if std, ok := uuidNamespaces[name]; ok {
		s = std
	}
	return parseUUID(s)
}
