package jsext_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/atomic-go/atomic/host/llm/llmtest"
	"github.com/atomic-go/atomic/internal/e2e"
)

// pi 1.6's provider events in every engine, on a real provider request
// (an OpenAI-compatible server): before_provider_headers changes the
// outgoing headers in place (a later handler sees the earlier one's
// change, null deletes; the key is not shown), before_provider_request
// replaces the payload by its return value or in place, chained;
// after_provider_response gets the status and the response headers;
// provider_stream_event gets each streamed event with the model's names.
func TestProviderEvents(t *testing.T) {
	for _, runtime := range []string{"goja", "node", "isolated"} {
		t.Run(runtime, func(t *testing.T) {
			srv := llmtest.Start(t)
			resp := llmtest.OpenAIChat(llmtest.Turn{Text: "hooked answer"})
			resp.Header = map[string]string{"X-Served-By": "llmtest"}
			srv.Enqueue(resp)
			dir := t.TempDir()
			src := `export default function (pi: any) {
  pi.registerProvider("acme", {
    baseUrl: ` + strconv.Quote(srv.URL) + `, apiKey: "$ACME_TEST_KEY", api: "openai-completions", headers: { "X-Drop": "yes" },
    models: [{ id: "acme-chat", name: "Acme Chat", reasoning: false, input: ["text"],
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }, contextWindow: 128000, maxTokens: 8192 }],
  });
  pi.on("before_provider_headers", (e: any, ctx: any) => {
    const keys = Object.keys(e.headers).map((k) => k.toLowerCase());
    ctx.ui.notify("HEADERS drop=" + keys.includes("x-drop") + " auth=" + keys.includes("authorization"));
    e.headers["X-Trace"] = "t-1";
    e.headers["X-Drop"] = null;
  });
  pi.on("before_provider_headers", (e: any) => { e.headers["X-Second"] = e.headers["X-Trace"] + "+2"; });
  pi.on("before_provider_request", (e: any) => ({ ...e.payload, temperature: 0.25 }));
  pi.on("before_provider_request", (e: any) => { e.payload.metadata = { chained: String(e.payload.temperature) }; });
  pi.on("after_provider_response", (e: any, ctx: any) => { ctx.ui.notify("RESP " + e.status + " " + e.headers["x-served-by"]); });
  let n = 0, names = "";
  pi.on("provider_stream_event", (e: any) => { n++; names = e.provider + "/" + e.api + "/" + e.model + " " + typeof e.data; });
  pi.on("agent_end", (_e: any, ctx: any) => { ctx.ui.notify("STREAM " + n + " " + names); });
}
`
			ext := filepath.Join(dir, "hooks.ts")
			if err := os.WriteFile(ext, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			t.Setenv("ACME_TEST_KEY", "acme-secret-key")
			a := startInRuntime(t, runtime, ext, []map[string]any{{"text": "unused"}})
			a.MustSucceed(map[string]any{"type": "get_extensions"})
			a.MustSucceed(map[string]any{"type": "set_model", "provider": "acme", "modelId": "acme-chat"})
			from := a.Len()
			a.PromptAndWait("hello")
			notice := func(prefix string) string {
				t.Helper()
				r := a.WaitFrom(from, 20*time.Second, func(r e2e.Record) bool {
					m, _ := r["message"].(string)
					return r.Type() == "extension_ui_request" && strings.HasPrefix(m, prefix)
				})
				return r["message"].(string)
			}
			if got := notice("HEADERS "); got != "HEADERS drop=true auth=false" {
				t.Errorf("before_provider_headers saw: %s", got)
			}
			if got := notice("RESP "); got != "RESP 200 llmtest" {
				t.Errorf("after_provider_response: %s", got)
			}
			if got := notice("STREAM "); !strings.HasSuffix(got, " acme/openai-completions/acme-chat object") || strings.HasPrefix(got, "STREAM 0 ") {
				t.Errorf("provider_stream_event: %s", got)
			}
			reqs := srv.Requests()
			if len(reqs) != 1 {
				t.Fatalf("%d requests", len(reqs))
			}
			h := reqs[0].Header
			if h.Get("X-Trace") != "t-1" || h.Get("X-Second") != "t-1+2" || h.Get("X-Drop") != "" || h.Get("Authorization") != "Bearer acme-secret-key" {
				t.Errorf("request headers: %v", h)
			}
			var body struct {
				Temperature float64           `json:"temperature"`
				Metadata    map[string]string `json:"metadata"`
				Model       string            `json:"model"`
			}
			if err := json.Unmarshal(reqs[0].Body, &body); err != nil {
				t.Fatal(err)
			}
			if body.Temperature != 0.25 || body.Metadata["chained"] != "0.25" || body.Model != "acme-chat" {
				t.Errorf("request body: %s", reqs[0].Body)
			}
		})
	}
}
