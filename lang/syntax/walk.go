package syntax

import "reflect"

// Visit is called for every node with the node holding it and a setter
// that replaces it in that parent (nil when the node cannot be replaced
// by another kind). Returning false skips the node's children.
type Visit func(n, parent Node, replace func(Node)) bool

var nodeType = reflect.TypeOf((*Node)(nil)).Elem()

// Walk visits every node under root in source order (root included). It
// follows the tree's fields by reflection, so node kinds added later are
// walked without changes here.
func Walk(root Node, fn Visit) {
	walkValue(reflect.ValueOf(root), nil, fn)
}

func walkValue(v reflect.Value, parent Node, fn Visit) {
	switch v.Kind() {
	case reflect.Interface, reflect.Pointer:
		if v.IsNil() {
			return
		}
	}
	n, ok := v.Interface().(Node)
	if !ok {
		return
	}
	var replace func(Node)
	if v.CanSet() {
		replace = func(m Node) {
			mv := reflect.ValueOf(m)
			if mv.Type().AssignableTo(v.Type()) {
				v.Set(mv)
			}
		}
	}
	if !fn(n, parent, replace) {
		return
	}
	s := v
	for s.Kind() == reflect.Interface || s.Kind() == reflect.Pointer {
		s = s.Elem()
	}
	if s.Kind() == reflect.Struct {
		walkFields(s, n, fn)
	}
}

func walkFields(s reflect.Value, parent Node, fn Visit) {
	for i := 0; i < s.NumField(); i++ {
		if !s.Type().Field(i).IsExported() {
			continue
		}
		walkField(s.Field(i), parent, fn)
	}
}

func walkField(f reflect.Value, parent Node, fn Visit) {
	switch f.Kind() {
	case reflect.Interface, reflect.Pointer:
		if !f.IsNil() && f.Type().Implements(nodeType) || (f.Kind() == reflect.Interface && !f.IsNil()) {
			walkValue(f, parent, fn)
		}
	case reflect.Slice:
		for j := 0; j < f.Len(); j++ {
			walkField(f.Index(j), parent, fn)
		}
	case reflect.Struct:
		// a value struct inside a node (an interpolation part)
		walkFields(f, parent, fn)
	}
}
