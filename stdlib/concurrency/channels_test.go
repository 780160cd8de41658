package concurrency

import (
	"runtime"
	"testing"

	"github.com/harnlang/harn/vm"
)

// A send that does not wait places its value in the buffer while there is
// room, hands it to a waiting receiver otherwise, and releases the
// channel's lock either way.
func TestSendsPlaceAndUnlock(t *testing.T) {
	machine := vm.New(vm.NewUniverse())
	c := NewChannel(machine, "c", 1)
	if sent, open := c.TrySend(vm.IntOf(1)); !sent || !open {
		t.Fatalf("TrySend into room: %v, %v", sent, open)
	}
	if sent, open := c.TrySend(vm.IntOf(2)); sent || !open {
		t.Fatalf("TrySend into a full channel: %v, %v", sent, open)
	}
	if v, ok := c.TryReceive(); !ok || !isInt(v, 1) {
		t.Fatalf("TryReceive = %v, %v; want the buffered 1", v, ok)
	}
	got := make(chan vm.Value)
	go func() {
		th := machine.NewThread()
		th.Lock()
		defer th.Unlock()
		v, _, _ := c.Receive(th)
		got <- v
	}()
	th := machine.NewThread()
	th.Lock()
	for {
		c.mu.Lock()
		waiting := len(c.recvq) > 0
		c.mu.Unlock()
		if waiting {
			break
		}
		th.Unlock()
		runtime.Gosched()
		th.Lock()
	}
	if ok, err := c.Send(th, vm.IntOf(3)); !ok || err != nil {
		t.Fatalf("Send to a waiting receiver: %v, %v", ok, err)
	}
	th.Unlock()
	if v := <-got; !isInt(v, 3) {
		t.Fatalf("the receiver got %v, want 3", v)
	}
	c.Close()
	if sent, open := c.TrySend(vm.IntOf(4)); sent || open {
		t.Fatalf("TrySend after Close: %v, %v", sent, open)
	}
}

func isInt(v vm.Value, n int64) bool {
	i, ok := v.AsInt()
	return ok && int64(i) == n
}
