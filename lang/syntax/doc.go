// Package syntax owns Harn's surface syntax: the scanner, the grammar, and
// the abstract syntax tree they produce (docs/spec/language.md §1–§2).
//
// The scanner (scanner.go) is hand-written and implements participle's
// lexer.Definition. It yields one token per identifier, keyword, literal
// and operator, plus two kinds of token that participle elides from the
// grammar's view: Newline (one per run of line feeds) and Doc (a run of
// `///` lines or a `/** */` comment). Elided tokens stay in the stream, so
// the parts of the parser that care about line breaks (statement
// separators, expression continuation of §2.6) and doc comments look at
// them explicitly, while the rest of the grammar reads as if newlines did
// not exist. String tokens keep their source text; strings.go turns them
// into values (escapes, interpolation, the triple-quoted dedent).
//
// The parser is participle-driven. Every statement and declaration form
// is a participle production written as a tagged struct (grammar.go) and
// converted to its AST node once it matches. A statement list (parser.go)
// picks the production from the statement's first token rather than
// trying each in turn, and checks separators. Expression statements and
// assignments, which are most statements and little more than an
// expression, are parsed directly. Leaves that need more than LL(1)
// matching or exact control over errors are participle.Parseable hooks
// (hooks.go): expressions, parsed by precedence climbing with the newline
// rules and disambiguations of §2.6–§2.7 (expr.go), types, parameter
// lists, patterns and blocks (types.go).
//
// The first lexer or parse error ends the parse. It is returned as a
// *diag.Error whose Golden field holds upstream's wording ("Expected
// <what>, got <token> at L:C", "Unexpected end of file, expected <what>")
// and whose Msg is the reworded form `harn run` prints.
package syntax
