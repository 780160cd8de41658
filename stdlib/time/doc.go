// Package time owns clocks, dates and durations (docs/spec/builtins.md §4.6): the
// VM clock and its mock, date parsing and formatting with zones, duration
// display, sleeping, and the context blocking builtins wait under.
package time
