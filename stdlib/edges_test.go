package stdlib_test

import "testing"

// Huge ranges answer len/in/last exactly or saturated, never wrapped
// (issue 17 item 7).
func TestHugeRanges(t *testing.T) {
	expectOutput(t, `
let r = range(-2, 9223372036854775807)
println(r.len())
println([5 in r, -2 in r, -3 in r, 9223372036854775806 in r, 9223372036854775807 in r])
println([r.contains(5), r.last()])
let whole = range(-9223372036854775807 - 1, 9223372036854775807)
println([whole.len(), 0 in whole, whole.empty()])
println(range(9223372036854775807, -9223372036854775807 - 1).len())
println(range(-9223372036854775807 - 1, -9223372036854775807 - 1).last())
`, `9223372036854775807
[true, true, false, true, false]
[true, 9223372036854775806]
[9223372036854775807, true, false]
0
nil`)
}

// A huge sleep or deadline saturates: the sleep waits until the enclosing
// deadline and the deadline never fires early (issue 17 item 7).
func TestHugeDurationsSaturate(t *testing.T) {
	expectOutput(t, `
let slept = try { deadline 50ms { sleep(9223372036854775807); "woke" } } catch (e) { "deadline fired" }
println(slept)
let ms = try { deadline 50ms { sleep_ms(9223372036854775807); "woke" } } catch (e) { "deadline fired" }
println(ms)
let huge = try { deadline 9223372036854775807 { sleep(1); "ran" } } catch (e) { "fired at once" }
println(huge)
`, `deadline fired
deadline fired
ran`)
}
