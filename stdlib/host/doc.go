// Package host is the host bridge of the standard library (docs/host.md;
// docs/spec/builtins.md §5 names the builtins only, so the semantics are
// this implementation's design): host_capabilities, host_has, host_call,
// host_tool_list, host_tool_call and the host_mock test doubles.
//
// A host is the program that embeds harn. It offers capabilities (named
// operations called with one argument value) and tools (the same, with a
// description and a parameters schema) by registering Go handlers on a VM
// with Provide and ProvideTool before the program runs. The plain CLI
// registers none, so there a call that no mock answers fails with a
// catchable `host_call: no host provides "NAME"`.
//
// Mocks live in scopes, as llm_mock's do: host_mock_push_scope starts an
// empty scope over the current one, host_mock_pop_scope drops it and the
// outer scope's mocks and recorded calls are back. A mock of the current
// scope answers before a registered handler of the same name.
package host
