// Package console owns standard output, standard error and standard input
// as scripts see them: the print family, colors and progress lines, stdin
// reading and prompts, terminal detection, structured logging, timers and
// circuit breakers, and the harness.stdio capability.
package console
