package protocol

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
)

// A requestTable answers as a map would, whatever the order of puts
// and removes, with the first entry in its field or in the map.
func TestRequestTableIsAMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var table requestTable
	want := map[string]*Request{}
	reqs := make([]*Request, 8)
	for i := range reqs {
		reqs[i] = &Request{}
	}
	for step := range 5000 {
		key := strconv.Itoa(rng.IntN(4))
		r := reqs[rng.IntN(len(reqs))]
		switch rng.IntN(3) {
		case 0:
			table.put(key, r)
			want[key] = r
		case 1:
			table.remove(key, r)
			if want[key] == r {
				delete(want, key)
			}
		}
		for k := range 4 {
			key := strconv.Itoa(k)
			if got := table.get(key); got != want[key] {
				t.Fatalf("step %d: get(%s) = %p, want %p", step, key, got, want[key])
			}
		}
	}
}

// An HTTP request's connection, which holds one request, makes no map.
func TestRequestTableOneRequestMakesNoMap(t *testing.T) {
	var table requestTable
	r := &Request{}
	table.put("1", r)
	if table.get("1") != r || table.more != nil {
		t.Fatalf("one request: get %p, map %v", table.get("1"), table.more)
	}
	table.remove("1", r)
	if table.get("1") != nil {
		t.Fatal("removed request still found")
	}
}

// Ids read from a message's text are copies: an HTTP request's body
// buffer is reused for the next request while a task may still answer
// with the id.
func TestIDsDoNotAliasTheText(t *testing.T) {
	line := []byte(`{"jsonrpc":"2.0","id":"a\"b","method":"ping"}`)
	wire := wireID(`a"b`, line)
	unparsed := unparsedID(line)
	want := string(line)
	for i := range line {
		line[i] = 'x'
	}
	if got, _ := wire.(json.RawMessage); string(got) != `"a\"b"` {
		t.Errorf("wireID after the text changed: %s", got)
	}
	if got, _ := unparsed.(json.RawMessage); string(got) != `"a\"b"` {
		t.Errorf("unparsedID after the text changed: %s (text was %s)", got, want)
	}
}

// Calls registered while a drain starts are either refused or waited
// for: Drain never returns while a call it let in is still running, and
// nothing is let in after it returned. track and untrack take no lock,
// so this is what their ordering must keep.
func TestTrackAndDrainRace(t *testing.T) {
	for round := range 500 {
		s := NewServer(newFake(), Options{})
		var returned, overlapped atomic.Bool
		var wg sync.WaitGroup
		for range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					req := &Request{}
					if !s.track(req, nil) {
						return
					}
					for range 3 {
						if returned.Load() {
							overlapped.Store(true)
						}
						runtime.Gosched()
					}
					s.untrack(req)
				}
			}()
		}
		runtime.Gosched()
		if err := s.Drain(context.Background()); err != nil {
			t.Fatal(err)
		}
		returned.Store(true)
		wg.Wait()
		if overlapped.Load() {
			t.Fatalf("round %d: Drain returned while a call it let in was running", round)
		}
		if s.track(&Request{}, nil) {
			t.Fatalf("round %d: a call was let in after Drain returned", round)
		}
	}
}

// Every call's context ends with Drain's bound, its cause
// ErrShuttingDown, whichever of the server's stop contexts it was made
// from.
func TestDrainEndsEveryCallContext(t *testing.T) {
	f := newFake()
	f.ctxs = make(chan context.Context, 8)
	srv := NewServer(f, Options{Parallel: true})
	c := startPipeServer(t, srv)
	const calls = 6
	for id := 1; id <= calls; id++ {
		c.Send(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": modern(map[string]any{"name": "block"}, nil)})
	}
	ctxs := make([]context.Context, calls)
	for i := range ctxs {
		ctxs[i] = <-f.ctxs
	}
	bound, cancel := context.WithCancel(context.Background())
	cancel()
	srv.Drain(bound)
	for i, ctx := range ctxs {
		<-ctx.Done()
		if cause := context.Cause(ctx); cause != ErrShuttingDown {
			t.Errorf("call %d: cause %v, want ErrShuttingDown", i, cause)
		}
	}
}
