package console

import "github.com/harnlang/harn/stdlib/harness"

// harness.term (docs/spec/language.md §5.4, user I/O): the terminal facts
// of docs/spec/builtins.md §4.9 and the terminal styling of §3.1 as
// methods of the HarnessTerm handle, each behaving like the free function
// of the same name (docs/language.md, "Harness capabilities in this
// implementation"). The tty queries are also stdio's; mock_tty and
// unmock_tty are test doubles and stay free functions.

func init() {
	const t = "HarnessTerm"
	d := harness.Delegate
	harness.RegisterCapability("console", "term", []harness.CapabilityMethod{
		d(t, "is_stdin_tty", "is_stdin_tty", "term.is_stdin_tty() -> bool", "whether stdin is a terminal"),
		d(t, "is_stdout_tty", "is_stdout_tty", "term.is_stdout_tty() -> bool", "whether stdout is a terminal"),
		d(t, "is_stderr_tty", "is_stderr_tty", "term.is_stderr_tty() -> bool", "whether stderr is a terminal"),
		d(t, "color", "color", "term.color(text, name: string) -> string", "wrap text in an ANSI color when color is enabled"),
		d(t, "bold", "bold", "term.bold(text) -> string", "wrap text in ANSI bold when color is enabled"),
		d(t, "dim", "dim", "term.dim(text) -> string", "wrap text in ANSI dim when color is enabled"),
		d(t, "set_color_mode", "set_color_mode", "term.set_color_mode(mode: string) -> nil", `color mode: "auto", "always" or "never"`),
	})
}
