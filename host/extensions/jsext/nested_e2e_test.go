package jsext_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// createAgentSession as pi's SDK, in every engine: a nested session
// streams from the agent's provider, runs a built-in tool, reports pi's
// events in pi's order, keeps its conversation in the SessionManager
// given (here a session file), takes seeded messages, and stops on abort.
func TestNestedAgentSession(t *testing.T) {
	for _, runtime := range []string{"goja", "node", "isolated"} {
		t.Run(runtime, func(t *testing.T) {
			dir := t.TempDir()
			out := filepath.Join(dir, "out.json")
			note := filepath.Join(dir, "note.txt")
			if err := os.WriteFile(note, []byte("the note's text\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			sessDir := filepath.Join(dir, "nested-sessions")
			src := `import * as fs from "fs";
import { createAgentSession, SessionManager, DefaultResourceLoader } from "@earendil-works/pi-coding-agent";
export default function (pi: any) {
  pi.registerCommand("side", {
    handler: async (_args: string, ctx: any) => {
      const model = ctx.modelRegistry.find("faux", "faux-2");
      const loader = new DefaultResourceLoader({ cwd: ctx.cwd, systemPromptOverride: () => "You answer side questions." });
      await loader.reload();
      const { session, extensionsResult } = await createAgentSession({
        cwd: ` + strconv.Quote(dir) + `,
        sessionManager: SessionManager.create(` + strconv.Quote(dir) + `, ` + strconv.Quote(sessDir) + `),
        model, modelRegistry: ctx.modelRegistry, thinkingLevel: "off", tools: ["read", "no-such-tool"], resourceLoader: loader,
      });
      session.agent.state.messages = [{ role: "user", content: [{ type: "text", text: "seeded" }], timestamp: 1 },
        { role: "assistant", content: [{ type: "text", text: "seeded answer" }], api: "faux", provider: "faux", model: "faux-2", stopReason: "stop", timestamp: 2 }];
      const events: string[] = [];
      let deltas = "";
      const unsub = session.subscribe((e: any) => {
        events.push(e.type === "message_start" || e.type === "message_end" ? e.type + ":" + e.message.role : e.type);
        if (e.type === "message_update" && e.assistantMessageEvent.type === "text_delta") deltas += e.assistantMessageEvent.delta;
      });
      await session.prompt("read the note", { source: "extension" });
      unsub();
      const toolResult = session.messages.find((m: any) => m.role === "toolResult");
      let busy = "";
      const second = session.prompt("again");
      try { await session.prompt("too soon"); } catch (e: any) { busy = e.message; }
      await session.abort();
      await second;
      const file = session.sessionFile;
      const last = session.messages[session.messages.length - 1];
      session.dispose();
      fs.writeFileSync(` + strconv.Quote(out) + `, JSON.stringify({
        events, deltas, text: session.getLastAssistantText(), tools: session.getActiveToolNames(),
        toolResult: toolResult && toolResult.content[0].text, isError: toolResult && toolResult.isError,
        extensions: extensionsResult.extensions.length, busy, lastStop: last.stopReason,
        file: file ? fs.readFileSync(file, "utf8").split("\n").filter((l: string) => l).map((l: string) => JSON.parse(l).type) : [],
      }));
    },
  });
}
`
			ext := filepath.Join(dir, "nested.ts")
			if err := os.WriteFile(ext, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			a := startInRuntime(t, runtime, ext, []map[string]any{
				{"toolCalls": []map[string]any{{"id": "c1", "name": "read", "arguments": map[string]any{"path": note}}}},
				{"text": "The note says hello.", "chunks": 3},
				{"text": "a slow answer", "chunks": 50, "delayMs": 200},
			})
			a.MustSucceed(map[string]any{"type": "prompt", "message": "/side"})
			b, err := os.ReadFile(out)
			if err != nil {
				t.Fatalf("the command wrote nothing: %v\n%s", err, a.Stderr())
			}
			var got struct {
				Events     []string
				Deltas     string
				Text       string
				Tools      []string
				ToolResult string
				IsError    bool
				Extensions int
				Busy       string
				LastStop   string
				File       []string
			}
			if err := json.Unmarshal(b, &got); err != nil {
				t.Fatal(err)
			}
			want := []string{"agent_start", "turn_start", "message_start:user", "message_end:user",
				"message_start:assistant", "message_update", "message_update", "message_end:assistant",
				"tool_execution_start", "tool_execution_end", "message_start:toolResult", "message_end:toolResult", "turn_end",
				"turn_start", "message_start:assistant"}
			if len(got.Events) < len(want) || strings.Join(got.Events[:len(want)], " ") != strings.Join(want, " ") {
				t.Errorf("events %v,\nwant them to begin %v", got.Events, want)
			}
			if n := len(got.Events); n < 3 || got.Events[n-1] != "agent_settled" || got.Events[n-2] != "agent_end" || got.Events[n-3] != "turn_end" {
				t.Errorf("events end %v", got.Events)
			}
			if got.Deltas != "The note says hello." || got.ToolResult != "the note's text\n" || got.IsError {
				t.Errorf("the run: %s", b)
			}
			if strings.Join(got.Tools, ",") != "read" || got.Extensions != 0 {
				t.Errorf("tools %v, extensions %d", got.Tools, got.Extensions)
			}
			if !strings.Contains(got.Busy, "already processing") || got.LastStop != "aborted" {
				t.Errorf("a prompt while streaming: %q; the aborted run ends %q", got.Busy, got.LastStop)
			}
			if strings.Join(got.File, " ") != "session message message message message message message" {
				t.Errorf("the nested session's file holds %v", got.File)
			}
			reqs := a.FauxRequests()
			if len(reqs) < 2 || reqs[0]["systemPrompt"] != "You answer side questions." {
				t.Fatalf("the model got %d requests: %v", len(reqs), reqs)
			}
			first, _ := json.Marshal(reqs[0]["messages"])
			if !strings.Contains(string(first), "seeded answer") || !strings.Contains(string(first), "read the note") {
				t.Errorf("the first nested request: %s", first)
			}
		})
	}
}
