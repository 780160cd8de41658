package agents_test

import "testing"

// TestApprovalPolicyAutoApproveEnv: require_approval asks as
// request_approval does, so HARN_AUTO_APPROVE answers for an unattended
// run (docs/agents.md "Approval policy", docs/hitl.md).
func TestApprovalPolicyAutoApproveEnv(t *testing.T) {
	src := `
let deploy = tool_def("deploy", "Deploy", {parameters: {}, handler: { a -> "deployed" }})
llm_mock({tool_calls: [{name: "deploy"}]})
llm_mock("done")
let r = agent_loop("ship", {tools: [deploy], approval_policy: {require_approval: ["deploy"]}})
println([r.tool_calls[0].ok, r.tool_calls[0].error])
`
	t.Setenv("HARN_AUTO_APPROVE", "1")
	if out := mustRun(t, src); out != "[true, nil]" {
		t.Fatalf("approved: got %q", out)
	}
	t.Setenv("HARN_AUTO_APPROVE", "deny")
	want := `[false, tool "deploy" failed: denied by approval policy: tool "deploy" was not approved: denied by HARN_AUTO_APPROVE]`
	if out := mustRun(t, src); out != want {
		t.Fatalf("denied: got %q", out)
	}
}
