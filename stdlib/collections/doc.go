// Package collections owns the list, dict, set, range and lazy-iterator
// builtins and methods (docs/spec/builtins.md §4.2-§4.3): chunk, window, group_by,
// keys/values/entries, set_*, range, iter, and the list/dict/set/range/iter
// method tables.
package collections
