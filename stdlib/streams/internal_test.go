package streams

import (
	"bufio"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func parseAll(text string) []sseEvent {
	var out []sseEvent
	newSSEParser().parseText(text, func(e sseEvent) { out = append(out, e) })
	return out
}

func TestSSEParserFollowsTheStandard(t *testing.T) {
	evs := parseAll("\uFEFFdata\n\ndata: a\ndata\ndata:  b\n\nid: x\x00y\nid\ndata: c\n\nretry: 1x\nretry: +5\nevent: e\ndata: d\n\nunknown: 1\n\n")
	want := []sseEvent{
		{event: "message", data: "", retry: -1},
		{event: "message", data: "a\n\n b", retry: -1},
		{event: "message", data: "c", id: "", retry: -1},
		{event: "e", data: "d", retry: -1},
	}
	if len(evs) != len(want) {
		t.Fatalf("got %+v", evs)
	}
	for i := range want {
		if evs[i] != want[i] {
			t.Errorf("event %d: got %+v, want %+v", i, evs[i], want[i])
		}
	}
}

func TestCompleteUTF8HoldsBackACutSequence(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int
	}{{"abc", 3}, {"a\xc3", 1}, {"a\xc3\xa9", 3}, {"\xe2\x82", 0}, {"\xe2\x82\xac", 3}, {"\xf0\x9f\x98", 0}, {"\xff", 1}} {
		if got := completeUTF8([]byte(c.in)); got != c.want {
			t.Errorf("completeUTF8(%q) = %d, want %d", c.in, got, c.want)
		}
	}
}

// ServeHTTP streams what was sent before and after the client connected,
// and a client that goes away shows as disconnected.
func TestSSEResponseServesHTTP(t *testing.T) {
	s, err := newSSEResponse("test", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.write("test", "data: early\n\n", true); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s)
	defer srv.Close()
	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") || resp.Header.Get("Cache-Control") != "no-cache" {
		t.Errorf("headers: %v", resp.Header)
	}
	r := bufio.NewReader(resp.Body)
	line, _ := r.ReadString('\n')
	if line != "data: early\n" {
		t.Errorf("first line %q", line)
	}
	r.ReadString('\n')
	s.write("test", "data: late\n\n", true)
	line, _ = r.ReadString('\n')
	if line != "data: late\n" {
		t.Errorf("second line %q", line)
	}
	resp.Body.Close()
	// the server notices the client is gone at its next write
	for i := 0; i < 1000; i++ {
		ok, _ := s.write("test", "data: more\n\n", true)
		if !ok {
			break
		}
		s.mu.Lock()
		gone := s.disconnected
		s.mu.Unlock()
		if gone {
			break
		}
		<-timeAfterMs(5)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.disconnected {
		t.Error("the response did not notice the client leaving")
	}
}

// Serve over a plain writer ends when the script closes the response.
func TestSSEResponseServeEndsOnClose(t *testing.T) {
	s, _ := newSSEResponse("test", nil)
	var sb strings.Builder
	done := make(chan error)
	go func() { done <- s.Serve(context.Background(), &sb, nil) }()
	s.write("test", "data: x\n\n", false)
	s.mu.Lock()
	s.closed = true
	s.wakeLocked()
	s.mu.Unlock()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if sb.String() != "data: x\n\n" {
		t.Errorf("wrote %q", sb.String())
	}
	if err := s.Serve(context.Background(), &sb, nil); err != errAttached {
		t.Errorf("second Serve: %v", err)
	}
}

func timeAfterMs(ms int) <-chan time.Time { return time.After(time.Duration(ms) * time.Millisecond) }

// A full queue makes its filler wait until an item is taken, and
// finishing the queue releases a waiting filler.
func TestQueueLimitHoldsTheFiller(t *testing.T) {
	q := newQueue[int]()
	q.limit = 2
	q.push(1)
	q.push(2)
	pushed := make(chan bool)
	go func() { pushed <- q.push(3) }()
	select {
	case <-pushed:
		t.Fatal("push into a full queue did not wait")
	case <-timeAfterMs(20):
	}
	if x, ok, _, _, _ := q.poll(); !ok || x != 1 {
		t.Fatalf("poll: %v %v", x, ok)
	}
	if !<-pushed {
		t.Fatal("the push after a take failed")
	}
	go func() { pushed <- q.push(4) }()
	q.finish(nil)
	if <-pushed {
		t.Error("a push into a finished queue succeeded")
	}
}
