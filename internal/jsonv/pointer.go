package jsonv

import "strings"

// EscapePointer escapes one JSON Pointer reference token (RFC 6901):
// "~" becomes "~0" and "/" becomes "~1".
func EscapePointer(s string) string {
	if !strings.ContainsAny(s, "~/") {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// UnescapePointer reverses EscapePointer.
func UnescapePointer(s string) string {
	if !strings.Contains(s, "~") {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "~1", "/"), "~0", "~")
}
