package postgres_test

import (
	"context"
	"testing"

	"github.com/harnlang/harn/eventlog"
	"github.com/harnlang/harn/eventlog/eventlogtest"
	"github.com/harnlang/harn/eventlog/eventlogtest/pgtest"
	"github.com/harnlang/harn/eventlog/postgres"
)

func open(t *testing.T, url string) *postgres.Log {
	t.Helper()
	l, err := postgres.Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func TestConformance(t *testing.T) {
	eventlogtest.Run(t, func(t *testing.T) eventlog.Log { return open(t, pgtest.Schema(t)) })
}

// BenchmarkDispatch measures with the server's defaults (every commit
// waits for the WAL flush) and with synchronous_commit=off for the
// session, which an operator may choose: a crash of a harn process still
// loses nothing, a crash of the database server can lose the last
// fraction of a second of commits.
func BenchmarkDispatch(b *testing.B) {
	for _, c := range []struct{ name, param string }{{"sync", ""}, {"async-commit", "synchronous_commit=off"}} {
		b.Run(c.name, func(b *testing.B) {
			eventlogtest.Bench(b, func(b *testing.B) eventlog.Log {
				url := pgtest.Schema(b)
				if c.param != "" {
					url += "&" + c.param
				}
				l, err := postgres.Open(context.Background(), url)
				if err != nil {
					b.Fatal(err)
				}
				return l
			})
		})
	}
}
