// Package crypto owns the web-security builtins (docs/spec/builtins.md §5):
// ed25519 keys and signatures, signed URLs, cookies (parse, serialize,
// delete, sign, verify) and signed session tokens. Hashes, HMAC and byte
// encodings stay in package encoding.
package crypto
