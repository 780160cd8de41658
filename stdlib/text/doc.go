// Package text owns strings (docs/spec/builtins.md §4.1): the string builtins and
// the string method table, Unicode normalization and graphemes, case
// conversion, formatting, and regular expressions.
package text
