package vm

// The VM's clock (docs/spec/builtins.md §4.9): real time, or a mock frozen
// by mock_time that only advance_time and sleeps move. Deadlines set while
// the clock is mocked also count mocked time (deadlineScope.mown), and under
// a mock the timeout of select, channel_select and sync acquires ends on
// the mocked clock too (Thread.WaitOnThreadsClocked).

import (
	"sync"
	"time"
)

// mockClock is a VM's mocked clock, under mu.
type mockClock struct {
	mu     sync.Mutex
	on     bool
	wallMs int64 // mocked wall time, in ms since the epoch
	monoMs int64 // mocked monotonic time, in ms since mock_time
	// changed is closed (and replaced) whenever the mocked time moves, to
	// wake the waits bounded by a mocked deadline.
	changed chan struct{}
}

// MockTime freezes the VM's clock at wallMs; the monotonic clock restarts at 0.
func (v *VM) MockTime(wallMs int64) {
	c := &v.clock
	c.mu.Lock()
	c.on, c.wallMs, c.monoMs = true, wallMs, 0
	c.notify()
	c.mu.Unlock()
}

// UnmockTime returns the VM to the real clock. Deadlines set while it was
// mocked no longer pass: the time they count stopped.
func (v *VM) UnmockTime() {
	c := &v.clock
	c.mu.Lock()
	c.on = false
	c.notify()
	c.mu.Unlock()
}

// MockNow is the mocked wall and monotonic time in ms; on is false when
// the clock is real.
func (v *VM) MockNow() (wallMs, monoMs int64, on bool) {
	c := &v.clock
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.wallMs, c.monoMs, c.on
}

// AdvanceTime moves a mocked clock forward by ms and returns the new wall
// time; on is false (and nothing moves) when the clock is real.
func (v *VM) AdvanceTime(ms int64) (wallMs int64, on bool) {
	c := &v.clock
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.on {
		return 0, false
	}
	c.wallMs += ms
	c.monoMs += ms
	c.notify()
	return c.wallMs, true
}

// notify wakes the waits watching the mocked time (c.mu held).
func (c *mockClock) notify() {
	if c.changed != nil {
		RawWake() // parked threads with a mocked deadline watch it
		close(c.changed)
		c.changed = nil
	}
}

// watchClock is a channel closed when the mocked time next changes.
func (v *VM) watchClock() <-chan struct{} {
	c := &v.clock
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.changed == nil {
		c.changed = make(chan struct{})
	}
	return c.changed
}

// mockedNow is the mocked wall time in ms, false when the clock is real.
func (v *VM) mockedNow() (int64, bool) {
	w, _, on := v.MockNow()
	return w, on
}

// SleepMocked is a sleep of d on a mocked clock: it advances the clock by
// d, or only up to the thread's mocked deadline when d would pass it, and
// then fails as a sleep interrupted by that deadline does. It reports
// false (and does nothing) when the clock is real.
func (th *Thread) SleepMocked(d time.Duration) (bool, error) {
	now, on := th.vm.mockedNow()
	if !on {
		return false, nil
	}
	if err := th.stopErr(); err != nil {
		return true, err
	}
	ms := d.Milliseconds()
	if at := th.MockDeadline(); at != 0 && now+ms >= at {
		th.vm.AdvanceTime(at - now)
		return true, th.stopErr()
	}
	th.vm.AdvanceTime(ms)
	return true, nil
}
