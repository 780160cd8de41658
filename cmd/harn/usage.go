package main

import (
	"fmt"
	"strings"

	"github.com/harnlang/harn/lang/diag"
)

// The wording every command shares for a word on its command line it
// does not know (docs/cli.md): an unknown option is `unknown option
// --chek (did you mean "--check"?)` and an unknown command or
// subcommand `unknown command "rnu" (did you mean "run"?)`, the
// suggestion given when one of the known spellings is close by the
// language's "did you mean" rule (diag.Suggest).

// unknownOption is the message for arg, an option the command does not
// take; known are the options it does take, for the suggestion. An
// `--opt=value` argument is named whole and suggested by its name.
// The dashes take no part in the comparison, so `--chek` is not taken
// for `--help`; the one option the argument is the start of (`--strict`
// of `--strict-types`, `--jun` of `--junit`) comes before the closest.
func unknownOption(arg string, known ...string) string {
	name, _, _ := strings.Cut(arg, "=")
	bare := make([]string, len(known))
	for i, k := range known {
		bare[i] = strings.TrimLeft(k, "-")
	}
	msg := "unknown option " + arg
	given := strings.TrimLeft(name, "-")
	s := ""
	if len(given) >= 2 {
		// the start of a longer option (`--strict` for `--strict-types`)
		for _, b := range bare {
			if strings.HasPrefix(b, given) {
				if s != "" {
					s = "" // two fit: neither is more likely
					break
				}
				s = b
			}
		}
	}
	if s == "" {
		s = diag.Suggest(given, bare)
	}
	if s != "" {
		for i, b := range bare {
			if b == s {
				msg += fmt.Sprintf(" (did you mean %q?)", known[i])
				break
			}
		}
	}
	return msg
}

// unknownCommand is the message for word, a command (kind "command") or
// subcommand (kind "tool subcommand", …) that is not one of known.
func unknownCommand(kind, word string, known []string) string {
	return fmt.Sprintf("unknown %s %q%s", kind, word, diag.DidYouMean(word, known))
}
