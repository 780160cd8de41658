package pg

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/harnlang/harn/stdlib/internal/lib"
	htime "github.com/harnlang/harn/stdlib/time"
	"github.com/harnlang/harn/vm"
)

// DB is a database handle: a pgxpool pool (pg_pool), a pool of one
// connection (pg_connect, so session state such as SET or temporary
// tables lasts between statements), or a mock (pg_mock_pool).
type DB struct {
	kind string // "pg_pool" or "pg_connection"
	name string // host:port/database, "mock" for a mock
	pool *pgxpool.Pool
	mock *mock

	mu     sync.Mutex
	closed bool
	// inTx counts the transactions each thread has open on the handle:
	// a pool of one connection cannot serve the handle itself to a
	// thread whose transaction holds that connection, and pg_close
	// cannot wait for a transaction of the thread that calls it.
	inTx map[*vm.Thread]int
	// types are the types pgx does not know that statements on the
	// handle met, looked up once (bind.go).
	types map[uint32]userType
}

func (d *DB) Type() string { return d.kind }
func (*DB) Truth() bool    { return true }
func (d *DB) Display(sb *strings.Builder) {
	sb.WriteString("<")
	sb.WriteString(d.kind)
	sb.WriteByte(':')
	sb.WriteString(d.name)
	sb.WriteByte('>')
}

// EqualTo: a handle equals only itself.
func (d *DB) EqualTo(o vm.Value) bool { e, ok := o.Object().(*DB); return ok && d == e }

// Tx is the handle pg_transaction passes to its callback (type "pg_tx").
type Tx struct {
	db    *DB
	tx    pgx.Tx // nil for a mock's transaction
	depth int    // 0 for a transaction, n for the n-th nested savepoint

	// mu serializes the statements of tasks that share the handle: one
	// connection runs one statement at a time. A savepoint shares its
	// outer transaction's mutex (and connection).
	mu   *sync.Mutex
	done bool // guarded by mu

	// gate is held (a token in it) while a nested pg_transaction of one
	// task runs on this handle: statements and savepoints of other tasks
	// on the handle wait for it to end, so that none of them lands inside
	// that savepoint and is undone by its rollback. holder is that task.
	gate   chan struct{}
	hmu    sync.Mutex
	holder *vm.Thread // guarded by hmu

	// savepoints counts the savepoints of the outermost transaction
	// (shared by its nested ones), so that each has its own name, as pgx
	// names them; sp is this savepoint's (mock transactions record it).
	savepoints *int
	sp         string
}

// enter waits until no other task holds t for a nested transaction; the
// caller runs its statement, then calls release.
func (t *Tx) enter(ctx context.Context, th *vm.Thread) (release func(), err error) {
	t.hmu.Lock()
	mine := t.holder == th
	t.hmu.Unlock()
	if mine {
		return func() {}, nil
	}
	select {
	case t.gate <- struct{}{}:
		return func() { <-t.gate }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// hold is enter for a nested transaction: t stays the task's until the
// returned release.
func (t *Tx) hold(ctx context.Context, th *vm.Thread) (release func(), err error) {
	t.hmu.Lock()
	mine := t.holder == th // only th itself sets or clears its hold
	t.hmu.Unlock()
	leave, err := t.enter(ctx, th)
	if err != nil || mine {
		return leave, err
	}
	t.hmu.Lock()
	t.holder = th
	t.hmu.Unlock()
	return func() {
		t.hmu.Lock()
		t.holder = nil
		t.hmu.Unlock()
		leave()
	}, nil
}

// enterMock is enter for a mock's handle, whose statements run on the
// VM's thread: the wait releases the VM.
func (t *Tx) enterMock(th *vm.Thread) (release func(), err error) {
	var eerr error
	stop := htime.BlockingCtx(th, func(ctx context.Context) { release, eerr = t.enter(ctx, th) })
	if stop != nil {
		if release != nil {
			release()
		}
		return nil, stop
	}
	return release, eerr
}

func (*Tx) Type() string { return "pg_tx" }
func (*Tx) Truth() bool  { return true }
func (t *Tx) Display(sb *strings.Builder) {
	sb.WriteString("<pg_tx:")
	sb.WriteString(t.db.name)
	sb.WriteByte('>')
}
func (t *Tx) EqualTo(o vm.Value) bool { u, ok := o.Object().(*Tx); return ok && t == u }

func init() {
	lib.Def("pg_connect", "pg_connect(url_or_options?)",
		"a PostgreSQL connection handle (one session); the URL comes from the argument, else HARN_PG_URL or DATABASE_URL",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			return open(th, "pg_connect", a.At(0), vm.Nil, true)
		})
	lib.Def("pg_pool", "pg_pool(url_or_options?, options?)",
		"a PostgreSQL connection pool handle (options: max_conns, min_conns, connect_timeout_ms, application_name, …)",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			return open(th, "pg_pool", a.At(0), a.At(1), false)
		})
	lib.Def("pg_query", "pg_query(db, sql, params?)",
		"run a query → list of row dicts (column → value); params is a list bound to $1, $2, …",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			return run(th, "pg_query", a)
		})
	lib.Def("pg_query_one", "pg_query_one(db, sql, params?)",
		"run a query → its first row as a dict, or nil when it returns none",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			return run(th, "pg_query_one", a)
		})
	lib.Def("pg_execute", "pg_execute(db, sql, params?)",
		"run a statement → {rows_affected}; without params the text may hold several statements",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			return run(th, "pg_execute", a)
		})
	lib.Def("pg_transaction", "pg_transaction(db, fn, options?)",
		"run fn(tx) in a transaction: commit when it returns (its result is the result), roll back and rethrow when it throws",
		transaction)
	lib.Def("pg_close", "pg_close(db)", "close a connection or pool (later statements on it fail)",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			d, ok := a.At(0).Object().(*DB)
			if !ok {
				return vm.Value{}, vm.Typef("pg_close: expected a pg_pool or pg_connection, got %s", a.At(0).Type())
			}
			return vm.Nil, d.close(th)
		})
}

// ---- opening ----

// open builds a handle from a URL (or keyword/value string), an options
// dict, or nothing (the environment), and checks that the server answers.
func open(th *vm.Thread, name string, target, extra vm.Value, single bool) (vm.Value, error) {
	var url string
	var opts *vm.Dict
	switch {
	case target.IsNil() || !target.IsValid():
	case target.Kind() == vm.KString:
		s, _ := target.AsString()
		url = s.Go()
	case target.Kind() == vm.KDict:
		opts, _ = target.AsDict()
	default:
		return vm.Value{}, vm.Typef("%s: expected a connection URL or an options dict, got %s", name, target.Type())
	}
	if extra.IsValid() && !extra.IsNil() {
		d, ok := extra.AsDict()
		if !ok {
			return vm.Value{}, lib.BadOptions(name, extra)
		}
		if opts == nil {
			opts = d
		} else {
			opts = opts.Merge(d)
		}
	}
	o, err := readOptions(name, opts)
	if err != nil {
		return vm.Value{}, err
	}
	if single && (o.maxConns > 0 || o.minConns > 0) {
		return vm.Value{}, vm.Typef("%s: max_conns and min_conns are options of pg_pool (pg_connect is one connection)", name)
	}
	if url != "" && o.url != "" {
		return vm.Value{}, vm.Typef("%s: the URL is given twice (argument and url option)", name)
	}
	if url == "" {
		url = o.url
	}
	switch {
	case url != "" && o.dsn != "":
		if strings.Contains(url, "://") {
			return vm.Value{}, vm.Typef("%s: give either a URL or host/port/user/password/database/sslmode, not both", name)
		}
		url += " " + o.dsn // the fields override the keyword/value string's
	case o.dsn != "":
		url = o.dsn
	case url == "":
		url = os.Getenv("HARN_PG_URL")
		if url == "" {
			url = os.Getenv("DATABASE_URL")
		}
		if url == "" {
			return vm.Value{}, vm.Throwf("%s: no database URL: pass one or set HARN_PG_URL or DATABASE_URL", name)
		}
	}
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return vm.Value{}, vm.Throwf("%s: invalid connection string: %s", name, pgMessage(err))
	}
	if h := cfg.ConnConfig.Host; h != "" && !strings.HasPrefix(h, "/") {
		// A TCP server is network egress (docs/policy.md, "Enforcement");
		// a Unix socket is not.
		target := "postgres://" + net.JoinHostPort(h, strconv.Itoa(int(cfg.ConnConfig.Port))) + "/"
		if err := lib.CheckEgress(th, target); err != nil {
			return vm.Value{}, err
		}
	}
	if o.connectTimeout > 0 {
		cfg.ConnConfig.ConnectTimeout = o.connectTimeout
	} else if cfg.ConnConfig.ConnectTimeout == 0 {
		cfg.ConnConfig.ConnectTimeout = 10 * time.Second
	}
	if o.appName != "" {
		cfg.ConnConfig.RuntimeParams["application_name"] = o.appName
	}
	if single {
		cfg.MaxConns, cfg.MinConns = 1, 0
	} else {
		if o.maxConns > 0 {
			cfg.MaxConns = o.maxConns
		}
		if o.minConns > 0 {
			cfg.MinConns = min(o.minConns, cfg.MaxConns)
		}
	}
	// Every statement is described afresh (an unnamed statement, one more
	// round trip) instead of cached: a cached statement or description
	// outlives a schema change (ALTER TABLE, DROP and CREATE) and then
	// fails with "cached plan must not change result type", which inside
	// a transaction aborts it (docs/pg.md, "Statements and parameters").
	cfg.ConnConfig.DefaultQueryExecMode = pgx.QueryExecModeDescribeExec
	cfg.ConnConfig.StatementCacheCapacity = 0
	cfg.ConnConfig.DescriptionCacheCapacity = 0
	cfg.AfterConnect = func(ctx context.Context, c *pgx.Conn) error {
		registerTypes(c.TypeMap())
		return nil
	}
	kind := "pg_pool"
	if single {
		kind = "pg_connection"
	}
	d := &DB{kind: kind, name: describe(cfg), inTx: map[*vm.Thread]int{}}
	var perr error
	stop := htime.BlockingCtx(th, func(ctx context.Context) {
		d.pool, perr = pgxpool.NewWithConfig(ctx, cfg)
		if perr == nil {
			if perr = d.pool.Ping(ctx); perr != nil {
				d.pool.Close()
			}
		}
	})
	if stop != nil {
		if perr == nil && d.pool != nil {
			d.pool.Close()
		}
		return vm.Value{}, stop
	}
	if perr != nil {
		return vm.Value{}, vm.Throwf("%s: cannot connect: %s", name, pgMessage(perr))
	}
	return vm.Of(d), nil
}

// describe is host:port/database, the handle's display name (never the
// password).
func describe(cfg *pgxpool.Config) string {
	c := cfg.ConnConfig
	host := c.Host
	if strings.HasPrefix(host, "/") {
		host = "socket"
	}
	return host + ":" + strconv.Itoa(int(c.Port)) + "/" + c.Database
}

type options struct {
	url, dsn           string
	appName            string
	maxConns, minConns int32
	connectTimeout     time.Duration
}

// connectOptions are the keys of pg_connect's and pg_pool's options.
var connectOptions = []string{"url", "host", "port", "user", "password", "database", "sslmode", "application_name", "max_conns", "min_conns", "connect_timeout_ms"}

// readOptions reads the options dict of pg_connect and pg_pool. The
// connection fields become a keyword/value string (dsn).
func readOptions(name string, d *vm.Dict) (options, error) {
	var o options
	if d == nil {
		return o, nil
	}
	if err := lib.CheckOptions(name, d, connectOptions); err != nil {
		return o, err
	}
	var dsn []string
	var err error
	d.Range(func(k string, v vm.Value) bool {
		if v.IsNil() {
			return true
		}
		switch k {
		case "url":
			s, ok := v.AsString()
			if !ok {
				err = vm.Typef("%s: url must be a string, got %s", name, v.Type())
				return false
			}
			o.url = s.Go()
		case "host", "user", "password", "database", "sslmode":
			key := k
			if k == "database" {
				key = "dbname"
			}
			dsn = append(dsn, key+"="+dsnQuote(vm.ToDisplay(v)))
		case "port":
			n, ok := v.AsInt()
			if !ok || n <= 0 || n > 65535 {
				err = vm.Typef("%s: port must be an int from 1 to 65535, got %s", name, lib.Display(v))
				return false
			}
			dsn = append(dsn, "port="+strconv.FormatInt(int64(n), 10))
		case "application_name":
			o.appName = vm.ToDisplay(v)
		case "max_conns", "min_conns":
			n, ok := v.AsInt()
			if !ok || n < 0 || n > 10000 || (k == "max_conns" && n == 0) {
				err = vm.Typef("%s: %s must be a positive int, got %s", name, k, lib.Display(v))
				return false
			}
			if k == "max_conns" {
				o.maxConns = int32(n)
			} else {
				o.minConns = int32(n)
			}
		case "connect_timeout_ms":
			ms, ok := v.AsInt()
			if dur, isDur := v.AsDuration(); isDur {
				ms, ok = vm.Int(dur), true
			}
			if !ok || ms <= 0 {
				err = vm.Typef("%s: connect_timeout_ms must be a positive int, got %s", name, lib.Display(v))
				return false
			}
			o.connectTimeout = time.Duration(ms) * time.Millisecond
		}
		return true
	})
	o.dsn = strings.Join(dsn, " ")
	return o, err
}

// dsnQuote quotes a keyword/value connection string value.
func dsnQuote(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}

// close marks the handle closed and closes its pool, waiting (with the
// VM lock released) for connections other tasks still use.
func (d *DB) close(th *vm.Thread) error {
	d.mu.Lock()
	if d.inTx[th] > 0 {
		d.mu.Unlock()
		return vm.Throwf("pg_close: a pg_transaction on this handle is still running in this task")
	}
	was := d.closed
	d.closed = true
	d.mu.Unlock()
	if was || d.pool == nil {
		return nil
	}
	done := make(chan struct{})
	go func() {
		d.pool.Close()
		close(done)
	}()
	th.Unlock()
	<-done
	th.Lock()
	return nil
}

// ---- statements ----

type op int

const (
	opQuery op = iota
	opQueryOne
	opExecute
)

func opOf(name string) op {
	switch name {
	case "pg_query_one":
		return opQueryOne
	case "pg_execute":
		return opExecute
	}
	return opQuery
}

// run is pg_query, pg_query_one and pg_execute.
func run(th *vm.Thread, name string, a vm.Args) (vm.Value, error) {
	sqlV := a.At(1)
	s, ok := sqlV.AsString()
	if !ok {
		return vm.Value{}, vm.Typef("%s: sql must be a string, got %s", name, sqlV.Type())
	}
	sql := s.Go()
	var params []vm.Value
	paramsV := vm.Nil
	if p := a.At(2); p.IsValid() && !p.IsNil() {
		l, ok := p.AsList()
		if !ok {
			return vm.Value{}, vm.Typef("%s: params must be a list, got %s", name, p.Type())
		}
		params = l.Items()
		paramsV = p
	}
	st := statement{sql: sql, args: make([]any, len(params)), descs: make([]string, len(params))}
	for i, p := range params {
		v, err := toParam(name, i, p)
		if err != nil {
			return vm.Value{}, err
		}
		st.args[i] = v
		st.descs[i] = describeParam(p)
	}
	o := opOf(name)
	switch h := a.At(0).Object().(type) {
	case *DB:
		if err := h.usable(th, name); err != nil {
			return vm.Value{}, err
		}
		if h.mock != nil {
			return h.mock.answer(name, o, sql, paramsV)
		}
		return exec(th, name, o, h, nil, st)
	case *Tx:
		if h.db.mock != nil {
			release, err := h.enterMock(th)
			if err != nil {
				return vm.Value{}, err
			}
			defer release()
			if err := h.check(name); err != nil {
				return vm.Value{}, err
			}
			return h.db.mock.answer(name, o, sql, paramsV)
		}
		return exec(th, name, o, h.db, h, st)
	}
	return vm.Value{}, vm.Typef("%s: expected a pg_pool, pg_connection or pg_tx, got %s", name, a.At(0).Type())
}

// usable fails when the handle is closed, or when it is a single
// connection the calling task's open transaction holds (the statement
// would wait for that transaction forever).
func (d *DB) usable(th *vm.Thread, name string) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return vm.Throwf("%s: the %s is closed", name, strings.TrimPrefix(d.kind, "pg_"))
	}
	if d.kind == "pg_connection" && d.pool != nil && d.inTx[th] > 0 {
		return vm.Throwf("%s: the connection is inside a pg_transaction of this task; run the statement on the transaction handle", name)
	}
	return nil
}

func (t *Tx) check(name string) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.done {
		return vm.Throwf("%s: the transaction is finished", name)
	}
	return nil
}

// statement is a statement's text and its parameters as pgx binds them,
// with each parameter's Harn type and display for the errors.
type statement struct {
	sql   string
	args  []any
	descs []string
}

// result is what a statement produced, in Go values: converted to Harn
// values on the VM's thread.
type result struct {
	fields   []pgconn.FieldDescription
	rows     [][]any
	affected int64
}

// exec runs one statement on a pool or a transaction with the VM lock
// released; cancelling the task cancels the statement.
func exec(th *vm.Thread, name string, o op, db *DB, tx *Tx, st statement) (vm.Value, error) {
	var res result
	var err error
	stop := htime.BlockingCtx(th, func(ctx context.Context) {
		if tx != nil {
			release, gerr := tx.enter(ctx, th)
			if gerr != nil {
				err = gerr
				return
			}
			defer release()
			tx.mu.Lock()
			defer tx.mu.Unlock()
			if tx.done {
				err = errTxDone
				return
			}
			res, err = runStatement(ctx, db, tx.tx.Conn(), o, st)
			return
		}
		c, aerr := db.pool.Acquire(ctx)
		if aerr != nil {
			err = aerr
			return
		}
		defer c.Release()
		res, err = runStatement(ctx, db, c.Conn(), o, st)
	})
	if stop != nil {
		return vm.Value{}, stop
	}
	if err != nil {
		return vm.Value{}, failure(name, err)
	}
	if o == opExecute {
		return vm.Of(lib.DictOf("rows_affected", vm.IntOf(res.affected))), nil
	}
	rows, err := convertRows(th, name, res)
	if err != nil {
		return vm.Value{}, err
	}
	if o == opQueryOne {
		if len(rows) == 0 {
			return vm.Nil, nil
		}
		return rows[0], nil
	}
	return vm.Of(lib.List(rows)), nil
}

var errTxDone = errors.New("the transaction is finished")

// runStatement runs st on c. pg_execute without parameters sends the
// text as it is (the simple protocol: several statements may follow one
// another). Every other statement is described by the server afresh, an
// unnamed statement (pgx's QueryExecModeDescribeExec, done here by hand
// so that the parameters bind knowing their types; docs/pg.md,
// "Statements and parameters").
func runStatement(ctx context.Context, db *DB, c *pgx.Conn, o op, st statement) (result, error) {
	var res result
	if o == opExecute && len(st.args) == 0 {
		tag, err := c.Exec(ctx, st.sql)
		res.affected = tag.RowsAffected()
		return res, err
	}
	sd, err := c.Prepare(ctx, "", st.sql)
	if err != nil {
		return res, err
	}
	m := c.TypeMap()
	if learned, err := db.learnTypes(ctx, c, sd); err != nil {
		return res, err
	} else if learned {
		// looking the types up replaced the unnamed statement
		if sd, err = c.Prepare(ctx, "", st.sql); err != nil {
			return res, err
		}
	}
	if len(sd.ParamOIDs) != len(st.args) {
		return res, fmt.Errorf("expected %d arguments, got %d", len(sd.ParamOIDs), len(st.args))
	}
	if err := checkParams(m, sd, st); err != nil {
		return res, err
	}
	var eqb pgx.ExtendedQueryBuilder
	if err := eqb.Build(m, sd, st.args); err != nil {
		return res, bindFailure(m, sd, st, err)
	}
	rr := c.PgConn().ExecStatement(ctx, sd, eqb.ParamValues, eqb.ParamFormats, eqb.ResultFormats)
	if o == opExecute {
		tag, err := rr.Close()
		res.affected = tag.RowsAffected()
		return res, err
	}
	rows := pgx.RowsFromResultReader(m, rr)
	defer rows.Close()
	res.fields = slices.Clone(rows.FieldDescriptions())
	for rows.Next() {
		vals, err := rows.Values()
		if err != nil {
			return res, err
		}
		res.rows = append(res.rows, vals)
		if o == opQueryOne {
			break
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return res, err
	}
	res.affected = rows.CommandTag().RowsAffected()
	return res, nil
}

// failure is the catchable error of a failed statement: the server's
// severity, SQLSTATE code and message (`pg_query: ERROR 42P01: relation
// "x" does not exist`), with its detail in parentheses when it has one.
func failure(name string, err error) error {
	if err == errTxDone {
		return vm.Throwf("%s: the transaction is finished", name)
	}
	var be bindError
	if errors.As(err, &be) {
		return vm.Typef("%s: %s", name, string(be))
	}
	if errors.Is(err, pgx.ErrTxCommitRollback) {
		// PostgreSQL answers COMMIT with ROLLBACK when an earlier
		// statement failed; say so in the form of that failure.
		return vm.Throwf("%s: ERROR 25P02: the transaction was aborted by an earlier error and rolled back instead of committed", name)
	}
	return vm.Throwf("%s: %s", name, pgMessage(err))
}

func pgMessage(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		msg := fmt.Sprintf("%s %s: %s", pe.Severity, pe.Code, pe.Message)
		if pe.Detail != "" {
			msg += " (" + pe.Detail + ")"
		}
		return msg
	}
	if errors.Is(err, context.Canceled) {
		return "cancelled"
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return "timed out"
	}
	return err.Error()
}

// ---- transactions ----

func transaction(th *vm.Thread, a vm.Args) (vm.Value, error) {
	const name = "pg_transaction"
	fn, ok := a.Callable(1)
	if !ok {
		return vm.Value{}, vm.Typef("%s: expected a function as the second argument, got %s", name, a.At(1).Type())
	}
	txo, beginSQL, err := txOptions(a.At(2))
	if err != nil {
		return vm.Value{}, err
	}
	var db *DB
	var parent *Tx
	switch h := a.At(0).Object().(type) {
	case *DB:
		db = h
		if err := db.usable(th, name); err != nil {
			return vm.Value{}, err
		}
	case *Tx:
		db, parent = h.db, h
		if err := h.check(name); err != nil {
			return vm.Value{}, err
		}
		if a.At(2).IsValid() && !a.At(2).IsNil() {
			return vm.Value{}, vm.Typef("%s: a nested transaction (a savepoint) takes no options", name)
		}
	default:
		return vm.Value{}, vm.Typef("%s: expected a pg_pool, pg_connection or pg_tx, got %s", name, a.At(0).Type())
	}
	t := &Tx{db: db, mu: &sync.Mutex{}, gate: make(chan struct{}, 1), savepoints: new(int)}
	if parent != nil {
		t.depth, t.mu, t.savepoints = parent.depth+1, parent.mu, parent.savepoints
		// the savepoint has the parent to itself until it ends
		var unhold func()
		var herr error
		stop := htime.BlockingCtx(th, func(ctx context.Context) { unhold, herr = parent.hold(ctx, th) })
		if stop != nil {
			if unhold != nil {
				unhold()
			}
			return vm.Value{}, stop
		}
		if herr != nil {
			return vm.Value{}, failure(name, herr)
		}
		defer unhold()
		if err := parent.check(name); err != nil {
			return vm.Value{}, err
		}
		parent.mu.Lock()
		*t.savepoints++
		t.sp = "sp_" + strconv.Itoa(*t.savepoints)
		parent.mu.Unlock()
	}
	if db.mock != nil {
		if parent != nil {
			beginSQL = "SAVEPOINT " + t.sp
		}
		db.mock.record(beginSQL, vm.Of(lib.List(nil)))
	} else {
		var berr error
		stop := htime.BlockingCtx(th, func(ctx context.Context) {
			if parent != nil {
				parent.mu.Lock()
				defer parent.mu.Unlock()
				if parent.done {
					berr = errTxDone
					return
				}
				t.tx, berr = parent.tx.Begin(ctx)
				return
			}
			t.tx, berr = db.pool.BeginTx(ctx, txo)
		})
		if stop != nil {
			if berr == nil && t.tx != nil {
				cleanup(th, func(ctx context.Context) { t.tx.Rollback(ctx) })
			}
			return vm.Value{}, stop
		}
		if berr != nil {
			return vm.Value{}, failure(name, berr)
		}
	}
	db.mu.Lock()
	db.inTx[th]++
	db.mu.Unlock()
	defer func() {
		db.mu.Lock()
		if db.inTx[th]--; db.inTx[th] <= 0 {
			delete(db.inTx, th)
		}
		db.mu.Unlock()
	}()

	res, callErr := th.Call1(fn, vm.Of(t))
	if callErr != nil {
		t.finish(th, false)
		return vm.Value{}, callErr
	}
	if err := t.finish(th, true); err != nil {
		return vm.Value{}, err
	}
	return res, nil
}

// finish commits or rolls back the transaction and marks the handle
// finished. A commit runs under the task's cancellation; a rollback
// always runs to the end (bounded by a timeout) so that a cancelled or
// failed task still leaves the connection clean. Both hold the handle's
// mutex: no statement of another task runs on the connection meanwhile.
func (t *Tx) finish(th *vm.Thread, commit bool) error {
	if m := t.db.mock; m != nil {
		t.mu.Lock()
		was := t.done
		t.done = true
		t.mu.Unlock()
		if was {
			return nil
		}
		sql := map[bool]string{true: "COMMIT", false: "ROLLBACK"}[commit]
		if t.depth > 0 {
			sp := t.sp
			sql = map[bool]string{true: "RELEASE SAVEPOINT " + sp, false: "ROLLBACK TO SAVEPOINT " + sp}[commit]
		}
		m.record(sql, vm.Of(lib.List(nil)))
		return nil
	}
	rollback := func(ctx context.Context) {
		t.mu.Lock()
		defer t.mu.Unlock()
		t.done = true
		t.tx.Rollback(ctx)
	}
	if !commit {
		cleanup(th, rollback)
		return nil
	}
	var err error
	stop := htime.BlockingCtx(th, func(ctx context.Context) {
		t.mu.Lock()
		defer t.mu.Unlock()
		t.done = true
		err = t.tx.Commit(ctx)
	})
	if stop != nil || err != nil {
		// a commit that failed or was cut short leaves nothing to keep
		cleanup(th, rollback)
	}
	if stop != nil {
		return stop
	}
	if err != nil {
		return failure("pg_transaction", err)
	}
	return nil
}

// cleanup runs work to its end with the VM lock released, whatever
// happens to the task meanwhile.
func cleanup(th *vm.Thread, work func(ctx context.Context)) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		work(ctx)
	}()
	th.Unlock()
	<-done
	th.Lock()
}

// txOptions reads pg_transaction's options: isolation and read_only.
func txOptions(v vm.Value) (pgx.TxOptions, string, error) {
	var o pgx.TxOptions
	begin := "BEGIN"
	if !v.IsValid() || v.IsNil() {
		return o, begin, nil
	}
	d, ok := v.AsDict()
	if !ok {
		return o, begin, lib.BadOptions("pg_transaction", v)
	}
	if err := lib.CheckOptions("pg_transaction", d, []string{"isolation", "read_only"}); err != nil {
		return o, begin, err
	}
	var err error
	d.Range(func(k string, x vm.Value) bool {
		switch k {
		case "isolation":
			switch lv := strings.ToLower(strings.ReplaceAll(vm.ToDisplay(x), "_", " ")); lv {
			case "serializable":
				o.IsoLevel = pgx.Serializable
			case "repeatable read":
				o.IsoLevel = pgx.RepeatableRead
			case "read committed":
				o.IsoLevel = pgx.ReadCommitted
			case "read uncommitted":
				o.IsoLevel = pgx.ReadUncommitted
			default:
				err = vm.Typef("pg_transaction: isolation must be serializable, repeatable read, read committed or read uncommitted, got %s", lib.Display(x))
				return false
			}
		case "read_only":
			b, ok := x.AsBool()
			if !ok {
				err = vm.Typef("pg_transaction: read_only must be a bool, got %s", x.Type())
				return false
			}
			if b {
				o.AccessMode = pgx.ReadOnly
			}
		}
		return true
	})
	if o.IsoLevel != "" {
		begin += " ISOLATION LEVEL " + strings.ToUpper(string(o.IsoLevel))
	}
	if o.AccessMode != "" {
		begin += " " + strings.ToUpper(string(o.AccessMode))
	}
	return o, begin, err
}
