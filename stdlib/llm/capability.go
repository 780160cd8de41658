package llm

import "github.com/harnlang/harn/stdlib/harness"

// harness.llm (docs/spec/language.md §5.4: models): the main llm_call
// builtins and some bookkeeping ones of docs/llm.md as methods of the
// HarnessLlm handle, named as the free functions without their `llm_`
// prefix, as harness.net drops `http_` (docs/language.md, "Harness
// capabilities in this implementation"). catalog, the one method
// docs/spec/newer.md §3.4 names, is llm_provider_catalog. Each behaves
// like the function it replaces; the mocks (llm_mock and its family),
// streaming and the rest of the catalog stay free functions.
func init() {
	const t = "HarnessLlm"
	d := harness.Delegate
	harness.RegisterCapability("llm", "llm", []harness.CapabilityMethod{
		d(t, "call", "llm_call", "llm.call(prompt, system?, options?) -> dict", "ask a model: {text, model, provider, usage, tool_calls, stop_reason, message}"),
		d(t, "call_safe", "llm_call_safe", "llm.call_safe(prompt, system?, options?) -> dict", "call that never throws: {ok, response, error}"),
		d(t, "completion", "llm_completion", "llm.completion(prompt, system?, options?) -> string", "the reply text only"),
		d(t, "call_structured", "llm_call_structured", "llm.call_structured(prompt, schema, options?)", "the reply parsed as JSON and validated against schema"),
		d(t, "catalog", "llm_provider_catalog", "llm.catalog() -> list", "every provider with its models and capabilities (llm_provider_catalog)"),
		d(t, "usage", "llm_usage", "llm.usage() -> dict", "this run's totals: {calls, input_tokens, output_tokens, total_tokens, cost_usd}"),
		d(t, "cost", "llm_cost", "llm.cost(model: string, input_tokens: int, output_tokens: int) -> float?", "the list-price cost in USD of a call, or nil"),
		d(t, "config", "llm_config", "llm.config(options?) -> dict", "the provider, model and endpoint a call with options would use"),
		d(t, "model_info", "llm_model_info", "llm.model_info(model: string) -> dict?", "a catalog model's {id, provider, aliases, tier, prices}, or nil"),
		d(t, "resolve_model", "llm_resolve_model", "llm.resolve_model(name: string) -> dict", "{id, provider} of an alias or id"),
	})
}
