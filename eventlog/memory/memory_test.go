package memory_test

import (
	"testing"

	"github.com/harnlang/harn/eventlog"
	"github.com/harnlang/harn/eventlog/eventlogtest"
	"github.com/harnlang/harn/eventlog/memory"
)

func TestConformance(t *testing.T) {
	eventlogtest.Run(t, func(t *testing.T) eventlog.Log { return memory.New() })
}

func BenchmarkDispatch(b *testing.B) {
	eventlogtest.Bench(b, func(b *testing.B) eventlog.Log { return memory.New() })
}
