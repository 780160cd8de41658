package vm

import (
	"reflect"
	"testing"
)

// Close runs the OnClose functions once, the last registered first; one
// registered on a closed VM runs at once.
func TestOnClose(t *testing.T) {
	v := newTestVM()
	var order []int
	v.OnClose(func() { order = append(order, 1) })
	v.OnClose(func() { order = append(order, 2) })
	v.Close()
	v.Close()
	if !reflect.DeepEqual(order, []int{2, 1}) {
		t.Fatalf("order = %v, want [2 1]", order)
	}
	v.OnClose(func() { order = append(order, 3) })
	if !reflect.DeepEqual(order, []int{2, 1, 3}) {
		t.Fatalf("late OnClose: order = %v", order)
	}
}
