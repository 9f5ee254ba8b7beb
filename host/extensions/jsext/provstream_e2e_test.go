package jsext_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/atomic-go/atomic/internal/e2e"
)

// A provider whose streamSimple is the extension's own, in every engine:
// --model names it (resolved once the extensions have loaded), each
// request goes to the extension, whose pi-ai events become the agent's
// stream (text deltas, a tool call the agent runs, usage, the stop
// reason); the answer is in the session file; an abort ends the
// extension's stream through the signal of its options.
func TestProviderStreamSimple(t *testing.T) {
	for _, runtime := range []string{"goja", "node", "isolated"} {
		t.Run(runtime, func(t *testing.T) {
			dir := t.TempDir()
			src := `import { createAssistantMessageEventStream } from "@earendil-works/pi-ai";
export default function (pi: any) {
  pi.registerTool({
    name: "echo_tool", label: "Echo", description: "Echoes its text.",
    parameters: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
    execute: async (_id: string, params: any) => ({ content: [{ type: "text", text: "echo:" + params.text }] }),
  });
  pi.registerProvider("acme", {
    baseUrl: "https://acme.invalid/v1", api: "acme-wire",
    models: [{ id: "streamer", name: "Acme Streamer", reasoning: false, input: ["text"],
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }, contextWindow: 32000, maxTokens: 1000 }],
    streamSimple(model: any, context: any, options: any) {
      const stream = createAssistantMessageEventStream();
      const msg: any = { role: "assistant", content: [], api: model.api, provider: model.provider, model: model.id,
        usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
        stopReason: "stop", timestamp: Date.now() };
      const msgs = context.messages;
      const last = msgs[msgs.length - 1];
      const userText = (m: any) => typeof m.content === "string" ? m.content : m.content.map((b: any) => b.text || "").join("");
      const text = (s: string[]) => {
        const i = msg.content.length;
        msg.content.push({ type: "text", text: "" });
        stream.push({ type: "text_start", contentIndex: i, partial: msg });
        for (const d of s) { msg.content[i].text += d; stream.push({ type: "text_delta", contentIndex: i, delta: d, partial: msg }); }
        stream.push({ type: "text_end", contentIndex: i, content: msg.content[i].text, partial: msg });
      };
      (async () => {
        stream.push({ type: "start", partial: msg });
        if (last.role === "user" && userText(last) === "hang") {
          text(["waiting"]);
          await new Promise((resolve) => options.signal.addEventListener("abort", resolve));
          pi.appendEntry("stream-aborted", { seen: true });
          msg.stopReason = "aborted"; msg.errorMessage = "aborted";
          stream.push({ type: "error", reason: "aborted", error: msg });
          return;
        }
        if (last.role === "user" && userText(last) === "fail") {
          msg.stopReason = "error"; msg.errorMessage = "acme exploded";
          stream.push({ type: "error", reason: "error", error: msg });
          return;
        }
        if (last.role === "toolResult") {
          text(["The tool said: ", userText(last)]);
          msg.usage.input = 30; msg.usage.output = 7; msg.usage.totalTokens = 37;
          stream.push({ type: "done", reason: "stop", message: msg });
          return;
        }
        msg.content.push({ type: "thinking", thinking: "" });
        stream.push({ type: "thinking_start", contentIndex: 0, partial: msg });
        msg.content[0].thinking = "pondering";
        stream.push({ type: "thinking_delta", contentIndex: 0, delta: "pondering", partial: msg });
        stream.push({ type: "thinking_end", contentIndex: 0, content: "pondering", partial: msg });
        const sys = context.systemPrompt && context.messages[0].role === "system" ? "system" : "none";
        const tools = context.tools.map((t: any) => t.name).includes("echo_tool") ? "tools" : "notools";
        text(["Hello ", "world ", sys + " " + tools + " " + (options.signal ? "signal" : "nosignal")]);
        const i = msg.content.length;
        msg.content.push({ type: "toolCall", id: "call-1", name: "echo_tool", arguments: {} });
        stream.push({ type: "toolcall_start", contentIndex: i, partial: msg });
        stream.push({ type: "toolcall_delta", contentIndex: i, delta: '{"text":', partial: msg });
        stream.push({ type: "toolcall_delta", contentIndex: i, delta: '"hi"}', partial: msg });
        msg.content[i].arguments = { text: "hi" };
        stream.push({ type: "toolcall_end", contentIndex: i, toolCall: msg.content[i], partial: msg });
        msg.usage.input = 12; msg.usage.output = 5; msg.usage.totalTokens = 17; msg.stopReason = "toolUse";
        stream.push({ type: "done", reason: "toolUse", message: msg });
      })();
      return stream;
    },
  });
}
`
			ext := filepath.Join(dir, "acme.ts")
			if err := os.WriteFile(ext, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			a := startInRuntimeArgs(t, runtime, ext, nil, []string{"--model", "acme/streamer"})
			state := a.MustSucceed(map[string]any{"type": "get_state"})["data"].(map[string]any)
			if m := state["model"].(map[string]any); m["provider"] != "acme" || m["id"] != "streamer" {
				t.Fatalf("--model acme/streamer: the model is %v/%v\n%s", m["provider"], m["id"], a.Stderr())
			}

			var deltas, thinking []string
			var answers []map[string]any
			toolRan := false
			for _, r := range a.PromptAndWait("use the tool") {
				switch r.Type() {
				case "message_update":
					switch ev, _ := r["assistantMessageEvent"].(map[string]any); ev["type"] {
					case "text_delta":
						deltas = append(deltas, ev["delta"].(string))
					case "thinking_delta":
						thinking = append(thinking, ev["delta"].(string))
					}
				case "tool_execution_end":
					toolRan = r["toolName"] == "echo_tool" && r["isError"] != true
				case "message_end":
					if m := r["message"].(map[string]any); m["role"] == "assistant" {
						answers = append(answers, m)
					}
				}
			}
			if got := strings.Join(deltas, "|"); got != "Hello |world |system tools signal|The tool said: |echo:hi" {
				t.Errorf("the deltas the client saw: %q\n%s", got, a.Stderr())
			}
			if strings.Join(thinking, "|") != "pondering" {
				t.Errorf("the thinking deltas: %q", thinking)
			}
			if !toolRan {
				t.Errorf("echo_tool did not run")
			}
			if len(answers) != 2 {
				t.Fatalf("assistant messages: %v", answers)
			}
			first, second := answers[0], answers[1]
			if first["stopReason"] != "toolUse" || first["provider"] != "acme" || first["model"] != "streamer" {
				t.Errorf("the first answer: %v", first)
			}
			if u := first["usage"].(map[string]any); u["input"] != float64(12) || u["output"] != float64(5) {
				t.Errorf("the first answer's usage: %v", u)
			}
			if tc := first["content"].([]any)[2].(map[string]any); tc["type"] != "toolCall" || tc["id"] != "call-1" || tc["arguments"].(map[string]any)["text"] != "hi" {
				t.Errorf("the tool call: %v", tc)
			}
			if second["stopReason"] != "stop" || second["content"].([]any)[0].(map[string]any)["text"] != "The tool said: echo:hi" {
				t.Errorf("the second answer: %v", second)
			}
			file, _ := a.MustSucceed(map[string]any{"type": "get_state"})["data"].(map[string]any)["sessionFile"].(string)
			b, err := os.ReadFile(file)
			if err != nil || !strings.Contains(string(b), "The tool said: echo:hi") {
				t.Errorf("the session file %s lacks the answer (%v)", file, err)
			}

			// An error event ends the answer as an error.
			var failed map[string]any
			for _, r := range a.PromptAndWait("fail") {
				if r.Type() == "message_end" {
					if m := r["message"].(map[string]any); m["role"] == "assistant" {
						failed = m
					}
				}
			}
			if failed == nil || failed["stopReason"] != "error" || !strings.Contains(fmt.Sprint(failed["errorMessage"]), "acme exploded") {
				t.Errorf("the failed answer: %v", failed)
			}

			// An abort mid-stream ends the extension's stream.
			from := a.Len()
			a.Send(map[string]any{"type": "prompt", "message": "hang"})
			a.WaitFrom(from, 30*time.Second, func(r e2e.Record) bool {
				ev, _ := r["assistantMessageEvent"].(map[string]any)
				return r.Type() == "message_update" && ev["delta"] == "waiting"
			})
			a.MustSucceed(map[string]any{"type": "abort"})
			a.WaitFrom(from, 30*time.Second, func(r e2e.Record) bool {
				e, _ := r["entry"].(map[string]any)
				return r.Type() == "entry_appended" && e["customType"] == "stream-aborted"
			})
			end := a.WaitType(from, "agent_end")
			_ = end
			var last map[string]any
			for _, r := range a.Records(from) {
				if r.Type() == "message_end" {
					if m := r["message"].(map[string]any); m["role"] == "assistant" {
						last = m
					}
				}
			}
			if last == nil || last["stopReason"] != "aborted" {
				t.Errorf("the aborted answer: %v", last)
			}
		})
	}
}

// refreshModels as pi's legacy provider form, in every engine: called in
// the background on registration and by ctx.modelRegistry.refresh(); the
// chat models it returns replace the provider's in the agent's catalogue.
func TestProviderRefreshModels(t *testing.T) {
	for _, runtime := range []string{"goja", "node", "isolated"} {
		t.Run(runtime, func(t *testing.T) {
			dir := t.TempDir()
			src := `export default function (pi: any) {
  let calls = 0;
  const model = (id: string) => ({ id, name: id, reasoning: false, input: ["text"], cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }, contextWindow: 1000, maxTokens: 100 });
  pi.registerProvider("dyn", {
    baseUrl: "http://127.0.0.1:9/v1", apiKey: "local", api: "openai-completions",
    models: [model("static")],
    async refreshModels(context: any) {
      calls++;
      if (!context.signal) throw new Error("no signal");
      return [model("live-" + calls), { type: "image", id: "pic", name: "pic", api: "x", input: ["text"], output: ["image"], cost: {} }];
    },
  });
  pi.registerCommand("refresh", { handler: async (_a: string, ctx: any) => { await ctx.modelRegistry.refresh(); } });
}
`
			ext := filepath.Join(dir, "dyn.ts")
			if err := os.WriteFile(ext, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			a := startInRuntime(t, runtime, ext, nil)
			a.MustSucceed(map[string]any{"type": "prompt", "message": "/refresh"}) // answered when the command has finished
			var ids []string
			for _, m := range a.MustSucceed(map[string]any{"type": "get_available_models"})["data"].(map[string]any)["models"].([]any) {
				if mm := m.(map[string]any); mm["provider"] == "dyn" {
					ids = append(ids, mm["id"].(string))
				}
			}
			// The registration's refresh and the command's: the second's
			// list is the catalogue's.
			if strings.Join(ids, ",") != "live-2" {
				t.Errorf("dyn's models after two refreshes: %v\n%s", ids, a.Stderr())
			}
		})
	}
}

// An extension's stream that sends nothing for httpIdleTimeoutMs fails
// the request as a silent provider does, and its signal is aborted.
func TestProviderStreamIdle(t *testing.T) {
	dir := t.TempDir()
	src := `import { createAssistantMessageEventStream } from "@earendil-works/pi-ai";
export default function (pi: any) {
  pi.registerProvider("acme", {
    baseUrl: "https://acme.invalid/v1", api: "acme-wire",
    models: [{ id: "silent", name: "Silent", reasoning: false, input: ["text"], cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }, contextWindow: 32000, maxTokens: 1000 }],
    streamSimple(model: any, _context: any, options: any) {
      const stream = createAssistantMessageEventStream();
      options.signal.addEventListener("abort", () => pi.appendEntry("idle-aborted", {}));
      return stream;
    },
  });
}
`
	ext := filepath.Join(dir, "silent.ts")
	if err := os.WriteFile(ext, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	a := startInRuntimeArgs(t, "goja", ext, nil, []string{"--model", "acme/silent"},
		map[string]any{"httpIdleTimeoutMs": 300, "retry": map[string]any{"enabled": false}})
	var answer map[string]any
	for _, r := range a.PromptAndWait("hello") {
		if r.Type() == "message_end" {
			if m := r["message"].(map[string]any); m["role"] == "assistant" {
				answer = m
			}
		}
	}
	if answer == nil || answer["stopReason"] != "error" || !strings.Contains(fmt.Sprint(answer["errorMessage"]), "httpIdleTimeoutMs") {
		t.Errorf("the silent stream's answer: %v", answer)
	}
	// (The abort reaches the extension on its own loop.)
	a.WaitFrom(0, 30*time.Second, func(r e2e.Record) bool {
		e, _ := r["entry"].(map[string]any)
		return r.Type() == "entry_appended" && e["customType"] == "idle-aborted"
	})
}
