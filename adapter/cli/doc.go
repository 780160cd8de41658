// Package cli is the generated command-line adapter of a ToolRegistry
// (docs/spec/cli-projection.md): `harn tool run` and `harn tool completions`.
//
// It owns no part of the contract. The prepared catalog (package tool)
// already holds the command tree of the CLI-audience tools, every
// argument's spellings, help text, candidates and coercion type, the
// compiled validators and the failure classification. This package reads
// that tree and does what only a command line needs:
//
//	argv ──parse──▶ request ──build──▶ argument object ──Invoke──▶ Outcome ──render──▶ stdout/stderr, status
//	                   │
//	                   └─▶ help / version text (stdout, status 0)
//
// and, from the same tree, completion scripts for bash, zsh, fish and
// PowerShell (completion.go and one file per shell). The options no tool
// declares (--harn-input, --harn-output, --json, --help, --version) are
// one table, builtinOptions (builtin.go), which the parser, the help and
// the completion scripts read.
//
// A Program is cheap to build and stateless; Run may be called any
// number of times. Exit statuses follow docs/spec/cli-projection.md §5: 0 for
// success, help and version; 1 for every failure of the generated
// program. Usage errors of Harn's own `harn tool ...` arguments (status
// 2) are the caller's business.
package cli
