// Package process owns the process and its host: environment variables,
// exec and shell, exit, the working, execution, project and state roots,
// platform and user facts, and UUIDs.
package process
