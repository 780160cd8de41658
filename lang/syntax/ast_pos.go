package syntax

// Positions of the auxiliary nodes that declare names or carry parts of a
// larger node (so they can key side tables such as resolve.Info).

func (n *File) Position() Pos         { return Pos{Line: 1, Col: 1} }
func (n *Param) Position() Pos        { return n.At }
func (n *TypeParam) Position() Pos    { return n.At }
func (n *DictPatItem) Position() Pos  { return n.At }
func (n *ListPatItem) Position() Pos  { return n.At }
func (n *DictEntry) Position() Pos    { return n.At }
func (n *MatchArm) Position() Pos     { return n.At }
func (n *SelectCase) Position() Pos   { return n.At }
func (n *Attribute) Position() Pos    { return n.At }
func (n *FieldDecl) Position() Pos    { return n.At }
func (n *Variant) Position() Pos      { return n.At }
func (n *ShapeField) Position() Pos   { return n.At }
func (n *MethodSig) Position() Pos    { return n.At }
func (n *AssocType) Position() Pos    { return n.At }
func (n *SkillField) Position() Pos   { return n.At }
func (n *EvalPackItem) Position() Pos { return n.At }
func (n *WhereClause) Position() Pos  { return n.At }
