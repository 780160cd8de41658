package syntax

import (
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/harnlang/harn/lang/diag"
)

// parseSx parses src and prints its items as S-expressions.
func parseSx(t *testing.T, src string) string {
	t.Helper()
	f, err := Parse("t.harn", []byte(src))
	if err != nil {
		t.Fatalf("parse %q: %v", src, err)
	}
	return sx(f)
}

func TestPrecedence(t *testing.T) {
	tests := []struct{ src, want string }{
		{"2 + 3 * 4 ** 2", "(+ 2 (* 3 (** 4 2)))"},
		{"nil ?? 1 + 1", "(+ (?? nil 1) 1)"},
		{"a * b ?? c", "(?? (* a b) c)"},
		{"a ?? b * c", "(?? a (* b c))"},
		{"10 - 2 - 3", "(- (- 10 2) 3)"},
		{"2 ** 3 ** 2", "(** 2 (** 3 2))"},
		{"-2 ** 2", "(- (** 2 2))"},
		{"2 ** -1", "(** 2 (- 1))"},
		{"!a ** b", "(! (** a b))"},
		{"- -x", "(- (- x))"},
		{"a || b && c", "(|| a (&& b c))"},
		{"a && b || c", "(|| (&& a b) c)"},
		{"a == b < c", "(== a (< b c))"},
		{"a != b == c", "(== (!= a b) c)"},
		{"a < b + c", "(< a (+ b c))"},
		{"x in xs == true", "(== (in x xs) true)"},
		{`"z" not in "harn"`, `(not in "z" "harn")`},
		{"a + b in c", "(in (+ a b) c)"},
		{"true ? 1 : 2", "(?: true 1 2)"},
		{`true ? "a" : false ? "b" : "c"`, `(?: true "a" (?: false "b" "c"))`},
		{"a ? b ? c : d : e", "(?: a (?: b c d) e)"},
		{"a ?\n b :\n c", "(?: a b c)"},
		{"a\n ? b\n : c", "(?: a b c)"},
		{"[d ? [1] : [], 2]", "[(?: d [1] []) 2]"},
		{"xs?[0]", "(?idx xs 0)"},
		{"xs?.[0]", "(?idx xs 0)"},
		{"a.b!.c", "(. (!! (. a b)) c)"},
		{"a || b ? c : d", "(?: (|| a b) c d)"},
		{"n % 2 == 0 ? 1 : 2", "(?: (== (% n 2) 0) 1 2)"},
		{"1 to 5", "(to 1 5)"},
		{"0 to n exclusive", "(to-excl 0 n)"},
		{"a ? 1 : 2 to b", "(to (?: a 1 2) b)"},
		{"1 to 3 |> f", "(|> (to 1 3) f)"},
		{"x |> f |> g", "(|> (|> x f) g)"},
		{"x |> f(_, 1)", "(|> x (call f _ 1))"},
		{"3 in (1 to 5)", "(in 3 (to 1 5))"},
		{"try* f(x)", "(try* (call f x))"},
		{"try* a + b", "(+ (try* a) b)"},
		{"-try* a", "(- (try* a))"},
		{"a.b.c", "(. (. a b) c)"},
		{"a?.b", "(?. a b)"},
		{"a.b(1)", "(mcall a b 1)"},
		{"a?.b(1)", "(?mcall a b 1)"},
		{"a[0]", "(idx a 0)"},
		{"a?[0]", "(?idx a 0)"},
		{"a[1:2]", "(slice a 1 2)"},
		{"a[:2]", "(slice a _ 2)"},
		{"a[1:]", "(slice a 1 _)"},
		{"a?.[1:2]", "(?slice a 1 2)"},
		{"a?[:2]", "(?slice a _ 2)"},
		{"a[:]", "(slice a _ _)"},
		{"a[-2:]", "(slice a (- 2) _)"},
		{"f(x)?", "(prop (call f x))"},
		{"f(x)?.y", "(?. (call f x) y)"},
		{"a? ?? b", "(?? (prop a) b)"},
		{"a?[0]?.b?", "(prop (?. (?idx a 0) b))"},
		{"{a: xs?[0], b: 1}", "(dict (a (?idx xs 0)) (b 1))"},
		{"[xs?[0], c ? [1] : [], 2]", "[(?idx xs 0) (?: c [1] []) 2]"},
		{"{type: 1}.type", "(. (dict (type 1)) type)"},
		{"x.if.match", "(. (. x if) match)"},
		{"42.to_string()", "(mcall 42 to_string)"},
		{"f<int>(x)", "(call f<int> x)"},
		{"f<list<int>, string?>(x)", "(call f<list<int> string?> x)"},
		{"a < b", "(< a b)"},
		{"a < b && c > d", "(&& (< a b) (> c d))"},
		{"a < b > (c)", "(call a<b> c)"},
		{"f()(x)", "(vcall (call f) x)"},
		{"(g)(1, 2)", "(vcall g 1 2)"},
		{"d.make()(1)", "(vcall (mcall d make) 1)"},
		{"xs[0](2)", "(vcall (idx xs 0) 2)"},
		{"f()(1)(2)", "(vcall (vcall (call f) 1) 2)"},
		{`mutex("k") { 1 }`, `(mutex-expr "k" {1})`},
		{`mutex("k", timeout: 50ms) { 1 }`, `(mutex-expr "k" 50ms {1})`},
		{`mutex("k", {timeout: t}) { 1 }`, `(mutex-expr "k" (dict (timeout t)) {1})`},
		{`mutex("k", timeout) { 1 }`, `(mutex-expr "k" timeout {1})`},
		{"[mutex { 1 }]", "[(mutex-expr _ {1})]"},
		{"Point { x: 1, y: 2 }", "(struct-lit Point (x 1) (y 2))"},
		{"Point {}", "(struct-lit Point)"},
		{`Point { "x": 1 }`, `(struct-lit Point ("x" 1))`},
		{"geo.Point { x: 1 }", "(struct-lit geo.Point (x 1))"},
		{"geo.Point {}", "(struct-lit geo.Point)"},
		{"if m == Mode.On {} else { 1 }", "(if (== m (. Mode On)) {} {1})"},
		{"if c == a.b.C {} else { 1 }", "(if (== c (. (. a b) C)) {} {1})"},
		{"[1, 2, ...xs]", "[1 2 (... xs)]"},
		{"[1 2 3]", "[1 2 3]"},
		{"f(1 2, ...xs,)", "(call f 1 2 (... xs))"},
		{"{}", "(dict)"},
		{`{a: 1, "b c": 2, [k]: 3, ...d}`, `(dict (a 1) ("b c" 2) ([k] 3) (... d))`},
		{"{a: 1 b: 2}", "(dict (a 1) (b 2))"},
		{"{ x -> x * 2 }", "(closure (x) {(* x 2)})"},
		{"{ -> 42 }", "(closure () {42})"},
		{"{ x, y: int = 1 -> x }", "(closure (x y:int=1) {x})"},
		{"{a: { x -> x }}", "(dict (a (closure (x) {x})))"},
		{"{f: fn(x) -> int { x }}", "(dict (f (fn-lit (x) -> int {x})))"},
		{"{f: fn() -> fn(int) -> int { g }}", "(dict (f (fn-lit () -> (fn-type int -> int) {g})))"},
		{"{ f: fn(int) -> int, y -> f(y) }", "(closure (f:(fn-type int -> int) y) {(call f y)})"},
		{"{ f: fn(int) -> int -> f(1) }", "(closure (f:(fn-type int -> int)) {(call f 1)})"},
		{"fn(a, b) { a - b }", "(fn-lit (a b) {(- a b)})"},
		{"fn(a: int) -> int { a }", "(fn-lit (a:int) -> int {a})"},
		{"(a + b) * c", "(* (+ a b) c)"},
		{"if a { 1 } else { 2 }", "(if a {1} {2})"},
		{"if a { 1 } else if b { 2 } else { 3 }", "(if a {1} (if b {2} {3}))"},
		{"1.5", "1.5f"},
		{"9223372036854775807", "9223372036854775807"},
		{"9223372036854775808.0", "9.223372036854776e+18f"},
		{"5s", "5000ms"},
		{"1500ms", "1500ms"},
		{"2m", "120000ms"},
		{"1h", "3600000ms"},
		{"1d", "86400000ms"},
		{"1w", "604800000ms"},
		{"nil", "nil"},
		{"true", "true"},
		{`r"a\n${x}"`, `r"a\\n${x}"`},
		{`r#"say "hi""#`, `r"say \"hi\""`},
		{`r##"a "# b"##`, `r"a \"# b"`},
		{"spawn { work() }", "(spawn {(call work)})"},
	}
	for _, tt := range tests {
		x, err := ParseExpr(tt.src)
		if err != nil {
			t.Errorf("ParseExpr(%q): %v", tt.src, err)
			continue
		}
		if got := sx(x); got != tt.want {
			t.Errorf("ParseExpr(%q) = %s, want %s", tt.src, got, tt.want)
		}
	}
}

// TestNewlines covers docs/spec/language.md §2.6: which operators continue an
// expression across a line break.
func TestNewlines(t *testing.T) {
	tests := []struct{ src, want string }{
		{"x = 1\n  + 2\n  + 3", "(= x (+ (+ 1 2) 3))"},
		{"x = a\n  |> f", "(= x (|> a f))"},
		{"x = a\n  || b\n  && c", "(= x (|| a (&& b c)))"},
		{"x = a\n  == b", "(= x (== a b))"},
		{"x = a\n  != b", "(= x (!= a b))"},
		{"x = a\n  < b", "(= x (< a b))"},
		{"x = a\n  > b", "(= x (> a b))"},
		{"x = a\n  <= b", "(= x (<= a b))"},
		{"x = a\n  >= b", "(= x (>= a b))"},
		{"x = a\n  ?? b", "(= x (?? a b))"},
		{"x = a\n  * b\n  / c\n  % d", "(= x (% (/ (* a b) c) d))"},
		{"x = a\n  ** b", "(= x (** a b))"},
		{"x = a\n  .b()\n  ?.c", "(= x (?. (mcall a b) c))"},
		{"x = a -\n  b", "(= x (- a b))"},
		{"x = a in\n  b", "(= x (in a b))"},
		{"x = a not in\n  b", "(= x (not in a b))"},
		{"x = a.\n  b", "(= x (. a b))"},
		{"x = a\n- b", "(= x a)\n(- b)"},
		{"x = a\nin", ""},
		{"x = a\n[1]", "(= x a)\n[1]"},
		{"f\n(1)", "f\n1"},
		{"f()\n(1)", "(call f)\n1"},
		{"x = a ? b\n  : c", "(= x (?: a b c))"},
		{"x = a?\ny", "(= x (prop a))\ny"},
		// a ternary branch spanning lines: `else` beginning a later line
		// continues it, a keyword inside a line is part of it
		{"x = a ? if b {\n  1\n} else {\n  2\n}\n  : c", "(= x (?: a (if b {1} {2}) c))"},
		{"x = a ? f(\n  1,\n) == nil : c", "(= x (?: a (== (call f 1) nil) c))"},
		{"x = a?\ny\nif b { }", "(= x (prop a))\ny\n(if b {})"},
		{"x = 2 + \\\n  3", "(= x (+ 2 3))"},
		{"x = 1 \\\n  - 2", "(= x (- 1 2))"},
		{"x = 1 /* a\n b */ - 2", "(= x (- 1 2))"},
		{"f(a\n  - b)", "(call f a (- b))"},
		{"let ok = true &&\n  false", "(let ok (&& true false))"},
		{"if a\n  && b { }", "(if (&& a b) {})"},
	}
	for _, tt := range tests {
		f, err := Parse("t.harn", []byte(tt.src))
		if tt.want == "" {
			if err == nil {
				t.Errorf("Parse(%q) succeeded, want an error", tt.src)
			}
			continue
		}
		if err != nil {
			t.Errorf("Parse(%q): %v", tt.src, err)
			continue
		}
		if got := sx(f); got != tt.want {
			t.Errorf("Parse(%q) =\n%s\nwant\n%s", tt.src, got, tt.want)
		}
	}
}

func TestStatements(t *testing.T) {
	tests := []struct{ src, want string }{
		{"let x = 1", "(let x 1)"},
		{"var x = 1", "(var x 1)"},
		{"const x = 1", "(const x 1)"},
		{"let x: int = 1", "(let x int 1)"},
		{"let x: int? = nil", "(let x int? nil)"},
		{"let _ = f()", "(let _ (call f))"},
		{"pub let x = 1", "(pub let x 1)"},
		{"pub const LIMIT = 10", "(pub const LIMIT 10)"},
		{`let {name, age: years, city = "unknown", ...rest} = p`, `(let {name age:years city="unknown" ...rest} p)`},
		{"let {type: kind, _x: _} = p", "(let {type:kind _x:_} p)"},
		{"let [head, second = 0, ...tail] = [7]", "(let [head second=0 ...tail] [7])"},
		{"let [_, mid, _] = xs", "(let [_ mid _] xs)"},
		{"let {} = d; let [] = l", "(let {} d)\n(let [] l)"},
		{"x = 1", "(= x 1)"},
		{"x += 1; x -= 1; x *= 2; x /= 2; x %= 2", "(+= x 1)\n(-= x 1)\n(*= x 2)\n(/= x 2)\n(%= x 2)"},
		{"d.b = 2", "(= (. d b) 2)"},
		{`d["a"] = 10`, `(= (idx d "a") 10)`},
		{"d.inner.deep.v = 5", "(= (. (. (. d inner) deep) v) 5)"},
		{"a[i][j] += 1", "(+= (idx (idx a i) j) 1)"},
		{"a.b[k].c = 1", "(= (. (idx (. a b) k) c) 1)"},
		{"for x in xs { println(x) }", "(for x xs {(call println x)})"},
		{"for (k, v) in d.iter() {}", "(for (k, v) (mcall d iter) {})"},
		{"for {key, value} in d {}", "(for {key value} d {})"},
		{"for [x, y] in pairs {}", "(for [x y] pairs {})"},
		{"for i in 0 to 10 exclusive {}", "(for i (to-excl 0 10) {})"},
		{"for x in Items { println(x) }", "(for x Items {(call println x)})"},
		{"while i < 10 { i += 1 }", "(while (< i 10) {(+= i 1)})"},
		{"while (i < 10) { break }", "(while (< i 10) {(break)})"},
		{"while true { continue }", "(while true {(continue)})"},
		{"defer { cleanup() }", "(defer {(call cleanup)})"},
		{"mutex { x() }", "(mutex {(call x)})"},
		{"scope { spawn { x() } }", "(scope {(spawn {(call x)})})"},
		{"scope = 1", "(= scope 1)"},
		{"scope(1)", "(call scope 1)"},
		{"let y = scope", "(let y scope)"},
		{"fn f() { return }", "(fn f () {(return)})"},
		{"fn f() { return; }", "(fn f () {(return)})"},
		{"fn f() {\n  return\n  x\n}", "(fn f () {(return); x})"},
		{"fn f() { return 1 }", "(fn f () {(return 1)})"},
		{"return", "(return)"},
		{"throw \"boom\"", `(throw "boom")`},
		{"guard x > 0 else { return }", "(guard (> x 0) {(return)})"},
		{`require n > 0, "positive"`, `(require (> n 0) "positive")`},
		{"require ok", "(require ok _)"},
		{"gen fn g() { yield 1; yield; emit 2 }", "(gen fn g () {(yield 1); (yield); (emit 2)})"},
		{"if a { b }", "(if a {b})"},
		{"if a {\n  b\n}\nelse {\n  c\n}", "(if a {b} {c})"},
		{"match x {\n  0 -> { \"zero\" }\n  1 | 2 -> { \"small\" }\n  n if n < 0 -> { n }\n  _ -> { 0 }\n}",
			`(match x (0 -> {"zero"}) (1 | 2 -> {"small"}) (n if (< n 0) -> {n}) (_ -> {0}))`},
		{"match s {\n  Shape.Circle(r) -> { r }\n  [x, ...rest] -> { x }\n  {kind: \"c\", r: radius} -> { radius }\n}",
			`(match s ((mcall Shape Circle r) -> {r}) ([x (... rest)] -> {x}) ((dict (kind "c") (r radius)) -> {radius}))`},
		{"match x { 1 -> { a }, 2 -> { b } }", "(match x (1 -> {a}) (2 -> {b}))"},
		{"try { a() } catch (e) { b() } finally { c() }", "(try {(call a)} catch e {(call b)} finally {(call c)})"},
		{"try { a() } catch e { b() }", "(try {(call a)} catch e {(call b)})"},
		{"try { a() } catch { b() }", "(try {(call a)} catch {(call b)})"},
		{"try { a() } catch (e: AppError) { b() }", "(try {(call a)} catch e:AppError {(call b)})"},
		{"try { a() } finally { c() }", "(try {(call a)} finally {(call c)})"},
		{"try {\n  a()\n}\ncatch (e) {\n}\nfinally {\n}", "(try {(call a)} catch e {} finally {})"},
		{"let r = try { a() }", "(let r (try {(call a)}))"},
		{"retry 3 { x() }", "(retry 3 {(call x)})"},
		{"retry (n + 1) { x() }", "(retry (+ n 1) {(call x)})"},
		{"retry attempts { x() }", "(retry attempts {(call x)})"},
		{"parallel 3 { i -> i * 2 }", "(parallel 3 i -> {(* i 2)})"},
		{"parallel each xs { x -> x } as stream", "(parallel-each xs x -> {x} stream)"},
		{"parallel each xs { x -> x }\nas = 1", "(parallel-each xs x -> {x})\n(= as 1)"},
		{"parallel settle xs with { max_concurrent: 2 } { x -> x }", "(parallel-settle xs max=2 x -> {x})"},
		{"let r = parallel each Items { item -> f(item) }", "(let r (parallel-each Items item -> {(call f item)}))"},
		{"deadline 30s { work() }", "(deadline 30000ms {(call work)})"},
		{"let h = spawn { work() }", "(let h (spawn {(call work)}))"},
		{"select {\n  v from ch { use(v) }\n  timeout 5s { t() }\n}", "(select (v from ch {(call use v)}) (timeout 5000ms {(call t)}))"},
		{"select { default { x() } }", "(select (default {(call x)}))"},
		{"select([a, b], 5ms)", "(call select [a b] 5ms)"},
		{"let r = select([a])", "(let r (call select [a]))"},
		{"f(select([a]))", "(call f (call select [a]))"},
		{"pipeline p() {\n  override setup(a, b) { a }\n  override teardown() {}\n}", "(pipeline p () {(override setup (a b) {a}); (override teardown () {})})"},
		{"let a = 1; let b = 2;", "(let a 1)\n(let b 2)"},
		{"\n\n;", ""},
		{"f();\n\ng()\n", "(call f)\n(call g)"},
		{"#!/usr/bin/env harn\nf()", "(call f)"},
		{"fn f() {}\n", "(fn f () {})"},
		{"let x = \"a\"\n  .upper()", `(let x (mcall "a" upper))`},
	}
	for _, tt := range tests {
		if tt.src == "\n\n;" {
			// A lone `;` has no item before it.
			if _, err := Parse("t.harn", []byte(tt.src)); err == nil {
				t.Errorf("Parse(%q) succeeded, want an error", tt.src)
			}
			continue
		}
		if got := parseSx(t, tt.src); got != tt.want {
			t.Errorf("Parse(%q) =\n%s\nwant\n%s", tt.src, got, tt.want)
		}
	}
}

func TestDeclarations(t *testing.T) {
	tests := []struct{ src, want string }{
		{"fn f(a, b = 2, ...rest) {}", "(fn f (a b=2 ...rest) {})"},
		{"fn f(a: int, b: list<string>) -> dict<string, int> {}", "(fn f (a:int b:list<string>) -> dict<string int> {})"},
		{"fn f<T>(x: T) -> T { return x }", "(fn f<T> (x:T) -> T {(return x)})"},
		{"fn f<in T, out U, V>() {}", "(fn f<in T out U V> () {})"},
		{"fn f<out>() {}", "(fn f<out> () {})"},
		{"fn parse(s: string) -> Doc throws ParseError {}", "(fn parse (s:string) -> Doc throws ParseError {})"},
		{"fn load(p) throws NotFound | ParseError {}", "(fn load (p) throws (| NotFound ParseError) {})"},
		{"fn f<T>(x: T) -> T throws E where T: Show + Eq, U: Ord {}", "(fn f<T> (x:T) -> T throws E where T:Show+Eq where U:Ord {})"},
		{"fn f() throws {code: int} {}", "(fn f () throws {code:int} {})"},
		{"fn f() throws {} {}", "(fn f () throws {} {})"},
		{"fn f() throws {...R} {}", "(fn f () throws {} {})"}, // an open shape: the printer leaves out row tails
		{"pub fn f() {}", "(pub fn f () {})"},
		{"pub gen fn f() {}", "(pub gen fn f () {})"},
		{"fn main(harness: Harness) {}", "(fn main (harness:Harness) {})"},
		{"fn f() -> int\n{\n  return 1\n}", "(fn f () -> int {(return 1)})"},
		{"fn f(\n  a,\n  b,\n) {}", "(fn f (a b) {})"},
		{"pipeline default(task, n: int) -> int extends base { 1 }", "(pipeline default (task n:int) -> int extends base {1})"},
		{"pub pipeline p() {}", "(pipeline p () {})"},
		{`pipeline p(n: int, q: string = "x") -> int { n }`, `(pipeline p (n:int q:string="x") -> int {n})`},
		{"tool search(q: string) -> list<string> {\n  description \"Search\"\n  return []\n}", `(tool search (q:string) -> list<string> "Search" {(return [])})`},
		{"tool t() { description \"d\"; x }", `(tool t () "d" {x})`},
		{"tool t() { x }", `(tool t () {x})`},
		{"struct Point { x: int, y: int }", "(struct Point x:int y:int)"},
		{"struct Point<T> {\n  x: T\n  label?: string\n  extra\n}", "(struct Point<T> x:T label?:string extra)"},
		{"struct Empty {}", "(struct Empty)"},
		{"enum Shape { Circle(radius), Rect(w: int, h), Dot }", "(enum Shape Circle(radius) Rect(w:int h) Dot)"},
		{"enum Opt<T> {\n  Some(value: T)\n  None\n}", "(enum Opt<T> Some(value:T) None)"},
		{"enum E { A() }", "(enum E A())"},
		{"type Status = \"pass\" | \"fail\"", `(type Status (| "pass" "fail"))`},
		{"type N = 0 | 1 | -1", "(type N (| 0 1 -1))"},
		{"type B = true | false | nil", "(type B (| bool bool nil))"},
		{"type F = fn(int, string) -> bool", "(type F (fn-type int string -> bool))"},
		{"type F0 = fn() -> nil", "(type F0 (fn-type -> nil))"},
		{"type S = {name: string, age?: int, type: string}", "(type S {name:string age?:int type:string})"},
		{"type S2 = {a: int b: int}", "(type S2 {a:int b:int})"},
		{"type L = [int]", "(type L [int])"},
		{"type I = A & B | C", "(type I (| (& A B) C))"},
		{"type O = Result<int, string>?", "(type O Result<int string>?)"},
		{"type P<T> = {value: T}", "(type P<T> {value:T})"},
		{"type U =\n  \"a\"\n  | \"b\"", `(type U (| "a" "b"))`},
		{"pub type T = int", "(type T int)"},
		{"interface Shape { fn area(self) -> float; type Unit }", "(interface Shape (fn area (self) -> float) (type Unit))"},
		{"interface C<T> {\n  fn get<U>(self, k: U) -> T\n  type Item = int\n}", "(interface C<T> (fn get<U> (self k:U) -> T) (type Item int))"},
		{"impl Point {\n  fn a(self) {}\n  pub fn b(self) {}\n}", "(impl Point (fn a (self) {}) (pub fn b (self) {}))"},
		{"impl Box {\n  type Item = int\n  fn get(self) -> Item {}\n}", "(impl Box (type Item int) (fn get (self) -> Item {}))"},
		{"impl Box { type Item = list<string>; fn a(self) {} }", "(impl Box (type Item list<string>) (fn a (self) {}))"},
		{"interface C {\n  type Item\n  fn get(self) -> Self.Item\n  fn put(self, x: Self.Item?)\n}", "(interface C (fn get (self) -> Self.Item) (fn put (self x:Self.Item?)) (type Item))"},
		{"fn f(x: Self) -> Self.Out {}", "(fn f (x:Self) -> Self.Out {})"},
		{"fn f(x: geo.Shape) -> geo.Shape? {}", "(fn f (x:geo.Shape) -> geo.Shape? {})"},
		{"pub interface I { fn m(self) }", "(interface I (fn m (self)))"},
		{"fn f<T>(x: T) where T: geo.Shape + Eq {}", "(fn f<T> (x:T) where T:geo.Shape+Eq {})"},
		{"fn f<C, T>(c: C) -> T where C: Container<T> {}", "(fn f<C T> (c:C) -> T where C:Container<T> {})"},
		{"fn f<C, K, V>(c: C) where C: Eq + Store<K, list<V>>, K: Show {}", "(fn f<C K V> (c:C) where C:Eq+Store<K list<V>> where K:Show {})"},
		{"fn f<C: Container<T>, T>(c: C) {}", "(fn f<C T> (c:C) where C:Container<T> {})"},
		{"fn f<C: Eq + ns.Box<list<T>>, T>(c: C) {}", "(fn f<C T> (c:C) where C:Eq+ns.Box<list<T>> {})"},
		{"skill review {\n  description \"Review\"\n  when_to_use \"always\"\n}", `(skill review (description "Review") (when_to_use "always"))`},
		{"eval_pack smoke \"Smoke\" {\n  dataset: \"x\"\n  summarize { done() }\n  let y = 2\n}", `(eval_pack smoke "Smoke" (dataset: "x") (summarize {(call done)}) (let y 2))`},
		{"eval_pack \"title\" {}", `(eval_pack  "title")`},
		{"eval_pack e {}", `(eval_pack e "")`},
		{"import \"std/text\"", `(import "std/text")`},
		{"import { a, b } from \"lib\"", `(import "lib" (a b))`},
		{"import { a b, } from \"lib\"", `(import "lib" (a b))`},
		{"import {} from \"lib\"", `(import "lib" ())`},
		{"pub import \"lib\"", `(pub import "lib")`},
		{"import a::b::{x, y}", `(import "a/b" (x y))`},
		{"import std::{x}", `(import "std" (x))`},
		{"@test\npipeline t() {}", "(pipeline t @test () {})"},
		{"@deprecated(since: \"0.8\", use: \"new\")\nfn old() {}", `(fn old @deprecated(since:"0.8" use:"new") () {})`},
		{"@job(\"name\", retry: {max: 3, backoff: 5s})\n@retry(max: 3)\npub fn j() {}",
			`(pub fn j @job("name" retry:(dict (max 3) (backoff 5000ms))) @retry(max:3) () {})`},
		{"@schedule(cron.daily(\"0 * * * *\"), -1, -2.5, [1, 2], github.pr_opened, x(), nil, true, r\"raw\")\nfn s() {}",
			`(fn s @schedule((mcall cron daily "0 * * * *") (- 1) (- 2.5f) [1 2] (. github pr_opened) (call x) nil true r"raw") () {})`},
		{"@annotations(readOnly: true,)\nfn a() {}", "(fn a @annotations(readOnly:true) () {})"},
		{"@a @b fn f() {}", "(fn f @a @b () {})"},
		{"@sibling\nstruct S {}", "(struct S)"},
	}
	for _, tt := range tests {
		if got := parseSx(t, tt.src); got != tt.want {
			t.Errorf("Parse(%q) =\n%s\nwant\n%s", tt.src, got, tt.want)
		}
	}
}

func TestStrings(t *testing.T) {
	tests := []struct{ src, want string }{
		{`"plain"`, `"plain"`},
		{`""`, `""`},
		{`"a\nb\tc\\d\"e\$f\rg\0h"`, `"a\nb\tc\\d\"e$f\rg\x00h"`},
		{`"a\qb"`, `"a\\qb"`},
		{`"\u0041"`, `"\\u0041"`},
		{`"\é"`, `"\\é"`},
		{`"$x and $"`, `"$x and $"`},
		{`"\${x}"`, `"${x}"`},
		{`"${who} has ${n * 2} apples"`, `(istr who " has " (* n 2) " apples")`},
		{`"${a["k"]}"`, `(istr (idx a "k"))`},
		{`"${ "${inner}" }"`, `(istr (istr inner))`},
		{`"${ {a: 1}.a }"`, `(istr (. (dict (a 1)) a))`},
		{`"x${1.0}y"`, `(istr "x" 1f "y")`},
		{`"""kept: \${who}"""`, `"kept: ${who}"`},
		{`"""a\nb"""`, `"a\\nb"`},
		{"\"\"\"\n    Dear ${name},\n      thanks for the report.\n    Bye\n    \"\"\"", `(istr "Dear " name ",\n  thanks for the report.\nBye")`},
		{"\"\"\"\n  Order:\n  ${item} x2\n  \"\"\"", `(istr "Order:" item "x2")`},
		{"\"\"\"\n  plain\n    indented\n\n  end\n  \"\"\"", `"plain\n  indented\n\nend"`},
		{"\"\"\"\nno indent\n\"\"\"", `"no indent"`},
		{"\"\"\"\r\n  a\r\n  b\r\n  \"\"\"", `"a\nb"`},
		{"\"\"\"\r\n  a ${x}\r\n  b\r\n  \"\"\"", `(istr "a " x "\nb")`},
		{"\"\"\"\n   \n\"\"\"", `"   \n"`},
		{"\"\"\"\n${x}\n\"\"\"", `(istr x)`},
		{"\"\"\"\n${x} tail\n\"\"\"", `(istr x "tail")`},
		{"\"\"\"\n  a ${x}\n  ${y} b\n  \"\"\"", `(istr "a " x y "b")`},
		{"\"\"\"\n  ${x}  ${y}\n  \"\"\"", `(istr "  " x "  " y)`},
		{"\"\"\"\n  a\n  ${x}  ${y}\n  \"\"\"", `(istr "a" x y)`},
		{`r"raw \n ${who}"`, `r"raw \\n ${who}"`},
		{`"${x ?? "a}b"}"`, `(istr (?? x "a}b"))`},
		{`"${f("}")}"`, `(istr (call f "}"))`},
		{`"${x ?? "a\"b"}"`, `(istr (?? x "a\"b"))`},
		{"r#\"multi\nline\"#", `r"multi\nline"`},
		{"r#\"multi\r\nline\"#", `r"multi\nline"`},
	}
	for _, tt := range tests {
		x, err := ParseExpr(tt.src)
		if err != nil {
			t.Errorf("ParseExpr(%q): %v", tt.src, err)
			continue
		}
		if got := sx(x); got != tt.want {
			t.Errorf("ParseExpr(%q) = %s, want %s", tt.src, got, tt.want)
		}
	}
}

// TestErrors checks the upstream text of lexer and parse errors.
func TestErrors(t *testing.T) {
	tests := []struct{ src, golden string }{
		// separators
		{"let a = 1 let b = 2", "Expected top-level item separator (`;` or newline), got let at 1:11"},
		{"fn f() { let a = 1 let b = 2 }", "Expected statement separator (`;` or newline), got let at 1:20"},
		{"f() g()", "Expected top-level item separator (`;` or newline), got id(g) at 1:5"},
		{"let x = 1;;", "Expected expression, got ; at 1:11"},
		// every item of a tool body names the tool body, a nested block does not
		{"tool t(x) {\n  let a = 1 let b = 2\n}", "Expected tool body item separator (`;` or newline), got let at 2:13"},
		{"tool t(x) {\n  description \"d\" let b = 2\n}", "Expected tool body item separator (`;` or newline), got let at 2:19"},
		{"tool t(x) {\n  if x { let a = 1 let b = 2 }\n}", "Expected statement separator (`;` or newline), got let at 2:20"},
		// a spread in a struct literal (which takes only `name: value`)
		{"let q = Point {...p, x: 1}", "Expected top-level item separator (`;` or newline), got { at 1:15"},
		// `throws` or `->` without its type: the body's brace is a shape
		// type, and the first statement no shape field
		{"fn f() -> int throws {\n  return 1\n}", "Expected :, got int(1) at 2:10"},
		{"fn f() -> {\n  println(1)\n}", "Expected :, got ( at 2:10"},
		// interface and impl bodies hold methods and associated types
		{"interface I {\n  let x = 1\n}", "Expected fn, got let at 2:3"},
		{"impl P {\n  fn a(self) {}\n  42\n}", "Expected fn, got int(42) at 3:3"},
		{"impl P {\n  fn a(self) {}\n", "Unexpected end of file, expected }"},
		// after a comma a dict entry starts with its key; without one the } is missing
		{"let d = {a: 1, 3: 2}", "Expected dict key, got int(3) at 1:16"},
		{"let d = {a: 1 3: 2}", "Expected }, got int(3) at 1:15"},
		// an open record has one row tail
		{"type R = {a: int, ...T, ...U}", "Expected field name, got . at 1:25"},
		{"type R = {...T, a: int, ...U}", "Expected field name, got . at 1:25"},
		{";", "Expected expression, got ; at 1:1"},
		{"if x {} ; else {}", "Expected expression, got else at 1:11"},
		{"x = 1 2", "Expected top-level item separator (`;` or newline), got int(2) at 1:7"},
		{"x = 2.5 3.5", "Expected top-level item separator (`;` or newline), got float(3.5) at 1:9"},
		{"x = 1 \"t\"", "Expected top-level item separator (`;` or newline), got str(t) at 1:7"},
		{"x = 1 r\"t\"", "Expected top-level item separator (`;` or newline), got rstr(t) at 1:7"},
		{"x = 1 \"${t}\"", "Expected top-level item separator (`;` or newline), got istr(...) at 1:7"},
		{"x = 1 5s", "Expected top-level item separator (`;` or newline), got duration(5000ms) at 1:7"},
		{"let s = \"\"\"\n  a\n  \"\"\" let t = 1", "Expected top-level item separator (`;` or newline), got let at 3:7"},
		// assignment targets
		{"f() = 1", "Expected top-level item separator (`;` or newline), got = at 1:5"},
		{"a + b = 1", "Expected top-level item separator (`;` or newline), got = at 1:7"},
		{"a?.b = 1", "Expected top-level item separator (`;` or newline), got = at 1:6"},
		{"fn f() { a[1:2] = 1 }", "Expected statement separator (`;` or newline), got = at 1:17"},
		// keywords as names
		{"let tool = 1", "Expected variable name or destructuring pattern, got 'tool' (reserved keyword) at 1:5"},
		{"for tool in xs {}", "Expected variable name or destructuring pattern, got 'tool' (reserved keyword) at 1:5"},
		{"let 5 = 1", "Expected variable name or destructuring pattern, got int(5) at 1:5"},
		{"fn tool() {}", "Expected function name, got 'tool' (reserved keyword) at 1:4"},
		{"fn f(if) {}", "Expected parameter name, got 'if' (reserved keyword) at 1:6"},
		{"x.+", "Expected property name, got + at 1:3"},
		{"x = {+: 1}", "Expected dict key, got + at 1:6"},
		{"x = tool", "Expected expression, got tool at 1:5"},
		// expressions
		{"x = ", "Unexpected end of file, expected expression"},
		{"println(\"a\"", "Unexpected end of file, expected )"},
		{"x = [1, 2", "Unexpected end of file, expected ]"},
		{"x = {a: 1", "Unexpected end of file, expected }"},
		{"x = (1 + 2", "Unexpected end of file, expected )"},
		{"x = f(1;", "Expected ), got ; at 1:8"},
		{"x = 1 to\n  5", "Expected expression, got \\n at 1:9"},
		{"x = a ? b", "Expected top-level item separator (`;` or newline), got id(b) at 1:9"},
		{"x = a ? (b", "Unexpected end of file, expected )"},
		{"f<>(x)", "Expected expression, got > at 1:3"},
		{"x = point { x: 1 }", "Expected top-level item separator (`;` or newline), got { at 1:11"},
		{"x = 1.2.3", "Expected property name, got int(3) at 1:9"},
		{"x = 5sec", "Expected top-level item separator (`;` or newline), got id(sec) at 1:6"},
		{"x = 1e3", "Expected top-level item separator (`;` or newline), got id(e3) at 1:6"},
		{"x = 1_000", "Expected top-level item separator (`;` or newline), got id(_000) at 1:6"},
		{"x = {a 1}", "Expected :, got int(1) at 1:8"},
		{"if x == Foo {}", "Unexpected end of file, expected {"},
		// statements and declarations
		{"let x 1", "Expected =, got int(1) at 1:7"},
		{"let {a}: int = 1", "Expected =, got : at 1:8"},
		{"for x xs {}", "Expected in, got id(xs) at 1:7"},
		{"guard x { }", "Expected else, got { at 1:9"},
		{"while x", "Unexpected end of file, expected {"},
		{"if x { }\nelse x", "Expected {, got id(x) at 2:6"},
		{"fn f( {}", "Expected parameter name, got { at 1:7"},
		{"fn f(a b) {}", "Expected ), got id(b) at 1:8"},
		{"fn f(a = 1, b) {}", "Required parameter cannot follow a parameter with a default value at 1:13"},
		{"fn f(...a, b) {}", "Rest parameter must be the last parameter at 1:6"},
		{"x = { a = 1, b -> a }", "Required parameter cannot follow a parameter with a default value at 1:14"},
		{"struct P x: int }", "Expected {, got id(x) at 1:10"},
		{"struct P { x: int, 5 }", "Expected field name, got int(5) at 1:20"},
		{"type T int", "Expected =, got id(int) at 1:8"},
		{"type T = ", "Unexpected end of file, expected type"},
		{"let x: = 1", "Expected type, got = at 1:8"},
		{"match x { 0 { \"zero\" } }", "Expected ->, got { at 1:13"},
		{"match x { 0 -> \"zero\" }", "Expected {, got str(zero) at 1:16"},
		{"select { v frm ch {} }", "Expected from, got id(frm) at 1:12"},
		{"import { a, b }", "Unexpected end of file, expected from"},
		{"import 42", "Expected import path string, got int(42) at 1:8"},
		{"@test let x = 1", "Expected fn/tool/skill/pipeline/struct/enum/type/interface/impl declaration after `@attr`, got non-declaration statement at 1:7"},
		{"@test\nx()", "Expected fn/tool/skill/pipeline/struct/enum/type/interface/impl declaration after `@attr`, got non-declaration statement at 2:1"},
		{"fn f() { pub let x = 1 }", "Expected declaration, got let at 1:14"},
		{"pub var x = 1", "Expected declaration, got var at 1:5"},
		{"fn f() { import \"x\" }", "Expected expression, got import at 1:10"},
		{"fn f() { pipeline p() {} }", "Expected expression, got pipeline at 1:10"},
		{"pub impl Box {}", "Expected declaration, got pub at 1:1"},
		{"impl Box { type Item }", "Expected =, got } at 1:22"},
		{"parallel each xs with { limit: 2 } { x -> x }", "Expected max_concurrent, got id(limit) at 1:25"},
		{"parallel each xs { x -> x } as list", "Expected stream, got id(list) at 1:32"},
		{"try { } catch (1) { }", "Expected variable name, got int(1) at 1:16"},
		{"}", "Expected expression, got } at 1:1"},
		// lexer errors
		{"println(\"x", "Unterminated string at 1:9"},
		{"x = \"a\nb\"", "Unterminated string at 1:5"},
		{"x = r\"abc", "Unterminated string at 1:5"},
		{"x = r#\"abc\"", "Unterminated string at 1:5"},
		{"x = \"\"\"abc", "Unterminated string at 1:5"},
		{"x = \"${a\"", "Unterminated string at 1:5"},
		{"/* never closed", "Unterminated block comment at 1:1"},
		{"/* a /* b */ c", "Unterminated block comment at 1:1"},
		{"x = 1 # c", "Unexpected character '#' at 1:7"},
		{"\n#!/bin/sh", "Unexpected character '#' at 2:1"},
		{"x = \\ 1", "Unexpected character '\\' at 1:5"},
		{"x = $", "Unexpected character '$' at 1:5"},
		{"x = 1 ~ 2", "Unexpected character '~' at 1:7"},
		{"x = \"${}\"", "Unexpected character '}' at 1:8"},
		{"x = \"${  }\"", "Unexpected character '}' at 1:10"},
		{"é = ☃", "Unexpected character '☃' at 1:5"},
		{"\tx = 1 # tab counts as one column", "Unexpected character '#' at 1:8"},
		// control characters and bytes that are not UTF-8 (a binary file) are escaped
		{"\x7fELF", "Unexpected character '\\x7f' at 1:1"},
		{"x = \x1b[31m", "Unexpected character '\\x1b' at 1:5"},
		{"x = \xff", "Invalid UTF-8 byte '\\xff' in source at 1:5"},
		{"let s = \"caf\xe9\"", "Invalid UTF-8 byte '\\xe9' in source at 1:13"},
		{"// caf\xe9\nlet", "Invalid UTF-8 byte '\\xe9' in source at 1:7"},
		{"x = \u00a0", "Unexpected character '\\u00a0' at 1:5"},
		// a lexer error anywhere wins over a parse error earlier on
		{"let = 1\nx = #", "Unexpected character '#' at 2:5"},
	}
	for _, tt := range tests {
		_, err := Parse("t.harn", []byte(tt.src))
		var de *diag.Error
		if !errors.As(err, &de) {
			t.Errorf("Parse(%q) = %v, want a *diag.Error", tt.src, err)
			continue
		}
		if got := de.GoldenText(); got != tt.golden {
			t.Errorf("Parse(%q) error\n got  %s\n want %s", tt.src, got, tt.golden)
		}
		if de.File != "t.harn" {
			t.Errorf("Parse(%q) error file = %q", tt.src, de.File)
		}
		if de.Line == 0 {
			t.Errorf("Parse(%q) error has no position", tt.src)
		}
	}
}

// TestErrorForms checks the reworded message and the fields of errors.
func TestErrorForms(t *testing.T) {
	_, err := Parse("m.harn", []byte("let a = 1 let b = 2"))
	de := err.(*diag.Error)
	if de.Msg != "expected top-level item separator (`;` or newline), found let" || de.Phase != diag.PhaseParse ||
		de.Line != 1 || de.Col != 11 || de.Error() != "m.harn:1:11: "+de.Msg {
		t.Errorf("separator error = %#v", de)
	}
	_, err = Parse("m.harn", []byte("f(1,"))
	de = err.(*diag.Error)
	if de.Msg != "unexpected end of file, expected )" || de.Golden != "Unexpected end of file, expected )" || de.Line != 1 || de.Col != 5 {
		t.Errorf("eof error = %#v", de)
	}
	_, err = Parse("m.harn", []byte("x = #"))
	de = err.(*diag.Error)
	if de.Phase != diag.PhaseLex || de.Msg != "Unexpected character '#' at 1:5" || de.Col != 5 {
		t.Errorf("lexer error = %#v", de)
	}
	if _, err := ParseExpr("1 2"); err == nil || !strings.Contains(err.(*diag.Error).Golden, "Expected end of expression, got int(2)") {
		t.Errorf("ParseExpr trailing tokens: %v", err)
	}
}

func TestDocComments(t *testing.T) {
	src := `/// Module doc.
/// Second line.

import "std/text"

/// Adds two numbers.
///   Indented stays trimmed.
@deprecated
pub fn add(a, b) { return a + b }

/** Block doc.
 * With a star.
 */
struct P {}

/// Separated by a blank line.

enum E { A }

/// pipe doc
pipeline p() {}
/// tool doc
tool t() {}
/// type doc
type T = int
/// iface doc
interface I {}
/// impl doc
impl P {
  /// method doc
  pub fn m(self) {}

  fn n(self) {}
}
/// skill doc
skill s {}
/// pack doc
eval_pack e {}
fn outer() {
  /// inner doc
  fn inner() {}
}
`
	f, err := Parse("d.harn", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if f.Doc != "Module doc.\nSecond line." {
		t.Errorf("File.Doc = %q", f.Doc)
	}
	docs := map[string]string{}
	for _, it := range f.Items {
		switch d := it.(type) {
		case *FnDecl:
			docs["fn "+d.Name] = d.Doc
			if d.Name == "outer" {
				docs["fn inner"] = d.Body.Stmts[0].(*FnDecl).Doc
			}
		case *StructDecl:
			docs["struct"] = d.Doc
		case *EnumDecl:
			docs["enum"] = d.Doc
		case *PipelineDecl:
			docs["pipeline"] = d.Doc
		case *ToolDecl:
			docs["tool"] = d.Doc
		case *TypeDecl:
			docs["type"] = d.Doc
		case *InterfaceDecl:
			docs["interface"] = d.Doc
		case *ImplBlock:
			docs["impl"] = d.Doc
			docs["method m"] = d.Methods[0].Doc
			docs["method n"] = d.Methods[1].Doc
		case *SkillDecl:
			docs["skill"] = d.Doc
		case *EvalPackDecl:
			docs["eval_pack"] = d.Doc
		}
	}
	want := map[string]string{
		"fn add":    "Adds two numbers.\nIndented stays trimmed.",
		"struct":    "Block doc.\nWith a star.",
		"enum":      "",
		"pipeline":  "pipe doc",
		"tool":      "tool doc",
		"type":      "type doc",
		"interface": "iface doc",
		"impl":      "impl doc",
		"skill":     "skill doc",
		"eval_pack": "pack doc",
		"fn outer":  "",
		"fn inner":  "inner doc",
		"method m":  "method doc",
		"method n":  "",
	}
	for k, v := range want {
		if docs[k] != v {
			t.Errorf("%s doc = %q, want %q", k, docs[k], v)
		}
	}

	fileDocs := []struct{ src, want string }{
		{"/// only doc", "only doc"},
		{"/// attached\nfn f() {}", ""},
		{"/// attached to a statement\nlet x = 1", ""},
		{"/// module\n\nlet x = 1", "module"},
		{"// plain comment\n/// module\n\n/// f doc\nfn f() {}", "module"},
		{"#!/usr/bin/env harn\n/** module */\n\nfn f() {}", "module"},
		{"let x = 1\n/// late\n", ""},
		// an import takes no doc: the comment above a first import is the module's
		{"/** module */\nimport { a } from \"m\"\npub fn f() {}", "module"},
		{"/// module\npub import { a } from \"m\"\n", "module"},
		{"/** module */\n\nimport { a } from \"m\"\n/** f doc */\npub fn f() {}", "module"},
		{"import { a } from \"m\"\n/** f doc */\npub fn f() {}", ""},
		{"/** f doc */\npub fn f() {}\nimport { a } from \"m\"", ""},
	}
	for _, tt := range fileDocs {
		f, err := Parse("d.harn", []byte(tt.src))
		if err != nil {
			t.Errorf("Parse(%q): %v", tt.src, err)
			continue
		}
		if f.Doc != tt.want {
			t.Errorf("Parse(%q).Doc = %q, want %q", tt.src, f.Doc, tt.want)
		}
	}
}

func TestPositions(t *testing.T) {
	src := "let x = 1\n\tfoo(bar.baz, \"é\" + 2)\n@test\npub fn f() {}\nlet s = \"é${y}\""
	f, err := Parse("p.harn", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	let := f.Items[0].(*LetStmt)
	call := f.Items[1].(*ExprStmt).X.(*CallExpr)
	member := call.Args[0].(*MemberExpr)
	plus := call.Args[1].(*BinaryExpr)
	fn := f.Items[2].(*FnDecl)
	interp := f.Items[3].(*LetStmt).Value.(*InterpString)
	checks := []struct {
		name string
		got  Pos
		want Pos
	}{
		{"let", let.At, Pos{1, 1}},
		{"let value", let.Value.Position(), Pos{1, 9}},
		{"call", call.At, Pos{2, 2}},
		{"member", member.At, Pos{2, 6}},
		{"binary operator", plus.At, Pos{2, 19}},
		{"int after é", plus.Y.Position(), Pos{2, 21}},
		{"attribute", fn.Attrs[0].At, Pos{3, 1}},
		{"fn", fn.At, Pos{4, 1}},
		{"fn name", fn.NamePos, Pos{4, 8}},
		{"fn body", fn.Body.At, Pos{4, 12}},
		{"fn body end", fn.Body.End, Pos{4, 13}},
		{"interpolated expr", interp.Parts[1].Expr.Position(), Pos{5, 13}},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s at %v, want %v", c.name, c.got, c.want)
		}
	}
}

// TestTypeNamePositions: type declarations, impl blocks and where
// bounds record where their names are written, which the language server
// renames.
func TestTypeNamePositions(t *testing.T) {
	src := "pub struct  Pt {}\nenum   Color { Red }\ntype  Alias = int\ninterface   Shape { fn area(self) -> int }\nimpl  Pt {}\nfn f<T>(x: T) where T: Shape + ns.Other {}\n"
	f, err := Parse("p.harn", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	where := f.Items[5].(*FnDecl).Where[0]
	checks := []struct {
		name string
		got  Pos
		want Pos
	}{
		{"struct", f.Items[0].(*StructDecl).NamePos, Pos{1, 13}},
		{"enum", f.Items[1].(*EnumDecl).NamePos, Pos{2, 8}},
		{"type", f.Items[2].(*TypeDecl).NamePos, Pos{3, 7}},
		{"interface", f.Items[3].(*InterfaceDecl).NamePos, Pos{4, 13}},
		{"impl", f.Items[4].(*ImplBlock).NamePos, Pos{5, 7}},
		{"first bound", where.BoundsAt[0], Pos{6, 24}},
		{"qualified bound", where.BoundsAt[1], Pos{6, 32}},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s at %v, want %v", c.name, c.got, c.want)
		}
	}
}

func TestConcurrentParses(t *testing.T) {
	src := benchSource(300)
	want := sx(mustParse(t, src))
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 5 {
				if got := sx(mustParse(t, src)); got != want {
					t.Error("concurrent parse differs")
				}
			}
		}()
	}
	wg.Wait()
}

func mustParse(t *testing.T, src []byte) *File {
	f, err := Parse("c.harn", src)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestNoPanicOnOddInputs(t *testing.T) {
	inputs := []string{
		"", "\n", ";", "}", "{", "(", "[", "\"", "r", "r#", "r#\"", "\"\"\"", "/*", "/", "\\", "#", "#!",
		"\xff\xfe", "\uFEFF", "\uFEFFlet x = 1", "let", "fn", "fn (", "@", "@x(", "x.", "x?", "x?.", "a ?", "a ? b",
		"{ x ->", "f<", "f<int", "f<int>", "match", "match x {", "try", "try {} catch (", "import a::",
		"import a::b", "...", "x = ...", "\"${\"", "\"${{}\"", "\"\"\"${", strings.Repeat("(", 100000),
		strings.Repeat("[", 100000), strings.Repeat("{", 100000), strings.Repeat("-", 100000) + "1",
		strings.Repeat("if ", 100000), strings.Repeat("a ? ", 100000), strings.Repeat("2 ** ", 100000) + "2",
		strings.Repeat("parallel ", 100000), strings.Repeat("\"${", 20000), strings.Repeat("x.", 100000) + "y",
		strings.Repeat("fn f() {", 50000), strings.Repeat("if a {} else ", 50000) + "{}",
		strings.Repeat("{a: ", 50000), strings.Repeat("f<", 50000),
	}
	for _, src := range inputs {
		_, err := Parse("odd.harn", []byte(src))
		if err != nil && strings.Contains(err.Error(), "internal") {
			t.Errorf("Parse(%.20q): %v", src, err)
		}
	}
}

// A chain of more than maxChain binary operators is refused with a
// positioned error instead of becoming a tree deep enough to overflow
// the stack of a later stage (issue 17 item 3: `1 + 1 + …` with two
// million terms crashed lang/resolve); a chain of exactly maxChain
// operators still parses.
func TestLongBinaryChains(t *testing.T) {
	chain := func(terms int, op string) string {
		return "let x = " + strings.Repeat("1 "+op+" ", terms-1) + "1\n"
	}
	if _, err := Parse("t.harn", []byte(chain(maxChain+1, "+"))); err != nil {
		t.Fatalf("%d operators: %v", maxChain, err)
	}
	for _, op := range []string{"+", "*", "&&", "??", "=="} {
		_, err := Parse("t.harn", []byte(chain(200000, op)))
		var d *diag.Error
		if !errors.As(err, &d) {
			t.Fatalf("%s chain: %v", op, err)
		}
		// The first term is at column 9 and each "1 op " takes 3+len(op)
		// columns: the error points at operator maxChain+1.
		col := 9 + maxChain*(3+len(op)) + 2
		if d.Line != 1 || d.Col != col || !strings.Contains(d.Msg, "Expected at most 10000 operators in a chain of binary operators") {
			t.Errorf("%s chain: %d:%d %s (want 1:%d)", op, d.Line, d.Col, d.Msg, col)
		}
	}
}

// TestErrorAfterComma: a token after a comma that cannot start an item is a
// missing expression, not a missing closing bracket.
func TestErrorAfterComma(t *testing.T) {
	for _, src := range []string{"let xs = [1, ;]", "f(1, ;)"} {
		_, err := Parse("m.harn", []byte(src))
		de, ok := err.(*diag.Error)
		if !ok {
			t.Fatalf("%q: error = %v, want a parse error", src, err)
		}
		if !strings.HasPrefix(de.Golden, "Expected expression, got ;") {
			t.Errorf("%q: error = %q", src, de.Golden)
		}
	}
}

// IsKeyword searches keywordList, which must therefore stay sorted.
func TestKeywordListSorted(t *testing.T) {
	if !slices.IsSorted(keywordList[:]) {
		t.Fatal("keywordList is not sorted")
	}
	for _, k := range keywordList {
		if !IsKeyword(k) {
			t.Errorf("IsKeyword(%q) = false", k)
		}
	}
	for _, w := range []string{"", "gen", "scope", "Fn", "fns", "zzz", "aaa"} {
		if IsKeyword(w) {
			t.Errorf("IsKeyword(%q) = true", w)
		}
	}
}

// An attribute before an impl method is refused in words of its own at the
// attribute (docs/spec/language.md §10.5: the impl grammar has none), while
// the golden text is the token error of any other non-method there.
func TestImplMethodAttribute(t *testing.T) {
	_, err := Parse("t.harn", []byte("struct P {\n  x: int\n}\nimpl P {\n  /// doc\n  @deprecated(since: \"1\")\n  pub fn old(self) { return 1 }\n}\n"))
	var e *diag.Error
	if !errors.As(err, &e) {
		t.Fatalf("err %v, want a *diag.Error", err)
	}
	if e.Msg != "attributes are not allowed on impl methods" || e.Line != 6 || e.Col != 3 {
		t.Errorf("got %d:%d %q", e.Line, e.Col, e.Msg)
	}
	if want := "Expected fn, got @ at 6:3"; e.GoldenText() != want {
		t.Errorf("golden %q, want %q", e.GoldenText(), want)
	}
}

// TestInlineBounds: `fn f<T: A + ns.B>` lists its bounds on the type
// parameter and, as `where T: A + ns.B` would, in the function's Where,
// before the written clauses.
func TestInlineBounds(t *testing.T) {
	f, err := Parse("p.harn", []byte("fn f<T: Shape + ns.Other, U>(x: T, y: U) where U: Shape {}\n"))
	if err != nil {
		t.Fatal(err)
	}
	fn := f.Items[0].(*FnDecl)
	tp := fn.TypeParams[0]
	if strings.Join(tp.Bounds, "+") != "Shape+ns.Other" || tp.BoundsAt[1] != (Pos{1, 17}) {
		t.Errorf("type parameter bounds %v at %v", tp.Bounds, tp.BoundsAt)
	}
	if len(fn.Where) != 2 || fn.Where[0].Param != "T" || strings.Join(fn.Where[0].Bounds, "+") != "Shape+ns.Other" || fn.Where[1].Param != "U" {
		t.Fatalf("where clauses %+v", fn.Where)
	}
	if _, err := Parse("s.harn", []byte("struct S<T: Shape> {\n  x: T\n}\n")); err == nil {
		t.Error("a struct's type parameter took a bound")
	}
}

// TestQuestionRunsParseInLinearTime: deciding what a `?` starts scans
// ahead for a `:` (docs/spec/newer.md §1.9); in a list without commas or
// a long expression every `?` used to scan to the closing bracket again,
// so 9,000 `f()?` elements took minutes. The scan's answer is now shared
// with the `?`s it passes, and the answers stay the same.
func TestQuestionRunsParseInLinearTime(t *testing.T) {
	for _, item := range []string{"f()? ", "xs?[0] ", "a ? b : c "} {
		src := "let x = [" + strings.Repeat(item, 30000) + "]\n"
		done := make(chan error, 1)
		go func() {
			_, err := Parse("q.harn", []byte(src))
			done <- err
		}()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("%q: %v", item, err)
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("%q × 30000: still parsing after 30s", item)
		}
	}
	// The shared answers: a ternary inside a ternary's first branch, a
	// propagation there (its `?` has no branch after it), and
	// propagations and legacy optional subscripts ended by a bracket.
	for _, tt := range []struct{ src, want string }{
		{"a ? b ? c : d : e", "(?: a (?: b c d) e)"},
		{"c ? f()? : g()?", "(?: c (prop (call f)) (prop (call g)))"},
		{"[f()? g()? h]", "[(prop (call f)) (prop (call g)) h]"},
		{"[xs?[0] ys?[1] z]", "[(?idx xs 0) (?idx ys 1) z]"},
	} {
		x, err := ParseExpr(tt.src)
		if err != nil {
			t.Errorf("ParseExpr(%q): %v", tt.src, err)
			continue
		}
		if got := sx(x); got != tt.want {
			t.Errorf("ParseExpr(%q) = %s, want %s", tt.src, got, tt.want)
		}
	}
}
