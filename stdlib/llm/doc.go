// Package llm is the LLM area of the standard library (docs/llm.md;
// docs/spec/builtins.md §5 names the builtins only): llm_call and its
// safe, structured and streaming forms, the llm_mock test doubles, the
// providers (mock, OpenAI-compatible chat completions, Anthropic messages)
// and the bookkeeping builtins (llm_usage, llm_config, estimate_tokens, …).
//
// A call is a request (prompt, system, messages, model, tools, sampling
// options) handed to one provider, which answers with a response: text,
// tool calls, usage and a stop reason. While llm_mock is armed every call
// is answered by the mock queue instead, so programs written for a real
// provider run offline in tests; a later agent_loop drives tool calls
// through the same request and response types.
package llm
