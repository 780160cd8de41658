// Package math owns the numeric builtins (docs/spec/builtins.md §4.4): abs, pow,
// atan2, statistics (mean, median, percentile) and seeded random
// generators.
package math
