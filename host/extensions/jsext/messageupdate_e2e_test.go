package jsext_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// message_update handlers get the message so far (event.message), as in
// pi 1.6, in every engine: the text grows with the deltas, a tool call
// has its name and its arguments, the model is the one answering.
func TestMessageUpdateCarriesTheMessageSoFar(t *testing.T) {
	for _, runtime := range []string{"goja", "node", "isolated"} {
		t.Run(runtime, func(t *testing.T) {
			dir := t.TempDir()
			src := `export default function (pi: any) {
  let seen: any[] = [];
  pi.on("message_update", async (e: any) => {
    const m = e.message;
    seen.push({ role: m.role, provider: m.provider, blocks: m.content.map((b: any) => b.type === "text" ? "text:" + b.text : b.type === "toolCall" ? "tool:" + b.name + ":" + JSON.stringify(b.arguments) : b.type) });
    m.content.length = 0; // a copy: changing it changes nothing for the next event
  });
  pi.on("message_end", async (e: any) => {
    if (e.message.role !== "assistant") return;
    pi.appendEntry("probe", { last: seen[seen.length - 1], count: seen.length });
    seen = [];
  });
}
`
			ext := filepath.Join(dir, "probe.ts")
			if err := os.WriteFile(ext, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			a := startInRuntime(t, runtime, ext, []map[string]any{
				{"text": "Hello there, world", "toolCalls": []map[string]any{{"name": "bash", "arguments": map[string]any{"command": "echo hi"}}}},
				{"text": "done"},
			})
			a.PromptAndWait("go")
			var probes []map[string]any
			for _, line := range strings.Split(sessionEntries(t, a), "\n") {
				var e map[string]any
				if json.Unmarshal([]byte(line), &e) == nil && e["customType"] == "probe" {
					probes = append(probes, e["data"].(map[string]any))
				}
			}
			if len(probes) != 2 {
				t.Fatalf("probes %v\n%s", probes, a.Stderr())
			}
			last, _ := probes[0]["last"].(map[string]any)
			blocks, _ := json.Marshal(last["blocks"])
			if last["role"] != "assistant" || last["provider"] != "faux" ||
				string(blocks) != `["text:Hello there, world","tool:bash:{\"command\":\"echo hi\"}"]` {
				t.Errorf("first answer's last update: %v (%s)", last, blocks)
			}
			if n, _ := probes[0]["count"].(float64); n < 3 {
				t.Errorf("only %v updates", n)
			}
			last, _ = probes[1]["last"].(map[string]any)
			if blocks, _ := json.Marshal(last["blocks"]); string(blocks) != `["text:done"]` {
				t.Errorf("second answer's last update: %s (the first message's blocks must not carry over)", blocks)
			}
		})
	}
}
