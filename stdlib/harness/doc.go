// Package harness owns the `harness` host global (docs/spec/language.md §5.4): the
// capability handle and the registry other areas add capabilities to
// (RegisterCapability), such as harness.stdio in package console.
package harness
