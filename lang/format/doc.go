package format

import (
	"strings"
	"unicode/utf8"
)

// This file is the layout engine: a small document algebra in the style of
// Wadler's "prettier printer". The printer (print.go) turns the tree into a
// doc; render chooses, group by group, between printing a group on one line
// and breaking its lines, so that output fits in the line width when it can.

// doc is one of text, line, *group, indent, ifBreak, concat or breakParent.
type doc any

// text is printed as is. It may contain line feeds (a triple-quoted string
// or a block comment); the width up to the first one is what counts.
type text string

// line is a space (or nothing, when soft) if its group fits on one line,
// otherwise a line feed plus indentation. A hard line always breaks and
// breaks every enclosing group.
type line struct{ soft, hard bool }

var (
	sp       = line{}
	softline = line{soft: true}
	hardline = line{hard: true}
)

// group is laid out flat if it fits, broken otherwise.
type group struct {
	docs  []doc
	broke bool // contains a hard line: never flat
}

// indent adds one indentation level to the lines inside it.
type indent []doc

// ifBreak prints brk when the enclosing group is broken, flat otherwise.
type ifBreak struct{ brk, flat doc }

// concat is a sequence.
type concat []doc

// breakParent forces the enclosing groups to break.
type breakParent struct{}

// blankline ends the line and leaves one empty line, however many line
// breaks surround it.
type blankline struct{}

// commentText is a comment placed after other text on a line: it is
// separated from that text by exactly one space.
type commentText string

// leadComment is a /* */ comment written before code on its line
// (`f(/* c */ a)`, `x: /* c */ int`): one space follows it, and one
// separates it from the text before it, except after an opening bracket.
type leadComment string

func grp(ds ...doc) *group { return &group{docs: ds} }

// propagateAll propagates through every one of ds (no short cut: each
// group inside must be marked) and reports whether any breaks.
func propagateAll(ds []doc) bool {
	b := false
	for _, x := range ds {
		if propagate(x) {
			b = true
		}
	}
	return b
}

// propagate marks every group that contains a hard line or breakParent as
// broken and reports whether d contains one.
func propagate(d doc) bool {
	switch d := d.(type) {
	case line:
		return d.hard
	case breakParent, blankline:
		return true
	case *group:
		b := propagateAll(d.docs)
		if b {
			d.broke = true
		}
		return b
	case indent:
		return propagateAll(d)
	case concat:
		return propagateAll(d)
	case ifBreak:
		x := propagate(d.brk)
		y := propagate(d.flat)
		return x || y
	case text:
		return false
	}
	return false
}

const tabSize = 2

type mode bool

const (
	flat  mode = true
	broke mode = false
)

type cmd struct {
	ind  int
	mode mode
	d    doc
}

// render lays d out in lines of at most width columns where it can.
// Consecutive line breaks collapse into one; only blankline leaves an
// empty line.
func render(d doc, width int) string {
	propagate(d)
	r := renderer{pendingIndent: -1, nl: 1}
	stack := []cmd{{0, broke, d}}
	for len(stack) > 0 {
		c := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		switch d := c.d.(type) {
		case nil:
		case text:
			r.write(string(d))
		case commentText:
			if r.pendingIndent < 0 && r.nl == 0 {
				r.trim()
				r.write(" ")
			}
			r.write(string(d))
		case leadComment:
			if r.pendingIndent < 0 && r.nl == 0 && len(r.out) > 0 && !strings.ContainsRune("([<{ ", rune(r.out[len(r.out)-1])) {
				r.write(" ")
			}
			r.write(string(d))
			r.write(" ")
		case line:
			if c.mode == flat && !d.hard {
				if !d.soft {
					r.write(" ")
				}
				continue
			}
			r.newline(c.ind, 1)
		case blankline:
			r.newline(c.ind, 2)
		case concat:
			for i := len(d) - 1; i >= 0; i-- {
				stack = append(stack, cmd{c.ind, c.mode, d[i]})
			}
		case indent:
			for i := len(d) - 1; i >= 0; i-- {
				stack = append(stack, cmd{c.ind + tabSize, c.mode, d[i]})
			}
		case *group:
			m := broke
			if !d.broke && (c.mode == flat || fits(cmd{c.ind, flat, d}, stack, width-r.col, width)) {
				m = flat
			}
			for i := len(d.docs) - 1; i >= 0; i-- {
				stack = append(stack, cmd{c.ind, m, d.docs[i]})
			}
		case ifBreak:
			if c.mode == flat {
				stack = append(stack, cmd{c.ind, c.mode, d.flat})
			} else {
				stack = append(stack, cmd{c.ind, c.mode, d.brk})
			}
		case breakParent:
		}
	}
	r.trim()
	for len(r.out) > 0 && r.out[len(r.out)-1] == '\n' {
		r.out = r.out[:len(r.out)-1]
	}
	if len(r.out) == 0 {
		return ""
	}
	return string(r.out) + "\n"
}

type renderer struct {
	out           []byte
	col           int
	pendingIndent int // indentation owed before the next text on a fresh line, or -1
	nl            int // line feeds ending the output so far
}

func (r *renderer) write(s string) {
	if s == "" {
		return
	}
	if r.pendingIndent >= 0 {
		if s == " " {
			return
		}
		for range r.pendingIndent {
			r.out = append(r.out, ' ')
		}
		r.col = r.pendingIndent
		r.pendingIndent = -1
	}
	if s[0] == ' ' && len(r.out) > 0 && r.out[len(r.out)-1] == ' ' {
		s = s[1:]
	}
	r.out = append(r.out, s...)
	r.nl = 0
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		r.col = utf8.RuneCountInString(s[i+1:])
	} else {
		r.col += utf8.RuneCountInString(s)
	}
}

// newline ends the line so that n line feeds (at most) end the output.
func (r *renderer) newline(ind, n int) {
	r.trim()
	if len(r.out) == 0 {
		// nothing before: no leading empty lines
		r.pendingIndent = ind
		return
	}
	for r.nl < n {
		r.out = append(r.out, '\n')
		r.nl++
	}
	r.pendingIndent = ind
	r.col = ind
}

func (r *renderer) trim() {
	for len(r.out) > 0 && r.out[len(r.out)-1] == ' ' {
		r.out = r.out[:len(r.out)-1]
	}
}

// fits reports whether next, laid out flat, and what follows it up to the
// next line break fit in w columns. Text running over lines (a /* */
// comment, a multi-line string) must fit on each of its lines: after its
// last line break, what follows is measured against width.
func fits(next cmd, rest []cmd, w, width int) bool {
	stack := []cmd{next}
	ri := len(rest)
	for w >= 0 {
		if len(stack) == 0 {
			if ri == 0 {
				return true
			}
			ri--
			stack = append(stack, rest[ri])
			continue
		}
		c := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		switch d := c.d.(type) {
		case commentText:
			w = measure(string(d), w-1, width)
		case leadComment:
			w = measure(string(d), w-1, width) - 1
		case blankline:
			return c.mode == broke
		case text:
			w = measure(string(d), w, width)
		case line:
			if c.mode == broke || d.hard {
				return true
			}
			if !d.soft {
				w--
			}
		case concat:
			for i := len(d) - 1; i >= 0; i-- {
				stack = append(stack, cmd{c.ind, c.mode, d[i]})
			}
		case indent:
			for i := len(d) - 1; i >= 0; i-- {
				stack = append(stack, cmd{c.ind, c.mode, d[i]})
			}
		case *group:
			if d.broke && c.mode == flat {
				return false
			}
			m := c.mode
			if d.broke {
				m = broke
			}
			for i := len(d.docs) - 1; i >= 0; i-- {
				stack = append(stack, cmd{c.ind, m, d.docs[i]})
			}
		case ifBreak:
			if c.mode == flat {
				stack = append(stack, cmd{c.ind, c.mode, d.flat})
			} else {
				stack = append(stack, cmd{c.ind, c.mode, d.brk})
			}
		}
	}
	return false
}

// measure is the room left on the line after s is written with w columns
// left on the current one: negative when s overflows it, or when a line of
// s before its last overflows (its first in w columns, the others in width).
func measure(s string, w, width int) int {
	for {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			return w - utf8.RuneCountInString(s)
		}
		if w-utf8.RuneCountInString(s[:i]) < 0 {
			return -1
		}
		s, w = s[i+1:], width
	}
}
