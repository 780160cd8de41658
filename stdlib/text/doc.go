// Package text owns strings (builtins.md §4.1): the string builtins and
// the string method table, Unicode normalization and graphemes, case
// conversion, formatting, and regular expressions.
package text
