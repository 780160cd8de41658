package check

import "testing"

// container is the interface the associated-type cases share: Item is free,
// Size is fixed to int.
const container = `interface Container {
  type Item
  type Size = int
  fn get(self) -> Item
  fn put(self, x: Self.Item) -> Size
}
fn use_it<T>(c: T) where T: Container {
  println(c.put(c.get()))
}
`

func TestAssociatedTypes(t *testing.T) {
	const unsatisfied = "error: Type 'Box' does not satisfy interface 'Container': "
	runCases(t, []checkCase{
		{"inferred from the impl", container + `struct Box { v: int }
impl Box {
  fn get(self) -> int { return self.v }
  fn put(self, x: int) -> int { return x }
}
use_it(Box { v: 1 })`, nil},
		{"inferred, then disagreed with", container + `struct Box { v: int }
impl Box {
  fn get(self) -> int { return self.v }
  fn put(self, x: string) -> int { return 0 }
}
use_it(Box { v: 1 })`, []string{unsatisfied + "method 'put' parameter 1 has type 'string', expected 'int'"}},
		{"fixed type resolved otherwise", container + `struct Box { v: int }
impl Box {
  fn get(self) -> int { return self.v }
  fn put(self, x: int) -> string { return "" }
}
use_it(Box { v: 1 })`, []string{unsatisfied + "associated type 'Size' resolves to 'string', expected 'int'"}},
		{"provided by the impl", container + `struct Box { v: string }
impl Box {
  type Item = string
  fn get(self) -> Item { return self.v }
  fn put(self, x: Item) -> int { return 1 }
}
use_it(Box { v: "a" })`, nil},
		{"provided fixed type differs", container + `struct Box { v: string }
impl Box {
  type Item = string
  type Size = string
  fn get(self) -> Item { return self.v }
  fn put(self, x: Item) { return nil }
}
use_it(Box { v: "a" })`, []string{unsatisfied + "associated type 'Size' resolves to 'string', expected 'int'"}},
		{"provided type disagrees with a method", container + `struct Box { v: string }
impl Box {
  type Item = int
  fn get(self) -> string { return self.v }
  fn put(self, x) { return 1 }
}
use_it(Box { v: "a" })`, []string{unsatisfied + "method 'get' returns 'string', expected 'int'"}},
		{"missing a free one", `interface Pair {
  type K
  type V
  fn k(self) -> K
}
fn f<T>(p: T) where T: Pair { println(p.k()) }
struct Box { v: int }
impl Box {
  type K = int
  fn k(self) -> K { return self.v }
}
f(Box { v: 1 })`, []string{"error: Type 'Box' does not satisfy interface 'Pair': missing associated type 'V'"}},
		{"unannotated impl is not checked", container + `struct Box { v: int }
impl Box {
  fn get(self) { return self.v }
  fn put(self, x) { return "no" }
}
use_it(Box { v: 1 })`, nil},
		{"undeclared and twice", container + `struct Box { v: int }
impl Box {
  type Item = int
  type Item = int
  type Elem = int
  fn get(self) -> int { return self.v }
  fn put(self, x: int) -> int { return x }
}`, []string{
			"error: associated type 'Item' is declared twice in impl 'Box'",
			"error: associated type 'Elem' in impl 'Box' is not declared by any interface",
		}},
		{"uses resolve inside the impl", container + `struct Box { v: int }
impl Box {
  type Item = string
  fn get(self) -> Self.Item { return self.v }
  fn put(self, x: Item) -> int {
    let n: int = x
    return n
  }
}`, []string{
			"error: return value: expected string, found int",
			"error: let binding `n`: expected int, found string",
		}},
		{"method calls see the provided type", container + `struct Box { v: int }
impl Box {
  type Item = string
  fn get(self) -> Item { return "s" }
  fn put(self, x: Item) -> int { return 0 }
}
let n: int = Box { v: 1 }.get()`, []string{"error: let binding `n`: expected int, found string"}},
		{"interface-typed parameter", container + `struct Box { v: int }
impl Box {
  type Item = int
  fn get(self) -> Item { return self.v }
  fn put(self, x: Item) -> int { return x }
}
fn show(c: Container) { println(c.get()) }
show(Box { v: 2 })`, nil},
	})
}
