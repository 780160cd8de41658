package harness

import (
	"slices"
	"testing"
)

func TestStringParams(t *testing.T) {
	for sig, want := range map[string][]int{
		"fs.read_text(path: string) -> string":                    {0},
		"fs.copy(src: string, dst: string) -> nil":                {0, 1},
		"term.color(text, name: string) -> string":                {1},
		"fs.mkdtemp(prefix?: string) -> string":                   nil,
		"process.exec(cmd: string, ...args) -> dict":              {0},
		"net.request(method: string, url: string, opts?) -> dict": {0, 1},
		"clock.now_ms() -> int":                                   nil,
	} {
		if got := stringParams(sig); !slices.Equal(got, want) {
			t.Errorf("stringParams(%q) = %v, want %v", sig, got, want)
		}
	}
}

func TestCapabilityAreaIsTheOneRegistered(t *testing.T) {
	RegisterCapability("math", "test_area_probe", []CapabilityMethod{Delegate("HarnessTestAreaProbe", "m", "len", "test_area_probe.m()", "")})
	defer func() {
		delete(capabilities, "test_area_probe")
		delete(capabilityByType, "HarnessTestAreaProbe")
	}()
	if area, ok := CapabilityArea("HarnessTestAreaProbe"); !ok || area != "math" {
		t.Errorf("CapabilityArea = %q, %v; want the area given at registration, math", area, ok)
	}
}
