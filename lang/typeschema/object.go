package typeschema

// Object is a schema object: keys in insertion order. A document is made
// of *Object, []any, string, int64 and bool values; every builder call
// makes fresh objects, so no document shares a node with another.
type Object struct {
	keys  []string
	vals  []any
	index map[string]int // for large objects (a catalog's components)
}

// Obj builds an object of alternating keys and values.
func Obj(kv ...any) *Object {
	o := &Object{keys: make([]string, 0, len(kv)/2), vals: make([]any, 0, len(kv)/2)}
	for i := 0; i+1 < len(kv); i += 2 {
		o.Set(kv[i].(string), kv[i+1])
	}
	return o
}

// Len is the number of keys.
func (o *Object) Len() int { return len(o.keys) }

// At returns the i-th key and its value.
func (o *Object) At(i int) (string, any) { return o.keys[i], o.vals[i] }

// Get returns the value of key k.
func (o *Object) Get(k string) (any, bool) {
	if i := o.find(k); i >= 0 {
		return o.vals[i], true
	}
	return nil, false
}

// Set replaces the value of k, or appends k when it is new.
func (o *Object) Set(k string, v any) {
	if i := o.find(k); i >= 0 {
		o.vals[i] = v
		return
	}
	o.keys = append(o.keys, k)
	o.vals = append(o.vals, v)
	if o.index != nil {
		o.index[k] = len(o.keys) - 1
	}
}

func (o *Object) find(k string) int {
	if o.index == nil && len(o.keys) > 16 {
		o.index = make(map[string]int, len(o.keys))
		for i, key := range o.keys {
			o.index[key] = i
		}
	}
	if o.index != nil {
		if i, ok := o.index[k]; ok {
			return i
		}
		return -1
	}
	for i, key := range o.keys {
		if key == k {
			return i
		}
	}
	return -1
}
