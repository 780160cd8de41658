package postgres_test

import (
	"context"
	"testing"

	"github.com/harnlang/harn/eventlog"
	"github.com/harnlang/harn/eventlog/eventlogtest"
	"github.com/harnlang/harn/eventlog/internal/pgtest"
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

func BenchmarkDispatch(b *testing.B) {
	eventlogtest.Bench(b, func(b *testing.B) eventlog.Log {
		l, err := postgres.Open(context.Background(), pgtest.Schema(b))
		if err != nil {
			b.Fatal(err)
		}
		return l
	})
}
