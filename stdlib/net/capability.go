package net

import "github.com/harnlang/harn/stdlib/harness"

// harness.net (docs/spec/language.md §5.4, external I/O): the HTTP client
// builtins of docs/spec/builtins.md §4.3 as methods of the HarnessNet
// handle, named as the free functions without their `http_` prefix
// (the references name no method list; docs/language.md, "Harness
// capabilities in this implementation", records the choice). Each
// behaves like the function it replaces, http_mock doubles included.
// The mocks themselves and HTTP sessions (tier 3) stay free functions.

func init() {
	const t = "HarnessNet"
	d := harness.Delegate
	harness.RegisterCapability("net", "net", []harness.CapabilityMethod{
		d(t, "get", "http_get", "net.get(url: string, opts?) -> dict", "GET → {status, headers, body, ok}"),
		d(t, "delete", "http_delete", "net.delete(url: string, opts?) -> dict", "DELETE → {status, headers, body, ok}"),
		d(t, "post", "http_post", "net.post(url: string, body, opts?) -> dict", "POST → {status, headers, body, ok}"),
		d(t, "put", "http_put", "net.put(url: string, body, opts?) -> dict", "PUT → {status, headers, body, ok}"),
		d(t, "patch", "http_patch", "net.patch(url: string, body, opts?) -> dict", "PATCH → {status, headers, body, ok}"),
		d(t, "request", "http_request", "net.request(method: string, url: string, opts?) -> dict", "any method → {status, headers, body, ok}"),
		d(t, "download", "http_download", "net.download(url: string, path: string, opts?) -> dict", "save a response body to a file → {bytes_written, status, headers, ok}"),
	})
}
