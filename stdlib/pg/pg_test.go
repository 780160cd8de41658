package pg_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harnlang/harn/eventlog/eventlogtest/pgtest"
	"github.com/harnlang/harn/interp"
)

// The tests run Harn programs against a real PostgreSQL: the server of
// HARN_TEST_POSTGRES_URL, or a throwaway one pgtest starts from the
// Debian binaries. Without PostgreSQL they skip (fail under CI).

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// run runs src with HARN_PG_URL naming an empty schema of its own and
// returns what it printed, or the uncaught error's text.
func run(t *testing.T, src string) string {
	t.Helper()
	t.Setenv("HARN_PG_URL", pgtest.Schema(t))
	return runScript(t, src)
}

func runScript(t *testing.T, src string) string {
	t.Helper()
	var stderr bytes.Buffer
	res := interp.RunProgram(filepath.Join(t.TempDir(), "main.harn"), []byte(src), interp.Options{Stderr: &stderr, Stdin: strings.NewReader("")})
	out := string(res.Stdout)
	if res.Err != nil {
		out += "ERROR: " + res.Err.Error()
	}
	return out
}

func check(t *testing.T, src, want string) {
	t.Helper()
	if got := run(t, src); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

func TestTypeMapping(t *testing.T) {
	check(t, `
let db = pg_connect()
let r = pg_query_one(db, """SELECT 1::int2 AS a, 2::int4 AS b, 3::int8 AS c, 1.5::float4 AS d, 1.1::float4 AS d2,
  2.25::float8 AS e, 1.50::numeric AS f, 'hi'::text AS g, 'v'::varchar AS h, true AS i,
  '\x0102ff'::bytea AS j, '{"k": [1, 2.5, null, "s"]}'::jsonb AS k, '[1, {"z": 1, "a": 2}]'::json AS l,
  NULL::int AS m, ARRAY[1, 2, 3] AS n, ARRAY['a', NULL] AS o, ARRAY[[1, 2], [3, 4]] AS p,
  DATE '2024-02-29' AS q, TIMESTAMP '2024-01-02 03:04:05.123' AS r,
  TIMESTAMPTZ '2024-01-02 03:04:05+02' AS s, TIME '13:14:15' AS t2,
  INTERVAL '90 minutes' AS u, INTERVAL '1 month 2 days' AS v,
  'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid AS w, '10.0.0.1'::inet AS x,
  'NaN'::numeric AS y, 12345678901234567890.123::numeric AS z, 'infinity'::timestamptz AS inf""")
for k in r.keys() {
  println("${k}: ${r[k]} (${type_of(r[k])})")
}
println(r.f + decimal("0.25"))
println(r.k.k[0] + 1)
pg_close(db)
`, `a: 1 (int)
b: 2 (int)
c: 3 (int)
d: 1.5 (float)
d2: 1.1 (float)
e: 2.25 (float)
f: 1.50 (decimal)
g: hi (string)
h: v (string)
i: true (bool)
inf: infinity (string)
j: b"0102ff" (bytes)
k: {k: [1, 2.5, nil, s]} (dict)
l: [1, {a: 2, z: 1}] (list)
m: nil (nil)
n: [1, 2, 3] (list)
o: [a, nil] (list)
p: [1, 2, 3, 4] (list)
q: 2024-02-29 (string)
r: 2024-01-02T03:04:05.123 (string)
s: 2024-01-02T01:04:05Z (string)
t2: 13:14:15 (string)
u: 90m (duration)
v: 1 mon 2 days (string)
w: a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11 (string)
x: 10.0.0.1 (string)
y: NaN (float)
z: 12345678901234567890.123 (decimal)
1.75
2
`)
}

func TestParameters(t *testing.T) {
	check(t, `
let db = pg_pool(nil, {max_conns: 2})
pg_execute(db, """CREATE TABLE t (id int8 PRIMARY KEY, name text, score float8, price numeric(10, 2),
  doc jsonb, tags text[], data bytea, ok bool, wait interval)""")
let r = pg_execute(db, "INSERT INTO t VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)", [1, "ann", 2.5, decimal("9.99"), {a: [1, 2], b: nil}, ["x", "y"], bytes_from_hex("2d71"), true, 90s])
println(r)
pg_execute(db, "INSERT INTO t (id, name) VALUES ($1, $2)", [2, nil])
for row in pg_query(db, "SELECT * FROM t ORDER BY id") {
  println(row)
}
println(pg_query(db, "SELECT id FROM t WHERE id = ANY($1) ORDER BY id", [[1, 2, 3]]))
println(pg_query_one(db, "SELECT id FROM t WHERE id = $1", [42]))
println(pg_execute(db, "UPDATE t SET ok = NOT coalesce(ok, false)"))
println(pg_execute(db, "DELETE FROM t WHERE id = 99"))
println(pg_query_one(db, """SELECT $1::date AS d, $2::timestamptz AS ts, $3::numeric AS n, $4::float8 AS f,
  $5::jsonb AS j, $6::int[] AS a, $7::numeric AS dn, $8::interval AS i""",
  ["2024-02-29", "2024-01-02T03:04:05Z", 5, 3, json_stringify([1, "x"]), [], decimal("-0.001"), 2h]))
pg_close(db)
`, `{rows_affected: 1}
{data: b"2d71", doc: {a: [1, 2], b: nil}, id: 1, name: ann, ok: true, price: 9.99, score: 2.5, tags: [x, y], wait: 90s}
{data: nil, doc: nil, id: 2, name: nil, ok: nil, price: nil, score: nil, tags: nil, wait: nil}
[{id: 1}, {id: 2}]
nil
{rows_affected: 2}
{rows_affected: 0}
{a: [], d: 2024-02-29, dn: -0.001, f: 3.0, i: 2h, j: [1, x], n: 5, ts: 2024-01-02T03:04:05Z}
`)
}

func TestTransactions(t *testing.T) {
	check(t, `
let db = pg_connect()
pg_execute(db, "CREATE TABLE acct (name text PRIMARY KEY, balance int NOT NULL CHECK (balance >= 0)); INSERT INTO acct VALUES ('a', 10), ('b', 0)")
fn move(db, src, dst, n) {
  return pg_transaction(db, fn(tx) {
    pg_execute(tx, "UPDATE acct SET balance = balance + $1 WHERE name = $2", [n, dst])
    pg_execute(tx, "UPDATE acct SET balance = balance - $1 WHERE name = $2", [n, src])
    return "moved ${n}"
  })
}
println(move(db, "a", "b", 4))
println(try { move(db, "a", "b", 100) } catch (e) { e })
println(pg_query(db, "SELECT * FROM acct ORDER BY name"))
// a throw from the callback rolls back and is rethrown unchanged
let r = try {
  pg_transaction(db, fn(tx) {
    pg_execute(tx, "DELETE FROM acct")
    throw {reason: "changed my mind"}
  })
} catch (e) { e }
println(r)
println(len(pg_query(db, "SELECT * FROM acct")))
// a finished transaction handle refuses statements
var kept = nil
pg_transaction(db, fn(tx) { kept = tx })
println(try { pg_query(kept, "SELECT 1") } catch (e) { e })
// the connection handle itself cannot be used inside its transaction
println(try { pg_transaction(db, fn(tx) { pg_query(db, "SELECT 1") }) } catch (e) { e })
// nested transactions are savepoints
pg_transaction(db, fn(tx) {
  pg_execute(tx, "UPDATE acct SET balance = 0 WHERE name = 'a'")
  try { pg_transaction(tx, fn(inner) { pg_execute(inner, "DELETE FROM acct"); throw "undo" }) } catch (e) { println("inner: ${e}") }
})
println(pg_query(db, "SELECT * FROM acct ORDER BY name"))
println(pg_transaction(db, fn(tx) { pg_query_one(tx, "SHOW transaction_isolation") }, {isolation: "serializable", read_only: true}))
// after a failed statement the transaction refuses the rest; a savepoint keeps it going
println(try {
  pg_transaction(db, fn(tx) {
    try { pg_execute(tx, "INSERT INTO acct VALUES ('a', 1)") } catch (e) { println(e) }
    pg_query(tx, "SELECT 1")
  })
} catch (e) { e })
pg_transaction(db, fn(tx) {
  try { pg_transaction(tx, fn(sp) { pg_execute(sp, "INSERT INTO acct VALUES ('a', 1)") }) } catch (e) { println("skipped") }
  pg_execute(tx, "INSERT INTO acct VALUES ('c', 1)")
})
println(pg_query(db, "SELECT name FROM acct ORDER BY name"))
pg_close(db)
`, `moved 4
pg_execute: ERROR 23514: new row for relation "acct" violates check constraint "acct_balance_check" (Failing row contains (a, -94).)
[{balance: 6, name: a}, {balance: 4, name: b}]
{reason: changed my mind}
2
pg_query: the transaction is finished
pg_query: the connection is inside a pg_transaction of this task; run the statement on the transaction handle
inner: undo
[{balance: 0, name: a}, {balance: 4, name: b}]
{transaction_isolation: serializable}
pg_execute: ERROR 23505: duplicate key value violates unique constraint "acct_pkey" (Key (name)=(a) already exists.)
pg_query: ERROR 25P02: current transaction is aborted, commands ignored until end of transaction block
skipped
[{name: a}, {name: b}, {name: c}]
`)
}

func TestErrors(t *testing.T) {
	check(t, `
let db = pg_pool()
println(try { pg_query(db, "SELECT * FROM missing") } catch (e) { e })
println(try { pg_query_one(db, "SELEC 1") } catch (e) { e })
println(try { pg_execute(db, "SELECT $1::int", ["x"]) } catch (e) { e })
println(try { pg_query(db, "SELECT $1::int", []) } catch (e) { e })
println(try { pg_query(db, "SELECT 1/0") } catch (e) { e })
pg_close(db)
pg_close(db)
println(try { pg_query(db, "SELECT 1") } catch (e) { e })
println(try { pg_connect("postgres://nobody@127.0.0.1:1/x?connect_timeout=5") } catch (e) { e.starts_with("pg_connect: cannot connect: ") })
println(try { pg_connect("::::") } catch (e) { e.starts_with("pg_connect: invalid connection string: ") })
`, `pg_query: ERROR 42P01: relation "missing" does not exist
pg_query_one: ERROR 42601: syntax error at or near "SELEC"
pg_execute: ERROR 22P02: invalid input syntax for type integer: "x"
pg_query: expected 1 arguments, got 0
pg_query: ERROR 22012: division by zero
pg_query: the pool is closed
true
true
`)
}

// Several Harn tasks share one pool and run statements at once (run with
// -race); tasks that share one transaction handle take turns.
func TestConcurrentTasks(t *testing.T) {
	check(t, `
let db = pg_pool(nil, {max_conns: 4})
pg_execute(db, "CREATE TABLE hits (task int, n int)")
let tasks = range(0, 8).to_list().map(fn(i) {
  return spawn {
    for n in range(0, 10) {
      pg_execute(db, "INSERT INTO hits VALUES ($1, $2)", [i, n])
    }
    pg_query_one(db, "SELECT count(*) AS c FROM hits WHERE task = $1", [i]).c
  }
})
println(tasks.map(fn(t) { await(t) }))
println(pg_query_one(db, "SELECT count(*) AS c, sum(n) AS s FROM hits"))
let total = pg_transaction(db, fn(tx) {
  let ts = range(0, 4).to_list().map(fn(i) { spawn { pg_execute(tx, "DELETE FROM hits WHERE task = $1", [i]).rows_affected } })
  return ts.map(fn(t) { await(t) })
})
println(total)
println(pg_query_one(db, "SELECT count(*) AS c FROM hits"))
pg_close(db)
`, `[10, 10, 10, 10, 10, 10, 10, 10]
{c: 80, s: 360}
[10, 10, 10, 10]
{c: 40}
`)
}

func TestOptions(t *testing.T) {
	t.Setenv("HARN_PG_URL", "")
	t.Setenv("DATABASE_URL", pgtest.Schema(t))
	got := runScript(t, `
let db = pg_connect({url: env("DATABASE_URL"), application_name: "harn-test"})
println(pg_query_one(db, "SELECT current_setting('application_name') AS app"))
println(type_of(db) + " " + type_of(pg_pool(env("DATABASE_URL"), {max_conns: 3, min_conns: 1, connect_timeout_ms: 2000})))
println(try { pg_pool(nil, {max_conn: 3}) } catch (e) { e })
let u = url_parse(env("DATABASE_URL"))
let byFields = pg_connect({host: u.host, port: to_int(u.port), user: u.username, password: u.password,
  database: u.path.substring(1), sslmode: "prefer", connect_timeout_ms: 5s})
let who = pg_query_one(byFields, "SELECT current_user AS who, current_database() AS db")
println(who.who == u.username && who.db == u.path.substring(1))
pg_close(byFields)
`)
	want := `{app: harn-test}
pg_connection pg_pool
pg_pool: unknown option "max_conn" (did you mean "max_conns"?) (known: url, host, port, user, password, database, sslmode, application_name, max_conns, min_conns, connect_timeout_ms)
true
`
	if got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

// Cancelling a task, or a deadline running out, cancels its statement;
// the pool goes on serving the other tasks.
func TestCancellation(t *testing.T) {
	check(t, `
let db = pg_pool()
let task = spawn { pg_query(db, "SELECT pg_sleep(60)") }
sleep(100ms)
cancel(task)
println(try { await(task) } catch (e) { "stopped: ${e}" })
println(try { deadline 100ms { pg_query(db, "SELECT pg_sleep(60)") } } catch (e) { e })
println(pg_query_one(db, "SELECT 1 AS one"))
pg_execute(db, "CREATE TABLE c (n int)")
println(try {
  deadline 100ms { pg_transaction(db, fn(tx) { pg_execute(tx, "INSERT INTO c VALUES (1)"); pg_query(tx, "SELECT pg_sleep(60)") }) }
} catch (e) { e })
println(pg_query_one(db, "SELECT count(*) AS n FROM c"))
pg_close(db)
`, `nil
Deadline exceeded
{one: 1}
Deadline exceeded
{n: 0}
`)
}

// A statement run again after a schema change sees the new columns and
// types, also inside a transaction, where a failed statement could not be
// retried (docs/pg.md, "Statements and parameters").
func TestSchemaChange(t *testing.T) {
	check(t, `
let db = pg_connect()
pg_execute(db, "CREATE TABLE ct (x int); INSERT INTO ct VALUES (1)")
println(pg_query(db, "SELECT * FROM ct"))
pg_execute(db, "ALTER TABLE ct ADD COLUMN y text DEFAULT 'new'")
println(pg_query(db, "SELECT * FROM ct"))
println(pg_query(db, "SELECT * FROM ct WHERE x = $1", [1]))
pg_execute(db, "DROP TABLE ct; CREATE TABLE ct (x text); INSERT INTO ct VALUES ('one')")
println(pg_query(db, "SELECT * FROM ct WHERE x = $1", ["one"]))
println(pg_query(db, "SELECT * FROM ct"))
println(pg_transaction(db, fn(tx) {
  let before = pg_query(tx, "SELECT * FROM ct")
  pg_execute(tx, "ALTER TABLE ct ADD COLUMN z int DEFAULT 7")
  return [before, pg_query(tx, "SELECT * FROM ct")]
}))
pg_close(db)
`, `[{x: 1}]
[{x: 1, y: new}]
[{x: 1, y: new}]
[{x: one}]
[{x: one}]
[[{x: one}], [{x: one, z: 7}]]
`)
}

// numeric keeps its scale, zero included; every type outside the mapping
// of docs/pg.md, "Types" reads as PostgreSQL's text form, arrays of them
// as lists of those texts.
func TestTextForms(t *testing.T) {
	check(t, `
let db = pg_connect()
println(pg_query_one(db, "SELECT 0.00::numeric(5,2) AS b, 0.000::numeric AS a, -0.0::numeric AS c, 0::numeric AS d, ARRAY[0.0, 1.50]::numeric[] AS e"))
let r = pg_query_one(db, """SELECT point(1,2) AS point, int4range(1,5) AS r, 'empty'::int4range AS empty,
  daterange('2024-01-01', '2024-02-01') AS dr, numrange(1.5, 2.5) AS nr, B'101' AS bits, B'10100000'::varbit AS vb,
  '<a/>'::xml AS x, 'r'::"char" AS c, line(point(0,0), point(1,1)) AS line, lseg(point(0,0), point(1,1)) AS lseg,
  box(point(0,0), point(1,1)) AS box, '((0,0),(1,1))'::path AS path, '((0,0),(1,1),(1,0))'::polygon AS poly,
  circle(point(0,0), 2) AS circle, tsrange('2024-01-01 10:00', '2024-01-01 11:00') AS tsr,
  '{[1,3), [5,7)}'::int4multirange AS mr, ARRAY[point(1,2), point(3,4)] AS points,
  ARRAY[int4range(1,2), 'empty'] AS ranges, ARRAY[B'1', B'0'] AS bitarr, ROW(1, 'a b') AS rec""")
for k in r.keys() {
  println("${k}: ${r[k]} (${type_of(r[k])})")
}
println(pg_query_one(db, "SELECT $1::point AS p, $2::int4range AS r", ["(3,4)", "[2,9)"]))
pg_close(db)
`, `{a: 0.000, b: 0.00, c: 0.0, d: 0, e: [0.0, 1.50]}
bitarr: [1, 0] (list)
bits: 101 (string)
box: (1,1),(0,0) (string)
c: r (string)
circle: <(0,0),2> (string)
dr: [2024-01-01,2024-02-01) (string)
empty: empty (string)
line: {1,-1,0} (string)
lseg: [(0,0),(1,1)] (string)
mr: {[1,3),[5,7)} (string)
nr: [1.5,2.5) (string)
path: ((0,0),(1,1)) (string)
point: (1,2) (string)
points: [(1,2), (3,4)] (list)
poly: ((0,0),(1,1),(1,0)) (string)
r: [1,5) (string)
ranges: [[1,2), empty] (list)
rec: (1,"a b") (string)
tsr: ["2024-01-01 10:00:00","2024-01-01 11:00:00") (string)
vb: 10100000 (string)
x: <a/> (string)
{p: (3,4), r: [2,9)}
`)
}

// Enums, composite types and arrays of them: arrays read as lists and a
// list binds to an array of an enum; a float with a fraction does not
// bind to an integer; bind errors name the Harn value and the parameter's
// type; a commit PostgreSQL turned into a rollback reads as a 25P02 error.
func TestBinding(t *testing.T) {
	check(t, `
let db = pg_pool()
pg_execute(db, "CREATE TYPE mood AS ENUM ('happy', 'sad'); CREATE TYPE pair AS (a int, b text); CREATE TABLE f (m mood[], n int)")
println(pg_query_one(db, "SELECT 'happy'::mood AS one, ARRAY['happy', 'sad']::mood[] AS many, ARRAY[ROW(1, 'x')::pair, NULL] AS pairs"))
println(pg_query_one(db, "SELECT $1::mood[] AS v, $2::mood AS w", [["happy", "sad"], "sad"]))
pg_execute(db, "INSERT INTO f VALUES ($1, $2)", [["sad"], 7.0])
println(pg_query(db, "SELECT * FROM f"))
println(try { pg_query(db, "SELECT $1::int AS n", [2.9]) } catch (e) { e })
println(try { pg_execute(db, "INSERT INTO f (n) VALUES ($1)", [7.9]) } catch (e) { e })
println(try { pg_query(db, "SELECT $1::int[] AS n", [[1, 2.5]]) } catch (e) { e })
println(try { pg_query(db, "SELECT $1::int AS n", [decimal("2.5")]) } catch (e) { e })
println(try { pg_query(db, "SELECT $1::int AS n", [[1, 2]]) } catch (e) { e })
println(pg_query_one(db, "SELECT $1::int AS n, $2::numeric AS d", [decimal("3"), 2.5]))
println(try {
  pg_transaction(db, fn(tx) {
    try { pg_execute(tx, "SELECT 1/0") } catch (e) { }
    "done"
  })
} catch (e) { e })
pg_close(db)
`, `{many: [happy, sad], one: happy, pairs: [(1,x), nil]}
{v: [happy, sad], w: sad}
[{m: [sad], n: 7}]
Type error: pg_query: parameter $1: cannot bind float 2.9 to int4 (a float with a fraction; round it or use an int)
Type error: pg_execute: parameter $1: cannot bind float 7.9 to int4 (a float with a fraction; round it or use an int)
Type error: pg_query: parameter $1: cannot bind list [1, 2.5] to int4[] (a float with a fraction; round it or use an int)
Type error: pg_query: parameter $1: cannot bind decimal 2.5 to int4
Type error: pg_query: parameter $1: cannot bind list [1, 2] to int4
{d: 2.5, n: 3}
pg_transaction: ERROR 25P02: the transaction was aborted by an earlier error and rolled back instead of committed
`)
}

// Two tasks' savepoints on one transaction take turns: the rollback of
// one does not undo the other's released work.
func TestConcurrentSavepoints(t *testing.T) {
	check(t, `
let db = pg_pool()
pg_execute(db, "CREATE TABLE pv (x int PRIMARY KEY)")
println(pg_transaction(db, fn(tx) {
  let a = spawn {
    try {
      pg_transaction(tx, fn(t2) {
        pg_execute(t2, "INSERT INTO pv VALUES (1)")
        sleep(200ms)
        throw "A fails"
      })
    } catch (e) { return "A: ${e}" }
  }
  let b = spawn {
    sleep(50ms)
    pg_transaction(tx, fn(t2) { pg_execute(t2, "INSERT INTO pv VALUES (2)") })
    return "B ok"
  }
  let c = spawn {
    sleep(50ms)
    pg_execute(tx, "INSERT INTO pv VALUES (3)")
    return "C ok"
  }
  return [await(a), await(b), await(c)]
}))
println(pg_query(db, "SELECT x FROM pv ORDER BY x"))
pg_close(db)
`, `[A: A fails, B ok, C ok]
[{x: 2}, {x: 3}]
`)
}

// An array's text form separates its elements with the element type's
// pg_type.typdelim: `;` for box (whose text holds commas), also for an
// array of a domain over box, which is looked up in pg_type.
func TestArrayDelimiters(t *testing.T) {
	check(t, `
let db = pg_connect()
pg_execute(db, "CREATE DOMAIN boxd AS box")
let r = pg_query_one(db, """SELECT ARRAY[box(point(0,0), point(1,1)), box(point(2,2), point(3,3))] AS boxes,
  ARRAY[box(point(0,0), point(1,1)), NULL, box(point(2,2), point(3,3))]::boxd[] AS domains,
  ARRAY[point(1,2), point(3,4)] AS points""")
for k in r.keys() {
  println("${k}: ${len(r[k])} ${r[k]}")
}
let b = pg_query_one(db, "SELECT $1::box[] AS b, $2::boxd[] AS d, array_length($1::box[], 1) AS n", [["(1,1),(0,0)", "(3,3),(2,2)"], ["(5,5),(4,4)"]])
println(b)
pg_close(db)
`, `boxes: 2 [(1,1),(0,0), (3,3),(2,2)]
domains: 3 [(1,1),(0,0), nil, (3,3),(2,2)]
points: 2 [(1,2), (3,4)]
{b: [(1,1),(0,0), (3,3),(2,2)], d: [(5,5),(4,4)], n: 2}
`)
}

// An int, a float or a bool binds to a type read as text (xid, cid,
// regclass, money, an array of xid) as its text, which the server parses;
// a whole float reads as an integer, one with a fraction is refused for
// xid, xid8 and cid (whose input would drop the fraction).
func TestBindScalarsAsText(t *testing.T) {
	check(t, `
let db = pg_connect()
println(pg_query_one(db, """SELECT $1::xid AS x, $2::cid AS c, $3::xid8 AS x8, $4::regclass::text AS rc, $5::money::text AS m,
  $6::xid[] AS xs, $7::regclass::text AS whole""", [5, 6, 7, 1259, 2.5, [1, 2], 1259.0]))
println(try { pg_query_one(db, "SELECT $1::xid AS x", [2.5]) } catch (e) { e })
println(try { pg_query_one(db, "SELECT $1::cid[] AS x", [[1, 2.5]]) } catch (e) { e })
println(pg_query_one(db, "SELECT $1::bit(1) AS b", [1]))
pg_close(db)
`, `{c: 6, m: $2.50, rc: pg_class, whole: pg_class, x: 5, x8: 7, xs: [1, 2]}
Type error: pg_query_one: parameter $1: cannot bind float 2.5 to xid (a float with a fraction; round it or use an int)
Type error: pg_query_one: parameter $1: cannot bind list [1, 2.5] to cid[] (a float with a fraction; round it or use an int)
{b: 1}
`)
}
