package text

// The nest limit. The regex crate refuses a pattern whose syntax tree is
// more than 250 levels deep (its default nest limit), once the pattern
// has parsed and before anything else about it is checked:
//
//	regex parse error:
//	    (((…(a)…)))
//	                ^^^
//	error: exceed the maximum number of nested parentheses/brackets (250)
//
// marking the first node, in the order the tree is walked, that lies
// past the limit. A level is taken by each group, bracket class,
// repetition, alternation and concatenation of two or more items, and
// inside a class by each nested class, union of two or more items and
// set operation (`&&`, `--`, `~~`); literals, escapes, `.`, anchors and
// flag settings take none. nestScan builds the shape of that tree as
// scanPattern walks the pattern, so the check costs one pass, however
// deep the pattern.

import "strconv"

const regexNestLimit = 250

// nestNode is a node of the crate's syntax tree that takes a level: its
// span in runes and its children that take one too, in pattern order.
type nestNode struct {
	start, end int
	kids       []*nestNode
}

// nestSeq is a sequence of items being read: a concatenation, or the
// union of a class's items.
type nestSeq struct {
	start, end int         // its span; a union's runs from its first item to its last
	items      int         // how many items it holds
	kids       []*nestNode // the items that take a level
	last       *nestNode   // the last item, when it takes a level
	lastStart  int         // where the last item starts
	union      bool
}

func (q *nestSeq) add(n *nestNode, start, end int) {
	if q.union {
		if q.items == 0 {
			q.start = start
		}
		q.end = end
	}
	q.items++
	q.last, q.lastStart = n, start
	if n != nil {
		q.kids = append(q.kids, n)
	}
}

// repeat wraps the last item in a repetition ending at end.
func (q *nestSeq) repeat(end int) {
	if q.items == 0 {
		return // nothing to repeat: an error scanPattern records
	}
	rep := &nestNode{start: q.lastStart, end: end}
	if q.last != nil {
		rep.kids = []*nestNode{q.last}
		q.kids = q.kids[:len(q.kids)-1]
	}
	q.kids = append(q.kids, rep)
	q.last = rep
}

// node is the sequence as the crate's tree holds it: a node of its own
// for two items or more, the item itself for one, nil when that takes
// no level.
func (q *nestSeq) node() *nestNode {
	switch {
	case q.items >= 2:
		return &nestNode{q.start, q.end, q.kids}
	case q.items == 1 && len(q.kids) == 1:
		return q.kids[0]
	}
	return nil
}

// nestGroup is a group being read (or the whole pattern, open -1).
type nestGroup struct {
	open     int
	alts     []*nestNode // the alternatives read so far, when there are several
	altStart int         // where the first alternative starts
	alt      bool        // a `|` was read
	seq      nestSeq     // the current alternative
}

// nestClass is a bracket class being read.
type nestClass struct {
	open      int
	lhs       *nestNode // the operand before the pending set operation, if any
	lhsStart  int
	op        bool // a set operation is pending
	seq       nestSeq
	canRange  bool // the last item may start a range: a literal or escape
	rangeNext bool // the next item closes a range (`a-z`) with the last
}

// nestScan reads a pattern's tree shape; see the top of the file.
type nestScan struct {
	groups  []nestGroup
	classes []nestClass
}

func (n *nestScan) seq() *nestSeq {
	if k := len(n.classes); k > 0 {
		return &n.classes[k-1].seq
	}
	if len(n.groups) == 0 {
		n.groups = []nestGroup{{open: -1}}
	}
	return &n.groups[len(n.groups)-1].seq
}

// item records an item that takes no level (a literal, an escape, `.`,
// a flag setting), at runes start to end.
func (n *nestScan) item(start, end int) {
	if k := len(n.classes); k > 0 {
		c := &n.classes[k-1]
		if c.rangeNext { // the end of a range: one item with its start
			c.rangeNext, c.canRange = false, false
			c.seq.end = end
			return
		}
		c.canRange = true
	}
	n.seq().add(nil, start, end)
}

// asciiClass records an ASCII class (`[:alpha:]`) inside a class at
// runes start to end: an item no range may start at.
func (n *nestScan) asciiClass(start, end int) {
	n.item(start, end)
	n.classes[len(n.classes)-1].canRange = false
}

// repeat wraps the last item in a repetition ending at end.
func (n *nestScan) repeat(end int) { n.seq().repeat(end) }

// openGroup records a group opening at open whose items start at body.
func (n *nestScan) openGroup(open, body int) {
	n.seq()
	n.groups = append(n.groups, nestGroup{open: open, altStart: body, seq: nestSeq{start: body}})
}

// alternate records a `|` at i.
func (n *nestScan) alternate(i int) {
	n.seq()
	g := &n.groups[len(n.groups)-1]
	g.seq.end = i
	g.alts = append(g.alts, g.seq.node())
	g.alt = true
	g.seq = nestSeq{start: i + 1}
}

// content ends the current group's items at end: its alternation, or
// its one alternative.
func (g *nestGroup) content(end int) *nestNode {
	g.seq.end = end
	last := g.seq.node()
	if !g.alt {
		return last
	}
	alt := &nestNode{start: g.altStart, end: end}
	for _, a := range append(g.alts, last) {
		if a != nil {
			alt.kids = append(alt.kids, a)
		}
	}
	return alt
}

// closeGroup records a `)` at i; one closing nothing is left to the
// caller's error.
func (n *nestScan) closeGroup(i int) {
	if len(n.groups) < 2 {
		return
	}
	g := n.groups[len(n.groups)-1]
	n.groups = n.groups[:len(n.groups)-1]
	group := &nestNode{start: g.open, end: i + 1}
	if c := g.content(i); c != nil {
		group.kids = []*nestNode{c}
	}
	n.seq().add(group, g.open, i+1)
}

// openClass records a bracket class opening at open, whose items start
// at body; literals counts the leading `-` and `]` read as literals, the
// last of them ending at end.
func (n *nestScan) openClass(open, body, literals, end int) {
	n.seq()
	c := nestClass{open: open, seq: nestSeq{start: body, end: body, union: true}}
	for k := 0; k < literals; k++ {
		c.seq.add(nil, body+k, body+k+1)
	}
	c.seq.end = max(c.seq.end, end)
	n.classes = append(n.classes, c)
}

// classRune reads the rune p[i] inside a class that is neither an
// escape nor a bracket: a set operation, the `-` of a range, or a
// literal. It returns the offset of the last rune it read.
func (n *nestScan) classRune(p []rune, i int, verbose bool) int {
	c := &n.classes[len(n.classes)-1]
	r := p[i]
	switch {
	case verbose && (r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\f' || r == '\v'):
		return i
	case (r == '&' || r == '-' || r == '~') && i+1 < len(p) && p[i+1] == r:
		c.lhs, c.lhsStart = c.operand(), c.seq.start
		c.op, c.canRange, c.rangeNext = true, false, false
		c.seq = nestSeq{start: i + 2, end: i + 2, union: true}
		return i + 1
	case r == '-' && c.canRange && !c.rangeNext && i+1 < len(p) && p[i+1] != ']' && p[i+1] != '-':
		c.rangeNext = true
		return i
	}
	n.item(i, i+1)
	return i
}

// operand is the class's items so far as one operand of a set
// operation, folding in the operation pending before them.
func (c *nestClass) operand() *nestNode {
	rhs := c.seq.node()
	if !c.op {
		return rhs
	}
	op := &nestNode{start: c.lhsStart, end: c.seq.end}
	if c.lhs != nil {
		op.start = c.lhs.start
		op.kids = append(op.kids, c.lhs)
	}
	if rhs != nil {
		op.kids = append(op.kids, rhs)
	}
	return op
}

// closeClass records the `]` at i closing a class.
func (n *nestScan) closeClass(i int) {
	if len(n.classes) == 0 {
		return
	}
	c := n.classes[len(n.classes)-1]
	n.classes = n.classes[:len(n.classes)-1]
	class := &nestNode{start: c.open, end: i + 1}
	if set := c.operand(); set != nil {
		class.kids = []*nestNode{set}
	}
	n.seq().add(class, c.open, i+1)
	if k := len(n.classes); k > 0 {
		n.classes[k-1].canRange, n.classes[k-1].rangeNext = false, false
	}
}

// tooDeep is the first node of the pattern's tree, walked as the crate
// walks it (each node before its children, children in pattern order),
// that lies past the nest limit, or nil. end is the pattern's length in
// runes; every group and class must be closed.
func (n *nestScan) tooDeep(end int) *nestNode {
	n.seq()
	if len(n.groups) != 1 || len(n.classes) != 0 {
		return nil
	}
	root := n.groups[0].content(end)
	if root == nil {
		return nil
	}
	type visit struct {
		node  *nestNode
		depth int
	}
	stack := []visit{{root, 1}}
	for len(stack) > 0 {
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if v.depth > regexNestLimit {
			return v.node
		}
		for k := len(v.node.kids) - 1; k >= 0; k-- {
			stack = append(stack, visit{v.node.kids[k], v.depth + 1})
		}
	}
	return nil
}

// nestError is the crate's error for a pattern nested past its limit,
// or "". scan is scanPattern's reading of pattern; a pattern it found
// groups or classes unbalanced in fails on that first, as in the crate.
func nestError(pattern string, scan patternScan) string {
	if len(scan.openGroups) > 0 || len(scan.openClasses) > 0 || scan.unopened >= 0 || scan.bareRepeat >= 0 {
		return ""
	}
	deep := scan.nest.tooDeep(scan.length)
	if deep == nil {
		return ""
	}
	return "regex parse error:\n" + notatePattern(pattern, deep.start, deep.end) +
		"error: exceed the maximum number of nested parentheses/brackets (" + strconv.Itoa(regexNestLimit) + ")"
}
