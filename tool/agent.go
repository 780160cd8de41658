package tool

import "github.com/harnlang/harn/vm"

// AgentType is the `_type` of an agent value (agent(…), docs/agents.md).
const AgentType = "agent"

// AgentDefinition is the tool definition an agent value stands for in a
// tools list (docs/agents.md, Sub-agents): its name, its description
// (else one saying what asking it does) and one required string
// parameter, `prompt`, with handler as the handler. ok is false when a
// is not an agent value.
func AgentDefinition(a *vm.Dict, handler vm.Value) (def *vm.Dict, ok bool) {
	if vm.ToDisplay(dictGet(a, "_type")) != AgentType {
		return nil, false
	}
	name := vm.ToDisplay(dictGet(a, "name"))
	desc := dictGet(a, "description")
	if desc.IsNil() {
		desc = vm.Str("Ask the " + name + " agent; it answers the prompt with its own tools.")
	}
	prompt := vm.NewDictBuilder(3)
	prompt.Set("type", vm.Str("string"))
	prompt.Set("description", vm.Str("the task for the agent"))
	prompt.Set("required", vm.True)
	params := vm.NewDictBuilder(1)
	params.Set("prompt", vm.Of(prompt.Build()))
	b := vm.NewDictBuilder(4)
	b.Set("name", vm.Str(name))
	b.Set("description", desc)
	b.Set("parameters", vm.Of(params.Build()))
	b.Set("handler", handler)
	return b.Build(), true
}
