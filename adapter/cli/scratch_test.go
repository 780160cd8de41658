package cli

import (
	"os"
	"strings"
	"testing"
)

func TestScratchZsh(t *testing.T) {
	var cs []completionCase
	for _, l := range strings.Split(os.Getenv("LINES"), "|") {
		cs = append(cs, completionCase{line: l, exact: []string{"@@"}})
	}
	sh := os.Getenv("SH")
	suite := completionSuite{kitchenScript, "kitchen", cs}
	switch sh {
	case "zsh":
		zshSuite(t, needShell(t, "zsh"), suite)
	case "fish":
		fishSuite(t, needShell(t, "fish"), suite)
	default:
		bashSuite(t, needShell(t, "bash"), suite)
	}
}
