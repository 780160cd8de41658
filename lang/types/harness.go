package types

import (
	"strings"
	"sync"
	"unicode/utf8"
)

// Capabilities lists the fields of the root `Harness` handle
// (docs/spec/language.md §5.4), each a sub-handle named by HandleName.
var Capabilities = []string{
	"stdio", "term", "clock", "env", "random", "system",
	"fs", "process", "net", "channels", "secrets",
	"llm", "agent", "tools", "interaction", "verdict",
	"tenant", "auth", "obs", "runtime", "project",
	"ast", "code_index", "scanner", "rules", "lint",
	"computer", "embed", "memory", "sqlite", "postgres",
	"fs_watch", "host_lease", "secret_store", "terminal",
	"testing",
}

var handleNames = sync.OnceValue(func() map[string]string {
	m := map[string]string{"Harness": ""}
	for _, c := range Capabilities {
		m[HandleName(c)] = c
	}
	return m
})

// HandleName is the type name of a capability's handle: "Harness" plus
// the capability name in CamelCase (fs_watch → HarnessFsWatch). Every
// harn start names each capability's handle, so the ASCII names (all of
// them) take one allocation.
func HandleName(capability string) string {
	b := make([]byte, 0, 32)
	b = append(b, "Harness"...)
	up := true
	for i := 0; i < len(capability); i++ {
		c := capability[i]
		switch {
		case c >= utf8.RuneSelf:
			return handleNameUnicode(capability)
		case c == '_':
			up = true
			continue
		case up && 'a' <= c && c <= 'z':
			c -= 'a' - 'A'
		}
		up = false
		b = append(b, c)
	}
	return string(b)
}

func handleNameUnicode(capability string) string {
	var sb strings.Builder
	sb.WriteString("Harness")
	for _, part := range strings.Split(capability, "_") {
		if part == "" {
			continue
		}
		sb.WriteString(strings.ToUpper(part[:1]))
		sb.WriteString(part[1:])
	}
	return sb.String()
}

// IsHandleName reports whether name is `Harness` or one of its
// capability handle types.
func IsHandleName(name string) bool {
	_, ok := handleNames()[name]
	return ok
}

// Capability returns the handle type of the root handle's field name.
func Capability(name string) (*Handle, bool) {
	for _, c := range Capabilities {
		if c == name {
			return &Handle{Name: HandleName(c)}, true
		}
	}
	return nil, false
}
