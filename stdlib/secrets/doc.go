// Package secrets owns the safety builtins that look for credentials in
// text: secret_scan, which runs the detectors of the orchestrator's
// harn.secret_scan tool (internal/secretscan, docs/secret-scan.md).
package secrets
