// Package crypto owns the web-security builtins (docs/spec/builtins.md §5):
// ed25519 keys and signatures, x25519 key agreement, JSON Web Tokens,
// signed URLs, cookies (parse, serialize, delete, sign, verify, round
// trip) and signed session tokens. Hashes, HMAC and byte encodings stay in
// package encoding.
package crypto
