// Package connectors owns connector_call: a call of one method of an
// outbound service (GitHub, Slack, or any HTTP API a project's harn.toml
// declares under [connectors.NAME]), made through the http_* client and its
// mocks, with the token read by the secret rule of secret_get
// (docs/connectors.md).
package connectors
