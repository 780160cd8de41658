package llm_test

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"testing"
)

// onePixelPNG is a 1×1 PNG, base64.
const onePixelPNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="

// TestImagesOnTheWire checks each wire API's image blocks: OpenAI's
// image_url parts (a data URL for bytes, the URL as given) before the
// text, and Anthropic's base64 and url image sources.
func TestImagesOnTheWire(t *testing.T) {
	clearEnv(t)
	dir := t.TempDir()
	t.Chdir(dir)
	png := filepath.Join(dir, "px.png")
	raw, _ := base64.StdEncoding.DecodeString(onePixelPNG)
	if err := os.WriteFile(png, raw, 0o644); err != nil {
		t.Fatal(err)
	}

	oa, oaGot := fake(t, 200, `{"model":"gpt-4o-mini","choices":[{"message":{"role":"assistant","content":"HELLO"},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":1}}`, "application/json")
	t.Setenv("OPENAI_API_KEY", "sk-test")
	t.Setenv("OPENAI_BASE_URL", oa.URL)
	out := mustRun(t, `
let r = vision_ocr("px.png", {model: "gpt-4o-mini", prompt: "Read it."})
println(r.text)
llm_call("Compare", {model: "gpt-4o-mini", images: [{url: "https://example.com/a.jpg"}]})
`)
	if out != "HELLO" {
		t.Fatalf("got %q", out)
	}
	msgs := jsonOf((*oaGot)[0].body["messages"])
	want := `[{"content":[{"image_url":{"url":"data:image/png;base64,` + onePixelPNG + `"},"type":"image_url"},{"text":"Read it.","type":"text"}],"role":"user"}]`
	if msgs != want {
		t.Errorf("openai messages\n%s\nwant\n%s", msgs, want)
	}
	msgs = jsonOf((*oaGot)[1].body["messages"])
	want = `[{"content":[{"image_url":{"url":"https://example.com/a.jpg"},"type":"image_url"},{"text":"Compare","type":"text"}],"role":"user"}]`
	if msgs != want {
		t.Errorf("openai url messages\n%s\nwant\n%s", msgs, want)
	}

	an, anGot := fake(t, 200, `{"id":"m","type":"message","role":"assistant","model":"claude-haiku-4-5","content":[{"type":"text","text":"ok"}],"stop_reason":"end_turn","usage":{"input_tokens":5,"output_tokens":1}}`, "application/json")
	t.Setenv("ANTHROPIC_API_KEY", "ak-test")
	t.Setenv("ANTHROPIC_BASE_URL", an.URL)
	mustRun(t, `
llm_call(nil, {model: "haiku", messages: [{role: "user", content: [
  {type: "image", data: bytes_from_base64("`+onePixelPNG+`")},
  {type: "image", url: "https://example.com/b.png"},
  {type: "text", text: "Which is larger?"},
]}]})
`)
	msgs = jsonOf((*anGot)[0].body["messages"])
	want = `[{"content":[{"source":{"data":"` + onePixelPNG + `","media_type":"image/png","type":"base64"},"type":"image"},{"source":{"type":"url","url":"https://example.com/b.png"},"type":"image"},{"text":"Which is larger?","type":"text"}],"role":"user"}]`
	if msgs != want {
		t.Errorf("anthropic messages\n%s\nwant\n%s", msgs, want)
	}
}
