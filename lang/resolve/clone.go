package resolve

import (
	"reflect"

	"github.com/harnlang/harn/lang/syntax"
)

// cloneStmts deep-copies statements so one body can be resolved and
// compiled in a second function (a pipeline that extends another runs its
// parent's body in its own scope, docs/spec/language.md §5.5).
func cloneStmts(list []syntax.Stmt) []syntax.Stmt {
	out := make([]syntax.Stmt, len(list))
	for i, s := range list {
		out[i] = deepCopy(reflect.ValueOf(s)).Interface().(syntax.Stmt)
	}
	return out
}

func deepCopy(v reflect.Value) reflect.Value {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return v
		}
		n := reflect.New(v.Elem().Type())
		n.Elem().Set(deepCopy(v.Elem()))
		return n
	case reflect.Interface:
		if v.IsNil() {
			return v
		}
		c := deepCopy(v.Elem())
		n := reflect.New(v.Type()).Elem()
		n.Set(c)
		return n
	case reflect.Struct:
		n := reflect.New(v.Type()).Elem()
		for i := 0; i < v.NumField(); i++ {
			if n.Field(i).CanSet() {
				n.Field(i).Set(deepCopy(v.Field(i)))
			}
		}
		return n
	case reflect.Slice:
		if v.IsNil() {
			return v
		}
		n := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
		for i := 0; i < v.Len(); i++ {
			n.Index(i).Set(deepCopy(v.Index(i)))
		}
		return n
	}
	return v
}
