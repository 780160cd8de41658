package types

import "testing"

func TestHandleName(t *testing.T) {
	for in, want := range map[string]string{
		"fs": "HarnessFs", "fs_watch": "HarnessFsWatch", "code_index": "HarnessCodeIndex",
		"a__b": "HarnessAB", "_a": "HarnessA", "a_": "HarnessA", "": "Harness", "x_1y": "HarnessX1y",
	} {
		if got := HandleName(in); got != want {
			t.Errorf("HandleName(%q) = %q, want %q", in, got, want)
		}
		if got := handleNameUnicode(in); got != want {
			t.Errorf("handleNameUnicode(%q) = %q, want %q", in, got, want)
		}
	}
	if got, want := HandleName("éa_b"), handleNameUnicode("éa_b"); got != want {
		t.Errorf("HandleName of a non-ASCII name = %q, want %q", got, want)
	}
}

// Every harn start names the handle of each capability (twice: the
// checker's table and the library's), so naming one allocates once.
func TestHandleNameAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts do not hold under -race")
	}
	if n := testing.AllocsPerRun(100, func() { HandleName("secret_store") }); n > 1 {
		t.Errorf("HandleName: %.0f allocations, want 1", n)
	}
}
