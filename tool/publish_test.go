package tool

import (
	"testing"

	"github.com/harnlang/harn/vm"
)

func publishDict(kv ...vm.Value) vm.Value {
	d := vm.NewDict()
	for i := 0; i+1 < len(kv); i += 2 {
		k, _ := kv[i].AsString()
		d = d.Set(k.Go(), kv[i+1])
	}
	return vm.Of(d)
}

// A resource template reads its string fields display-coerced, and its
// required ones and handler fail in the order they are written.
func TestPublishTemplateFields(t *testing.T) {
	handler := vm.Of(vm.NewBuiltin("h", "h()", "", func(*vm.Thread, vm.Args) (vm.Value, error) { return vm.Nil, nil }))
	var p Publication
	err := p.PublishTemplate(publishDict(vm.Str("uri_template"), vm.Str("x://{id}"), vm.Str("name"), vm.IntOf(7),
		vm.Str("handler"), handler, vm.Str("title"), vm.Str("T"), vm.Str("mime_type"), vm.Str("text/plain")))
	if err != nil {
		t.Fatal(err)
	}
	got := p.data.Templates[0]
	if got.URITemplate != "x://{id}" || got.Name != "7" || got.Title != "T" || got.Description != "" || got.MimeType != "text/plain" {
		t.Errorf("template = %+v", got)
	}
	for _, c := range []struct {
		d    vm.Value
		want string
	}{
		{publishDict(vm.Str("name"), vm.Str("n")), "mcp_resource_template: 'uri_template' is required"},
		{publishDict(vm.Str("uri_template"), vm.Str("u")), "mcp_resource_template: 'name' is required"},
		{publishDict(vm.Str("uri_template"), vm.Str("u"), vm.Str("name"), vm.Str("n")), "mcp_resource_template: 'handler' is required"},
		{publishDict(vm.Str("uri_template"), vm.Str("u"), vm.Str("name"), vm.Str("n"), vm.Str("handler"), vm.Str("f")), "mcp_resource_template: 'handler' is required"},
	} {
		if err := p.PublishTemplate(c.d); err == nil || err.Error() != c.want {
			t.Errorf("PublishTemplate(%s) = %v, want %s", vm.ToDisplay(c.d), err, c.want)
		}
	}
}

// A resource needs text unless it gives a blob.
func TestPublishResourceFields(t *testing.T) {
	var p Publication
	if err := p.PublishResource(publishDict(vm.Str("uri"), vm.Str("u"), vm.Str("name"), vm.Str("n"))); err == nil || err.Error() != "mcp_resource: 'text' is required" {
		t.Errorf("a resource without text: %v", err)
	}
	if err := p.PublishResource(publishDict(vm.Str("uri"), vm.Str("u"), vm.Str("name"), vm.Str("n"), vm.Str("text"), vm.Str("hi"), vm.Str("description"), vm.Str("d"))); err != nil {
		t.Fatal(err)
	}
	if r := p.data.Resources[0]; r.URI != "u" || r.Name != "n" || r.Text != "hi" || r.Description != "d" {
		t.Errorf("resource = %+v", r)
	}
}

// Each publish builtin takes one dict, and names itself when given
// anything else.
func TestPublishNeedsADict(t *testing.T) {
	var p Publication
	for builtin, publish := range map[string]func(vm.Value) error{
		"mcp_resource":          p.PublishResource,
		"mcp_resource_template": p.PublishTemplate,
		"mcp_prompt":            p.PublishPrompt,
		"mcp_server_metadata":   p.PublishServerMetadata,
	} {
		if err := publish(vm.IntOf(1)); err == nil || err.Error() != builtin+": argument must be a dict" {
			t.Errorf("%s of an int: %v", builtin, err)
		}
	}
}
