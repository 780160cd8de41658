// Package crashtest proves the event log's durability claims with real
// processes: its tests re-execute their own binary as dispatch workers
// (accept → claim → run a handler that leaves a side effect → complete),
// kill them with SIGKILL at random instants, and check the log after every
// restart — on SQLite and on PostgreSQL, and with three workers sharing one
// PostgreSQL database while one of them dies holding leases.
package crashtest
