//go:build !harnlite

package main

// The help texts of the commands the lite build leaves out (lite.go).
func init() {
	for name, text := range map[string]string{
		"tool":             toolHelp,
		"tool schema":      toolSchemaHelp,
		"tool run":         toolRunHelp,
		"tool completions": toolCompletionsHelp,
		"tool sdk":         toolSDKHelp,
		"tool diff":        toolDiffHelp,
		"serve":            serveHelp,
		"serve mcp":        serveHelp,
		"lint":             lintHelp,
		"test":             testHelp,
		"init":             initHelp,
		"doc":              docHelp,
	} {
		commandHelp[name] = text
	}
}
