package jsext_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/atomic-go/atomic/internal/e2e"
)

// ctx.modelRegistry as pi 1.6's, in both engines: the catalogue, a
// provider's credentials, and requests through the agent's provider
// (complete and streamSimple), with a failure as an error message.
func TestExtensionModelCalls(t *testing.T) {
	for _, runtime := range []string{"goja", "node", "isolated"} {
		t.Run(runtime, func(t *testing.T) {
			dir := t.TempDir()
			out := filepath.Join(dir, "out.json")
			src := `import * as fs from "fs";
import { complete as piComplete } from "@earendil-works/pi-ai";
export default function (pi: any) {
  pi.registerCommand("ask", {
    handler: async (_args: string, ctx: any) => {
      const mr = ctx.modelRegistry;
      const m = mr.find("faux", "faux-2");
      const auth = await mr.getApiKeyAndHeaders(m);
      const user = (text: string) => ({ role: "user", content: [{ type: "text", text }], timestamp: Date.now() });
      const msg = await mr.complete(m, { systemPrompt: "Answer briefly.", messages: [user("side question")] });
      const s = mr.streamSimple(m, { messages: [user("second question")] });
      const events: string[] = [];
      for await (const e of s) events.push(e.type);
      const final = await s.result();
      const missing = await mr.complete({ provider: "nope", id: "x" }, { messages: [] });
      const viaPiAI = await piComplete(m, { messages: [user("third question")] });
      fs.writeFileSync(` + strconv.Quote(out) + `, JSON.stringify({
        all: mr.getAll().length, available: mr.getAvailable().map((x: any) => x.provider + "/" + x.id),
        found: m && m.name, configured: mr.hasConfiguredAuth(m), unknown: mr.find("faux", "none") === undefined,
        auth, text: msg.content[0].text, role: msg.role, stop: msg.stopReason,
        events, final: final.content[0].text,
        missing: [missing.stopReason, missing.errorMessage], piai: viaPiAI.content[0].text,
      }));
    },
  });
}
`
			ext := filepath.Join(dir, "models.ts")
			if err := os.WriteFile(ext, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			a := startInRuntime(t, runtime, ext, []map[string]any{{"text": "first answer"}, {"text": "second answer"}, {"text": "third answer"}})
			a.MustSucceed(map[string]any{"type": "prompt", "message": "/ask"}) // answered when the command has finished
			b, err := os.ReadFile(out)
			if err != nil {
				t.Fatalf("the command wrote nothing: %v\n%s", err, a.Stderr())
			}
			var got struct {
				All                 int
				Available           []string
				Found               string
				Configured, Unknown bool
				Auth                map[string]any
				Text, Role, Stop    string
				Events              []string
				Final               string
				Missing             []string
				PiAI                string `json:"piai"`
			}
			if err := json.Unmarshal(b, &got); err != nil {
				t.Fatal(err)
			}
			if got.All < 2 || len(got.Available) == 0 || got.Found != "Faux Model 2" || !got.Configured || !got.Unknown {
				t.Errorf("catalogue: %s", b)
			}
			if got.Auth["ok"] != true || got.Auth["apiKey"] != nil {
				t.Errorf("auth of a keyless provider: %v", got.Auth)
			}
			if got.Text != "first answer" || got.Role != "assistant" || got.Stop != "stop" || got.Final != "second answer" {
				t.Errorf("answers: %s", b)
			}
			wantEvents := []string{"start", "text_start", "text_delta", "text_end", "done"}
			if fmt.Sprint(got.Events) != fmt.Sprint(wantEvents) {
				t.Errorf("stream events %v, want %v", got.Events, wantEvents)
			}
			if len(got.Missing) != 2 || got.Missing[0] != "error" || got.Missing[1] != "Model nope/x not found" {
				t.Errorf("an unknown model: %v", got.Missing)
			}
			if got.PiAI != "third answer" {
				t.Errorf("pi-ai's complete: %q", got.PiAI)
			}
			reqs := a.FauxRequests()
			if len(reqs) != 3 || reqs[0]["systemPrompt"] != "Answer briefly." {
				t.Fatalf("the model got %d requests: %v", len(reqs), reqs)
			}
		})
	}
}

// startInRuntime starts the agent with the extension in the runtime
// ("goja", "node", or "isolated": goja in a child process), the faux
// model's script, and further settings.
func startInRuntime(t *testing.T, runtime, ext string, script []map[string]any, settings ...map[string]any) *e2e.Agent {
	t.Helper()
	return startInRuntimeArgs(t, runtime, ext, script, nil, settings...)
}

// startInRuntimeArgs is startInRuntime with more command-line flags.
func startInRuntimeArgs(t *testing.T, runtime, ext string, script []map[string]any, extra []string, settings ...map[string]any) *e2e.Agent {
	t.Helper()
	all := map[string]any{"extensionRuntime": runtime}
	args := []string{"-e", ext}
	if runtime == "isolated" {
		all["extensionRuntime"] = "goja"
		all["extensions"] = []any{map[string]any{"path": ext, "isolation": "process"}}
		args = nil
	}
	for _, s := range settings {
		maps.Copy(all, s)
	}
	b, err := json.Marshal(all)
	if err != nil {
		t.Fatal(err)
	}
	args = append(args, extra...)
	return e2e.Start(t, e2e.Options{Args: args, AgentFiles: map[string]string{"settings.json": string(b)}, Script: script})
}
