package jsext_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/atomic-go/atomic/host/llm/llmtest"
)

// pi.registerVirtualModel in every engine: the virtual model is listed and
// can be selected; each request asks the extension's route() (with the
// selection, the reason, the previous model and the router state the
// branch keeps) and goes to the physical model it names, which the
// assistant message names; a route to a model the catalogue lacks ends
// the request with an error.
func TestVirtualModel(t *testing.T) {
	for _, runtime := range []string{"goja", "node", "isolated"} {
		t.Run(runtime, func(t *testing.T) {
			dir := t.TempDir()
			src := `export default function (pi: any) {
  let broken = false;
  pi.registerVirtualModel({
    provider: "router", id: "auto", name: "Auto", thinkingLevels: ["low", "high"],
    route(request: any, ctx: any) {
      ctx.ui.notify("ROUTE " + request.model.id + " " + request.thinkingLevel + " " + request.reason + " " + (request.previous ? request.previous.model.id : "-") + " " + (request.state ? request.state.n : "-"));
      if (broken) return { model: { provider: "nowhere", id: "none" } };
      const id = request.thinkingLevel === "high" ? "faux-1" : "faux-2";
      return { model: ctx.modelRegistry.find("faux", id), thinkingLevel: "medium", state: { n: (request.state ? request.state.n : 0) + 1 } };
    },
  });
  pi.registerCommand("break", { handler: async () => { broken = true; } });
  pi.registerCommand("direct", { handler: async (_a: string, ctx: any) => {
    const m = await ctx.modelRegistry.complete(ctx.modelRegistry.find("router", "auto"), { messages: [{ role: "user", content: "side", timestamp: 1 }] });
    ctx.ui.notify("DIRECT " + m.provider + "/" + m.model);
  } });
}
`
			ext := filepath.Join(dir, "router.ts")
			if err := os.WriteFile(ext, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			a := startInRuntime(t, runtime, ext, []map[string]any{{"text": "one"}, {"text": "two"}})
			a.MustSucceed(map[string]any{"type": "get_extensions"})
			found := false
			for _, m := range a.MustSucceed(map[string]any{"type": "get_available_models"})["data"].(map[string]any)["models"].([]any) {
				mm := m.(map[string]any)
				found = found || (mm["provider"] == "router" && mm["id"] == "auto")
			}
			if !found {
				t.Fatalf("router/auto is not available\n%s", a.Stderr())
			}
			a.MustSucceed(map[string]any{"type": "set_model", "provider": "router", "modelId": "auto"})
			a.MustSucceed(map[string]any{"type": "set_thinking_level", "level": "high"})
			run := func(prompt string) (route string, msg map[string]any) {
				for _, r := range a.PromptAndWait(prompt) {
					if m, _ := r["message"].(string); strings.HasPrefix(m, "ROUTE ") {
						route = m
					}
					if r.Type() == "message_end" {
						if m := r["message"].(map[string]any); m["role"] == "assistant" {
							msg = m
						}
					}
				}
				return route, msg
			}
			route, msg := run("first")
			if route != "ROUTE auto high user - -" || msg["provider"] != "faux" || msg["model"] != "faux-1" {
				t.Errorf("first request: route %q, message %v/%v", route, msg["provider"], msg["model"])
			}
			if reqs := a.FauxRequests(); len(reqs) != 1 || reqs[0]["model"].(map[string]any)["id"] != "faux-1" {
				t.Errorf("the faux requests: %v", reqs)
			}
			a.MustSucceed(map[string]any{"type": "set_thinking_level", "level": "low"})
			route, msg = run("second")
			if route != "ROUTE auto low user faux-1 1" || msg["model"] != "faux-2" {
				t.Errorf("second request: route %q, message %v", route, msg["model"])
			}
			// A model call of an extension is a direct request: no state.
			from := a.Len()
			a.MustSucceed(map[string]any{"type": "prompt", "message": "/direct"})
			var direct []string
			for _, r := range a.Records(from) {
				if m, _ := r["message"].(string); strings.HasPrefix(m, "ROUTE ") || strings.HasPrefix(m, "DIRECT ") {
					direct = append(direct, m)
				}
			}
			if strings.Join(direct, "|") != "ROUTE auto off direct - -|DIRECT faux/faux-2" {
				t.Errorf("a direct request: %q", direct)
			}
			a.MustSucceed(map[string]any{"type": "prompt", "message": "/break"})
			_, msg = run("third")
			if msg["stopReason"] != "error" || !strings.Contains(msg["errorMessage"].(string), "nowhere/none") {
				t.Errorf("a route to nowhere: %v", msg)
			}
		})
	}
}

// The automatic retry of a failed request routed by a virtual model asks
// route() again with reason "retry" and the failed request (its model,
// the thinking level it was routed with and its message), which the
// messages no longer hold.
func TestVirtualModelRetry(t *testing.T) {
	srv := llmtest.Start(t)
	srv.Enqueue(llmtest.Status(503, llmtest.ErrorBody("server_error", "The server is temporarily overloaded")),
		llmtest.OpenAIChat(llmtest.Turn{Text: "recovered"}))
	dir := t.TempDir()
	src := `export default function (pi: any) {
  pi.registerProvider("acme", {
    baseUrl: ` + strconv.Quote(srv.URL) + `, apiKey: "$ACME_TEST_KEY", api: "openai-completions",
    models: [{ id: "acme-chat", name: "Acme Chat", reasoning: true, input: ["text"],
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }, contextWindow: 128000, maxTokens: 8192 }],
  });
  pi.registerVirtualModel({
    provider: "router", id: "auto", name: "Auto",
    route(request: any, ctx: any) {
      ctx.ui.notify("ROUTE " + request.reason + " " + (request.failed ? request.failed.model.id + " " + request.failed.message.stopReason + " " + request.failed.thinkingLevel : "-"));
      return { model: ctx.modelRegistry.find("acme", "acme-chat"), thinkingLevel: request.reason === "user" ? "high" : "low" };
    },
  });
  let seen = false;
  pi.on("provider_stream_event", (e: any, ctx: any) => {
    if (!seen) { seen = true; ctx.ui.notify("STREAM " + e.provider + "/" + e.model); }
  });
}
`
	ext := filepath.Join(dir, "router.ts")
	if err := os.WriteFile(ext, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("ACME_TEST_KEY", "k")
	a := startInRuntime(t, "goja", ext, nil, map[string]any{"retry": map[string]any{"baseDelayMs": 10}})
	a.MustSucceed(map[string]any{"type": "get_extensions"})
	a.MustSucceed(map[string]any{"type": "set_model", "provider": "router", "modelId": "auto"})
	from := a.Len()
	a.MustSucceed(map[string]any{"type": "prompt", "message": "hello"})
	a.WaitType(from, "agent_settled")
	var routes []string
	for _, r := range a.Records(from) {
		if m, _ := r["message"].(string); strings.HasPrefix(m, "ROUTE ") || strings.HasPrefix(m, "STREAM ") {
			routes = append(routes, m)
		}
	}
	// (The stream events name the physical model.)
	if strings.Join(routes, "|") != "ROUTE user -|ROUTE retry acme-chat error high|STREAM acme/acme-chat" {
		t.Errorf("routes: %q\n%s", routes, a.Stderr())
	}
}

// After a context overflow under a virtual model (judged by the physical
// model that answered), the compact-and-retry asks route() again as pi
// 1.6 does: reason "retry" with the overflowed request. The router state
// follows the branch: navigating back to an earlier point gives route()
// that point's state.
func TestVirtualModelOverflowRetryAndState(t *testing.T) {
	dir := t.TempDir()
	src := `export default function (pi: any) {
  pi.registerVirtualModel({
    provider: "router", id: "auto", name: "Auto",
    route(request: any, ctx: any) {
      ctx.ui.notify("ROUTE " + request.reason + " " + (request.failed ? request.failed.model.id + " " + request.failed.message.stopReason : "-") + " " + (request.state ? request.state.n : "-"));
      const n = (request.state ? request.state.n : 0) + 1;
      return { model: ctx.modelRegistry.find("faux", "faux-1"), state: request.reason === "direct" ? undefined : { n } };
    },
  });
}
`
	ext := filepath.Join(dir, "router.ts")
	if err := os.WriteFile(ext, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	var script []map[string]any
	for i := 0; i < 4; i++ {
		script = append(script, map[string]any{"text": fmt.Sprintf("answer %d line 1\nanswer %d line 2\nanswer %d line 3", i, i, i), "usage": map[string]any{"input": 1000 + i, "output": 10}})
	}
	script = append(script,
		map[string]any{"error": "prompt is too long: 140000 tokens > 128000 maximum", "status": 400},
		map[string]any{"text": "1,6\n"}, // the compaction planner
		map[string]any{"text": "recovered answer"},
		map[string]any{"text": "on the earlier branch"})
	a := startInRuntime(t, "goja", ext, script)
	a.MustSucceed(map[string]any{"type": "get_extensions"})
	a.MustSucceed(map[string]any{"type": "set_model", "provider": "router", "modelId": "auto"})
	routes := func(from int) []string {
		var out []string
		for _, r := range a.Records(from) {
			if m, _ := r["message"].(string); strings.HasPrefix(m, "ROUTE ") {
				out = append(out, strings.TrimPrefix(m, "ROUTE "))
			}
		}
		return out
	}
	var second string // the leaf after the second answer
	for i := 0; i < 4; i++ {
		from := a.Len()
		a.MustSucceed(map[string]any{"type": "prompt", "message": fmt.Sprintf("request %d", i)})
		a.WaitType(from, "agent_settled")
		if i == 1 {
			second, _ = a.MustSucceed(map[string]any{"type": "get_entries"})["data"].(map[string]any)["leafId"].(string)
		}
	}
	from := a.Len()
	a.MustSucceed(map[string]any{"type": "prompt", "message": "request 4"})
	a.WaitType(from, "agent_settled")
	if got := strings.Join(routes(from), "|"); got != "user - 4|direct - -|retry faux-1 error 5" {
		t.Errorf("routes of the overflowed prompt: %q\n%s", got, a.Stderr())
	}
	if text := a.MustSucceed(map[string]any{"type": "get_last_assistant_text"})["data"].(map[string]any)["text"]; text != "recovered answer" {
		t.Errorf("last text %v", text)
	}
	if second == "" {
		t.Fatal("no leaf after the second answer")
	}
	a.MustSucceed(map[string]any{"type": "navigate_tree", "targetId": second})
	from = a.Len()
	a.MustSucceed(map[string]any{"type": "prompt", "message": "again"})
	a.WaitType(from, "agent_settled")
	if got := strings.Join(routes(from), "|"); got != "user - 2" {
		t.Errorf("route on the earlier branch: %q", got)
	}
}
