package llm

// Backoff exposes backoff to the external tests.
var Backoff = backoff
