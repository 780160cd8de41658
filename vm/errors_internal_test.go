package vm

import "testing"

func TestGroupDigits(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 9990: "9,990", 1234567: "1,234,567"} {
		if got := groupDigits(n); got != want {
			t.Errorf("groupDigits(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestMaxFramesFromEnv(t *testing.T) {
	for env, want := range map[string]int{"": DefaultMaxFrames, "300": 300, "x": DefaultMaxFrames, "-1": DefaultMaxFrames, "99999999": MaxMaxFrames} {
		t.Setenv("HARN_MAX_DEPTH", env)
		if got := maxFramesFromEnv(); got != want {
			t.Errorf("HARN_MAX_DEPTH=%q: %d, want %d", env, got, want)
		}
	}
}
