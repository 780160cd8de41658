package flow

import (
	"testing"

	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/vm"
)

func TestWrapKeepsAFlowValue(t *testing.T) {
	d := wrap(vm.IntOf(3))
	if typeOf(vm.Of(d)) != "flow_value" {
		t.Fatalf("wrap: _type = %q", typeOf(vm.Of(d)))
	}
	d = d.Set("confidence", vm.FloatOf(0.5))
	again := wrap(vm.Of(d))
	if c, _ := lib.Get(again, "confidence").AsFloat(); c != 0.5 {
		t.Fatalf("wrapping a flow value lost its confidence: %v", lib.Get(again, "confidence"))
	}
	if v, _ := lib.Get(again, "value").AsInt(); v != 3 {
		t.Fatalf("wrapping a flow value changed its value: %v", lib.Get(again, "value"))
	}
}

func TestRemediationValidates(t *testing.T) {
	if _, err := remediation("x", "act", lib.DictOf("severity", vm.Str("urgent"))); err == nil {
		t.Error("accepted an unknown severity")
	}
	if _, err := remediation("x", "act", lib.DictOf("steps", vm.Of(lib.List([]vm.Value{vm.IntOf(1)})))); err == nil {
		t.Error("accepted a non-string step")
	}
	r, err := remediation("x", "act", vm.NewDict())
	if err != nil || typeOf(r) != "flow_remediation" {
		t.Fatalf("remediation = %v, %v", r, err)
	}
}

func TestCheckWeight(t *testing.T) {
	for _, w := range []vm.Value{vm.FloatOf(-0.1), vm.FloatOf(1.1), vm.Str("high")} {
		if checkWeight("x", lib.DictOf("weight", w)) == nil {
			t.Errorf("weight %v accepted", w)
		}
	}
	if err := checkWeight("x", lib.DictOf("weight", vm.IntOf(1))); err != nil {
		t.Errorf("weight 1 rejected: %v", err)
	}
}
