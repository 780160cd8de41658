package hmacsig

import (
	"errors"
	"testing"
	"time"
)

// The vector is openssl's:
// printf '1700000000.{"a":1}' | openssl dgst -sha256 -hmac key -hex
func TestTimestampedMatchesOpenSSL(t *testing.T) {
	got := Timestamped([]byte("key"), "1700000000", []byte(`{"a":1}`))
	if want := "a438e398bfafc57e4396bb7fc2304422f0f768e965d073ca313cb52e22e6ad03"; got != want {
		t.Errorf("Timestamped = %s, want %s", got, want)
	}
}

func TestFresh(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	for ts, want := range map[string]error{
		"1700000000": nil,
		"1699999700": nil, // 5 minutes old: the edge of the window
		"1700000300": nil,
		"1699999699": &OutsideWindow{5 * time.Minute},
		"1700000301": &OutsideWindow{5 * time.Minute},
		"17e8":       ErrNotSeconds,
		"":           ErrNotSeconds,
	} {
		err := Fresh(ts, now, 5*time.Minute)
		var ow *OutsideWindow
		switch {
		case want == nil && err != nil,
			want == ErrNotSeconds && !errors.Is(err, ErrNotSeconds),
			want != nil && want != ErrNotSeconds && (!errors.As(err, &ow) || err.Error() != "timestamp outside the replay window of 5m0s"):
			t.Errorf("Fresh(%q) = %v, want %v", ts, err, want)
		}
	}
}
