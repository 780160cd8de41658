package eventlogtest

import (
	"context"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/harnlang/harn/eventlog"
)

// Bench measures dispatch throughput on a fresh log from open: each
// operation is one delivery accepted (with its envelope record), claimed
// and completed (with an attempt and an outbox record), the log work of
// one trigger dispatch with a trivial handler. It reports dispatches/s.
//
//   - serial: one goroutine accepts a batch, then claims and completes it;
//   - parallel: 64 goroutines (the concurrent clients) each accept one delivery and run
//     a claim/complete cycle, as concurrent fires do.
func Bench(b *testing.B, open func(b *testing.B) eventlog.Log) {
	b.Run("serial", func(b *testing.B) {
		l := open(b)
		defer l.Close()
		in := l.Inbox()
		const batch = 32
		b.ResetTimer()
		for i := 0; i < b.N; i += batch {
			n := min(batch, b.N-i)
			for j := 0; j < n; j++ {
				benchAccept(b, in, fmt.Sprint("s", i+j))
			}
			for left := n; left > 0; {
				ls, err := in.Claim(context.Background(), "bench", left, time.Minute)
				if err != nil {
					b.Fatal(err)
				}
				for _, lease := range ls {
					benchComplete(b, in, lease)
				}
				left -= len(ls)
			}
		}
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "dispatches/s")
	})
	b.Run("parallel", func(b *testing.B) {
		l := open(b)
		defer l.Close()
		in := l.Inbox()
		var seq atomic.Int64
		b.SetParallelism(64 / runtime.GOMAXPROCS(0))
		b.ResetTimer()
		b.RunParallel(func(pb *testing.PB) {
			owner := fmt.Sprint("w", seq.Add(1))
			for pb.Next() {
				benchAccept(b, in, fmt.Sprint("p", seq.Add(1)))
				ls, err := in.Claim(context.Background(), owner, 4, time.Minute)
				if err != nil {
					b.Error(err)
					return
				}
				for _, lease := range ls {
					benchComplete(b, in, lease)
				}
			}
		})
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "dispatches/s")
	})
}

var benchEnvelope = []byte(`{"provider":"manual","kind":"fire","payload":{"n":1},"headers":{"x-harn-binding-id":"b"}}`)

func benchAccept(b *testing.B, in eventlog.Inbox, id string) {
	_, _, err := in.Accept(context.Background(), eventlog.Delivery{ID: id, BindingID: "b", Envelope: benchEnvelope},
		eventlog.TopicRecord{Topic: "trigger.inbox.envelopes", Record: eventlog.Record{Kind: "envelope", Payload: benchEnvelope}})
	if err != nil {
		b.Fatal(err)
	}
}

func benchComplete(b *testing.B, in eventlog.Inbox, l eventlog.Lease) {
	err := in.Complete(context.Background(), l, eventlog.Done, "",
		eventlog.TopicRecord{Topic: "trigger.attempts", Record: eventlog.Record{Kind: "attempt", Payload: []byte(`{"status":"succeeded"}`)}},
		eventlog.TopicRecord{Topic: "trigger.outbox", Record: eventlog.Record{Kind: "result", Payload: []byte(`{"ok":true}`)}})
	if err != nil {
		b.Error(err)
	}
}
