package hitl

import (
	"os"
	"strings"
	"time"

	"github.com/harnlang/harn/stdlib/console"
	"github.com/harnlang/harn/vm"
)

// How an answer read ended.
const (
	answered = iota
	endOfInput
	timedOut
)

// readAnswer takes the stdin turn, writes prompt when stdin is a terminal,
// and reads one line (trimmed) within timeout (negative: no limit). It
// returns the line and how the read ended.
func readAnswer(th *vm.Thread, prompt string, timeout time.Duration) (string, int, error) {
	s := stateOf(th)
	if err := s.takeTurn(th); err != nil {
		return "", 0, err
	}
	defer s.giveTurn()
	if interactive(th) {
		console.WritePrompt(th, prompt)
	}
	line, ok, late, err := console.ReadLine(th, timeout)
	switch {
	case err != nil:
		return "", 0, err
	case late:
		return "", timedOut, nil
	case !ok:
		return "", endOfInput, nil
	}
	return strings.TrimSpace(line), answered, nil
}

// interactive reports whether a person is at stdin (a terminal, or
// mock_tty("stdin", true)): prompts are shown and a bad answer is asked
// again instead of failing.
func interactive(th *vm.Thread) bool { return console.IsTerminal(th, "stdin") }

// say writes a line for the person at the terminal.
func say(th *vm.Thread, s string) {
	if interactive(th) {
		console.WritePrompt(th, s+"\n")
	}
}

// noAnswerHint ends the errors of a read that found no answer.
const noAnswerHint = "give a default, use mock_stdin, or run interactively"

// autoApprove reads HARN_AUTO_APPROVE: set reports whether it decides
// approvals; approve is its decision.
func autoApprove(name string) (approve, set bool, err error) {
	v := strings.TrimSpace(os.Getenv("HARN_AUTO_APPROVE"))
	if v == "" {
		return false, false, nil
	}
	switch strings.ToLower(v) {
	case "1", "true", "yes", "y", "approve":
		return true, true, nil
	case "0", "false", "no", "n", "deny":
		return false, true, nil
	}
	return false, false, vm.Throwf("%s: HARN_AUTO_APPROVE must be 1, true, yes or approve (approve everything) or 0, false, no or deny (deny everything), got %q", name, v)
}

// parseApproval reads an approval answer: a yes or no word, optionally
// followed by a reason ("no: too risky", "yes ship it"). ok is false when
// the first word is neither.
func parseApproval(line string) (approved bool, reason string, ok bool) {
	word, rest := line, ""
	if i := strings.IndexAny(line, ": \t,"); i >= 0 {
		word, rest = line[:i], line[i+1:]
	}
	rest = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(rest), ":-,"))
	switch strings.ToLower(word) {
	case "y", "yes", "approve", "approved", "ok", "allow":
		return true, rest, true
	case "n", "no", "deny", "denied", "reject", "rejected":
		return false, rest, true
	}
	return false, "", false
}
