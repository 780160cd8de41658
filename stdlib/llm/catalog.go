package llm

import (
	"math"
	"strings"
	"unicode/utf8"
)

// model is an entry of the built-in model catalog: the aliases
// llm_resolve_model knows, and list prices (USD per million tokens, input
// and output) for llm_cost. Prices are the providers' published list
// prices when this table was written; they are estimates, not bills.
type model struct {
	id, provider string
	aliases      []string
	in, out      float64
	tier         string
}

var models = []model{
	{id: "claude-opus-4-1", provider: "anthropic", aliases: []string{"opus", "claude-opus"}, in: 15, out: 75, tier: "frontier"},
	{id: "claude-sonnet-4-5", provider: "anthropic", aliases: []string{"sonnet", "claude-sonnet", "claude"}, in: 3, out: 15, tier: "mid"},
	{id: "claude-haiku-4-5", provider: "anthropic", aliases: []string{"haiku", "claude-haiku"}, in: 1, out: 5, tier: "small"},
	{id: "gpt-4.1", provider: "openai", aliases: []string{"gpt4.1"}, in: 2, out: 8, tier: "frontier"},
	{id: "gpt-4.1-mini", provider: "openai", in: 0.4, out: 1.6, tier: "mid"},
	{id: "gpt-4o", provider: "openai", aliases: []string{"gpt4o", "gpt"}, in: 2.5, out: 10, tier: "frontier"},
	{id: "gpt-4o-mini", provider: "openai", aliases: []string{"gpt4o-mini", "mini"}, in: 0.15, out: 0.6, tier: "small"},
	{id: "o3-mini", provider: "openai", in: 1.1, out: 4.4, tier: "mid"},
	{id: "llama3.2", provider: "ollama", aliases: []string{"llama"}, tier: "small"},
}

// findModel looks a model up by id or alias (case-insensitively).
func findModel(name string) (model, bool) {
	n := strings.ToLower(strings.TrimSpace(name))
	for _, m := range models {
		if m.id == n {
			return m, true
		}
		for _, a := range m.aliases {
			if a == n {
				return m, true
			}
		}
	}
	return model{}, false
}

// resolveModel maps an alias to its model id and provider. A "provider/id"
// name whose prefix is a known provider names both; any other name is
// kept, with the provider inferred from its shape ("" when unknown).
func resolveModel(name string) (id, provider string) {
	if m, ok := findModel(name); ok {
		return m.id, m.provider
	}
	if p, rest, ok := strings.Cut(name, "/"); ok {
		if _, known := providerByName(strings.ToLower(p)); known && strings.ToLower(p) != "openrouter" {
			return rest, strings.ToLower(p)
		}
	}
	return name, inferProvider(name)
}

// inferProvider guesses the provider serving a model id from its name:
// claude-* is Anthropic; gpt-*, chatgpt-*, o1/o3/o4 and text-embedding-*
// are OpenAI; a "vendor/model" id (OpenRouter's naming) is OpenRouter;
// llama*, mistral*, qwen*, gemma*, phi* and names with a ":tag" are Ollama.
func inferProvider(name string) string {
	n := strings.ToLower(strings.TrimSpace(name))
	if n == "" {
		return ""
	}
	if m, ok := findModel(n); ok {
		return m.provider
	}
	if p, _, ok := strings.Cut(n, "/"); ok {
		if _, known := providerByName(p); known {
			return p
		}
		return "openrouter"
	}
	switch {
	case strings.HasPrefix(n, "claude"):
		return "anthropic"
	case strings.HasPrefix(n, "gpt-"), strings.HasPrefix(n, "chatgpt"), strings.HasPrefix(n, "text-embedding"),
		isOSeries(n):
		return "openai"
	case strings.HasPrefix(n, "mock"):
		return "mock"
	}
	for _, p := range []string{"llama", "mistral", "mixtral", "qwen", "gemma", "phi", "deepseek", "codellama"} {
		if strings.HasPrefix(n, p) {
			return "ollama"
		}
	}
	if strings.Contains(n, ":") {
		return "ollama"
	}
	return ""
}

// isOSeries: o1, o3-mini, o4-mini, …
func isOSeries(n string) bool {
	return len(n) >= 2 && n[0] == 'o' && n[1] >= '1' && n[1] <= '9' && (len(n) == 2 || n[2] == '-')
}

// modelCost is the list price of a call in USD; ok is false when the model
// has no price (unknown, or free such as a local model).
func modelCost(name string, in, out int64) (float64, bool) {
	id, _ := resolveModel(name)
	m, ok := findModel(id)
	if !ok || (m.in == 0 && m.out == 0) {
		return 0, false
	}
	c := (float64(in)*m.in + float64(out)*m.out) / 1e6
	return math.Round(c*1e9) / 1e9, true
}

// estimateTokens is the token estimate of text: one token per four
// characters (Unicode code points), rounded up. It is the usual rule of
// thumb for English prose with the common BPE tokenizers; code and other
// languages tokenize denser, so treat it as an order of magnitude.
func estimateTokens(text string) int64 {
	n := utf8.RuneCountInString(text)
	return int64((n + 3) / 4)
}
