package vm

import (
	"errors"
	"testing"
	"time"
)

// runGuarded runs f on a thread holding the lock and fails the test when
// it takes longer than a second of real time (the waits under test are
// an hour of mocked time).
func runGuarded(t *testing.T, th *Thread, f func() (bool, error)) (bool, error) {
	t.Helper()
	return runLocked(t, th, time.Second, "the wait ran on real time", f)
}

func isDeadline(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Kind == KindCancelled && e.Msg == "Deadline exceeded"
}

// A sleep under mock_time that would pass a deadline set under the mock
// advances the clock to the deadline and fails with it.
func TestMockedSleepStopsAtDeadline(t *testing.T) {
	v := newTestVM()
	v.MockTime(1000)
	th := v.NewThread()
	th.PushDeadlineIn(5*time.Second, 0)
	_, err := runGuarded(t, th, func() (bool, error) { return th.SleepMocked(time.Hour) })
	if !isDeadline(err) {
		t.Fatalf("sleep past the deadline: err=%v", err)
	}
	if wall, mono, _ := v.MockNow(); wall != 6000 || mono != 5000 {
		t.Fatalf("clock after the sleep: wall=%d mono=%d, want 6000 and 5000", wall, mono)
	}
	if !th.OwnDeadlinePassed() {
		t.Fatal("OwnDeadlinePassed is false after the mocked deadline")
	}
	th.PopDeadline()
	if mocked, err := th.SleepMocked(time.Hour); !mocked || err != nil {
		t.Fatalf("sleep without a deadline: mocked=%v err=%v", mocked, err)
	}
	v.UnmockTime()
	if mocked, _ := th.SleepMocked(time.Hour); mocked {
		t.Fatal("SleepMocked acted on a real clock")
	}
}

// A timeout on other threads under mock_time advances the mocked clock
// instead of waiting; a deadline set under the mock ends a wait when
// another thread moves the clock past it.
func TestMockedWaits(t *testing.T) {
	v := newTestVM()
	v.MockTime(0)
	th := v.NewThread()
	never := make(chan struct{}, 1)
	fired, err := runGuarded(t, th, func() (bool, error) { return th.WaitOnThreadsClocked(never, time.Hour) })
	if fired || err != nil {
		t.Fatalf("mocked timeout: fired=%v err=%v", fired, err)
	}
	if wall, _, _ := v.MockNow(); wall != time.Hour.Milliseconds() {
		t.Fatalf("clock after the timeout: %d", wall)
	}

	th.PushDeadlineIn(time.Minute, 0)
	fired, err = runGuarded(t, th, func() (bool, error) { return th.WaitOnThreadsClocked(never, time.Hour) })
	if fired || !isDeadline(err) {
		t.Fatalf("mocked timeout past the deadline: fired=%v err=%v", fired, err)
	}
	th.PopDeadline()

	th.PushDeadlineIn(time.Minute, 0)
	go func() {
		time.Sleep(20 * time.Millisecond)
		v.AdvanceTime(time.Minute.Milliseconds())
	}()
	fired, err = runGuarded(t, th, func() (bool, error) { return th.WaitOnThreads(never, -1) })
	if fired || !isDeadline(err) {
		t.Fatalf("advance_time past the deadline of a wait: fired=%v err=%v", fired, err)
	}
}
