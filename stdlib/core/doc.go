// Package core owns the value-level builtins every script uses: type_of,
// the to_* conversions, len, identity and hashing, assertions, thrown
// errors and their categories, and the Result helpers (is_ok, unwrap…).
package core
