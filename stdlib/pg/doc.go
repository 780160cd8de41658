// Package pg is the PostgreSQL client area of the standard library:
// pg_connect, pg_pool, pg_query, pg_query_one, pg_execute,
// pg_transaction, pg_close, and the mock database of pg_mock_pool and
// pg_mock_calls that lets scripts be tested without a server.
//
// docs/spec/builtins.md §5 only names these builtins; the design is this
// implementation's and is described in docs/pg.md: handles over a
// pgxpool pool, positional `$1` parameters bound from a list, rows as
// dicts with PostgreSQL types mapped to Harn values, errors that carry
// the SQLSTATE code, and transactions that commit when their callback
// returns and roll back when it throws.
//
// The area is in the full build only (cmd/harn/lite_fullonly.go): pgx
// and its TLS stack would cost every start of the lite harn.
package pg
