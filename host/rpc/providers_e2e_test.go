package rpc_test

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/atomic-go/atomic/host/llm/llmtest"
	"github.com/atomic-go/atomic/internal/e2e"
	"github.com/atomic-go/atomic/sdk/rpcclient"
)

// plantedKey is the API key configured for the local provider; it must
// never show up in the agent's output or files.
const plantedKey = "sk-PLANTED-7f3a9c2e41d8b6"

func localModels(baseURL string) string {
	return fmt.Sprintf(`{"providers": {"local": {
	  "baseUrl": %q, "api": "openai-completions", "apiKey": %q,
	  "models": [
	    {"id": "local-model", "name": "Local Model", "contextWindow": 32000, "maxTokens": 4096,
	     "cost": {"input": 1, "output": 2, "cacheRead": 0.5, "cacheWrite": 0}},
	    {"id": "local-reasoner", "reasoning": true, "contextWindow": 64000}
	  ]}}}`, baseURL+"/v1", plantedKey)
}

func startLocal(t *testing.T, srv *llmtest.Server, settings string) *e2e.Agent {
	t.Helper()
	files := map[string]string{"models.json": localModels(srv.URL)}
	if settings != "" {
		files["settings.json"] = settings
	}
	return e2e.Start(t, e2e.Options{AgentFiles: files})
}

func recordsOfType(recs []e2e.Record, typ string) []e2e.Record {
	var out []e2e.Record
	for _, r := range recs {
		if r.Type() == typ {
			out = append(out, r)
		}
	}
	return out
}

func asObj(v any) map[string]any { m, _ := v.(map[string]any); return m }

func asNum(v any) float64 { f, _ := v.(float64); return f }

// assertNoKey fails if the planted key appears on stdout, stderr or in any
// file the agent wrote (the configuration files that hold it aside).
func assertNoKey(t *testing.T, a *e2e.Agent) {
	t.Helper()
	checkNoKey(t, a.RawLines(), a.Stderr(), a.Home, a.Dir)
}

// checkNoKey is assertNoKey for any agent: its stdout lines, its stderr
// and the files under its home and working directory.
func checkNoKey(t *testing.T, lines [][]byte, stderr, home, dir string) {
	t.Helper()
	for i, line := range lines {
		if strings.Contains(string(line), plantedKey) {
			t.Errorf("stdout line %d contains the API key: %s", i, line)
		}
	}
	if strings.Contains(stderr, plantedKey) {
		t.Errorf("stderr contains the API key")
	}
	for _, root := range []string{home, dir} {
		_ = filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
			if err != nil || fi.IsDir() {
				return nil
			}
			base := filepath.Base(p)
			if base == "models.json" || base == "auth.json" {
				return nil
			}
			data, err := os.ReadFile(p)
			if err == nil && strings.Contains(string(data), plantedKey) {
				t.Errorf("%s contains the API key", p)
			}
			return nil
		})
	}
}

func TestCustomProviderToolCallAndStats(t *testing.T) {
	srv := llmtest.Start(t)
	srv.Enqueue(
		llmtest.OpenAIChat(llmtest.Turn{Text: "Let me check.", Chunks: 2,
			ToolCalls: []llmtest.Call{{ID: "call_e2e_1", Name: "bash", Args: `{"command":"echo tool-output-42"}`}},
			Usage:     llmtest.Usage{Input: 1000, Output: 50}}),
		llmtest.OpenAIChat(llmtest.Turn{Text: "All done.", Chunks: 3, Usage: llmtest.Usage{Input: 1100, CacheRead: 900, Output: 20}}),
	)
	c := e2e.StartClient(t, e2e.Options{AgentFiles: map[string]string{
		"models.json": localModels(srv.URL), "settings.json": `{"someUnknownKey": {"kept": true}}`,
	}}, e2e.ClientOptions{KeepLines: true})
	ctx := e2e.Ctx(t, 30*time.Second)

	st, err := c.GetState(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Model == nil || st.Model.Provider != "local" || st.Model.ID != "local-model" {
		t.Fatalf("default model: %+v", st.Model)
	}

	run, err := c.PromptAndWait(ctx, "run the tool")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	var lastUpdate rpcclient.MessageUpdate
	for _, ev := range run.OfType("message_update") {
		var u rpcclient.MessageUpdate
		if err := ev.Decode(&u); err != nil {
			t.Fatal(err)
		}
		seen[u.AssistantMessageEvent.Type] = true
		lastUpdate = u
	}
	for _, want := range []string{"toolcall_start", "toolcall_delta", "toolcall_end"} {
		if !seen[want] {
			t.Errorf("no %s update (saw %v)", want, seen)
		}
	}
	ends := run.OfType("tool_execution_end")
	if len(ends) != 1 {
		t.Fatalf("tool_execution_end: %d", len(ends))
	}
	var end rpcclient.ToolExecution
	if err := ends[0].Decode(&end); err != nil || end.IsError || !strings.Contains(end.Result.Content.Text(), "tool-output-42") {
		t.Fatalf("tool_execution_end: %+v %v", end, err)
	}
	var assistants []rpcclient.Message
	for _, m := range run.Messages {
		if m.Role == "assistant" {
			assistants = append(assistants, m)
		}
	}
	if len(assistants) != 2 || assistants[0].StopReason != "toolUse" || assistants[1].StopReason != "stop" {
		t.Fatalf("assistant messages: %+v", assistants)
	}
	final := assistants[1]
	if final.API != "openai-completions" || final.Provider != "local" || final.Model != "local-model" {
		t.Errorf("final message identity: %s %s %s", final.API, final.Provider, final.Model)
	}
	u := final.Usage
	if u.Input != 1100 || u.CacheRead != 900 || u.Output != 20 || u.TotalTokens != 2020 {
		t.Errorf("usage: %+v", u)
	}
	wantCost := (1100*1 + 900*0.5 + 20*2) / 1e6
	if math.Abs(u.Cost.Total-wantCost) > 1e-12 {
		t.Errorf("cost %v want %v", u.Cost.Total, wantCost)
	}
	// message_update carries the cumulative usage of the message.
	if lastUpdate.Usage == nil || lastUpdate.Usage.Input != 1100 {
		t.Errorf("last message_update usage: %+v", lastUpdate.Usage)
	}

	// What the server received: the key, the tool definition, then the
	// tool result on the second call.
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("server got %d requests", len(reqs))
	}
	if reqs[0].Header.Get("Authorization") != "Bearer "+plantedKey {
		t.Errorf("the key was not sent")
	}
	var second struct {
		Messages []map[string]any `json:"messages"`
		Tools    []any            `json:"tools"`
	}
	if err := json.Unmarshal(reqs[1].Body, &second); err != nil {
		t.Fatal(err)
	}
	last := second.Messages[len(second.Messages)-1]
	if last["role"] != "tool" || last["tool_call_id"] != "call_e2e_1" || !strings.Contains(fmt.Sprint(last["content"]), "tool-output-42") {
		t.Errorf("tool result sent: %v", last)
	}
	if len(second.Tools) == 0 {
		t.Errorf("no tools offered")
	}

	stats, err := c.GetSessionStats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if stats.UserMessages != 1 || stats.AssistantMessages != 2 || stats.ToolCalls != 1 || stats.ToolResults != 1 || stats.TotalMessages != 4 {
		t.Errorf("stats: %+v", stats)
	}
	if tok := stats.Tokens; tok.Input != 2100 || tok.Output != 70 || tok.CacheRead != 900 || tok.Total != 3070 {
		t.Errorf("tokens: %+v", tok)
	}
	wantTotal := (1000*1+50*2)/1e6 + wantCost
	if math.Abs(stats.Cost-wantTotal) > 1e-12 {
		t.Errorf("cost %v want %v", stats.Cost, wantTotal)
	}
	cu := stats.ContextUsage
	if cu == nil || cu.ContextWindow != 32000 || cu.Tokens == nil || *cu.Tokens != 2020 || cu.Percent == nil || math.Abs(*cu.Percent-2020.0/320) > 0.01 {
		t.Errorf("contextUsage: %+v", cu)
	}
	if stats.SessionID == "" {
		t.Errorf("no sessionId")
	}
	// The session file records the conversation (and the key check below
	// covers it).
	data, err := os.ReadFile(stats.SessionFile)
	if err != nil || !strings.Contains(string(data), "tool-output-42") || !strings.Contains(string(data), `"model":"local-model"`) {
		t.Errorf("session file %q: %v\n%s", stats.SessionFile, err, data)
	}
	checkNoKey(t, c.Lines(), c.Stderr(), c.Home, c.Dir)
}

func TestModelAndThinkingCommands(t *testing.T) {
	srv := llmtest.Start(t)
	a := startLocal(t, srv, `{"someUnknownKey": [1, 2, 3], "retry": {"enabled": true}}`)

	models := asObj(a.MustSucceed(map[string]any{"type": "get_available_models"})["data"])["models"].([]any)
	var ids []string
	for _, m := range models {
		mm := asObj(m)
		ids = append(ids, mm["provider"].(string)+"/"+mm["id"].(string))
		for _, k := range []string{"name", "api", "baseUrl", "reasoning", "input", "contextWindow", "maxTokens", "cost"} {
			if _, ok := mm[k]; !ok {
				t.Errorf("model %v lacks %s", mm["id"], k)
			}
		}
	}
	if got := strings.Join(ids, ","); got != "local/local-model,local/local-reasoner" { // faux only when nothing else is available
		t.Errorf("available models: %s", got)
	}

	// Non-reasoning model: only "off"; cycling thinking gives null.
	lv := asObj(a.MustSucceed(map[string]any{"type": "get_available_thinking_levels"})["data"])
	if fmt.Sprint(lv["levels"]) != "[off]" {
		t.Errorf("levels: %v", lv)
	}
	if r := a.MustSucceed(map[string]any{"type": "cycle_thinking_level"}); r["data"] != nil {
		t.Errorf("cycle_thinking_level on a non-reasoning model: %v", r["data"])
	}
	if _, ok := a.MustSucceed(map[string]any{"type": "cycle_thinking_level"})["data"]; !ok {
		t.Errorf("null data must be explicit")
	}

	from := a.Len()
	r := a.MustSucceed(map[string]any{"type": "set_model", "provider": "local", "modelId": "local-reasoner"})
	if m := asObj(r["data"]); m["id"] != "local-reasoner" || m["reasoning"] != true || asNum(m["contextWindow"]) != 64000 {
		t.Errorf("set_model data: %v", m)
	}
	mc := a.WaitType(from, "model_changed")
	if asObj(mc["model"])["id"] != "local-reasoner" || asObj(mc["previousModel"])["id"] != "local-model" || mc["source"] != "set" {
		t.Errorf("model_changed: %v", mc)
	}
	if tl := a.WaitType(from, "thinking_level_changed"); tl["level"] != "medium" {
		t.Errorf("thinking_level_changed: %v", tl)
	}
	// The same model again: no event.
	from = a.Len()
	a.MustSucceed(map[string]any{"type": "set_model", "provider": "local", "modelId": "local-reasoner"})
	a.MustSucceed(map[string]any{"type": "get_state"})
	for _, rec := range a.Records(from) {
		if rec.Type() == "model_changed" || rec.Type() == "thinking_level_changed" {
			t.Errorf("event without a change: %v", rec)
		}
	}
	if r := a.Request(map[string]any{"type": "set_model", "provider": "local", "modelId": "nope"}); r["success"] != false || r["error"] != "Model not found: local/nope" {
		t.Errorf("unknown model: %v", r)
	}
	if r := a.Request(map[string]any{"type": "set_model", "provider": "anthropic", "modelId": "claude-opus-4-6"}); r["success"] != false || !strings.Contains(fmt.Sprint(r["error"]), "No API key") {
		t.Errorf("model without key: %v", r)
	}
	if r := a.Request(map[string]any{"type": "set_model", "provider": "local"}); r["success"] != false || !strings.Contains(fmt.Sprint(r["error"]), "modelId") {
		t.Errorf("missing modelId: %v", r)
	}

	lv = asObj(a.MustSucceed(map[string]any{"type": "get_available_thinking_levels"})["data"])
	if fmt.Sprint(lv["levels"]) != "[off minimal low medium high]" {
		t.Errorf("levels: %v", lv)
	}
	from = a.Len()
	ack := asObj(a.MustSucceed(map[string]any{"type": "set_thinking_level", "level": "max"})["data"])
	if ack["level"] != "high" || ack["provider"] != "local" || ack["modelId"] != "local-reasoner" {
		t.Errorf("set_thinking_level ack: %v", ack)
	}
	if tl := a.WaitType(from, "thinking_level_changed"); tl["level"] != "high" {
		t.Errorf("thinking_level_changed: %v", tl)
	}
	if r := a.Request(map[string]any{"type": "set_thinking_level", "level": "extreme"}); r["success"] != false {
		t.Errorf("invalid level accepted: %v", r)
	}
	if lvl := asObj(a.MustSucceed(map[string]any{"type": "cycle_thinking_level"})["data"]); lvl["level"] != "off" {
		t.Errorf("cycle after high: %v", lvl)
	}
	if lvl := asObj(a.MustSucceed(map[string]any{"type": "cycle_thinking_level"})["data"]); lvl["level"] != "minimal" {
		t.Errorf("cycle after off: %v", lvl)
	}
	st := asObj(a.MustSucceed(map[string]any{"type": "get_state"})["data"])
	if st["thinkingLevel"] != "minimal" {
		t.Errorf("state thinking level: %v", st["thinkingLevel"])
	}

	// cycle_model walks the available models, both directions.
	c := asObj(a.MustSucceed(map[string]any{"type": "cycle_model"})["data"])
	if asObj(c["model"])["id"] != "local-model" || c["isScoped"] != false || c["thinkingLevel"] != "off" {
		t.Errorf("cycle_model forward: %v", c)
	}
	c = asObj(a.MustSucceed(map[string]any{"type": "cycle_model", "direction": "backward"})["data"])
	if asObj(c["model"])["id"] != "local-reasoner" {
		t.Errorf("cycle_model backward: %v", c)
	}

	// persist writes the defaults and keeps what the program does not know.
	a.MustSucceed(map[string]any{"type": "set_model", "provider": "local", "modelId": "local-model", "persist": true})
	a.MustSucceed(map[string]any{"type": "set_thinking_level", "level": "low", "persist": true})
	data, err := os.ReadFile(filepath.Join(a.AgentDir, "settings.json"))
	if err != nil {
		t.Fatal(err)
	}
	var saved map[string]any
	if err := json.Unmarshal(data, &saved); err != nil {
		t.Fatal(err)
	}
	if saved["defaultProvider"] != "local" || saved["defaultModel"] != "local-model" || saved["defaultThinkingLevel"] != "off" {
		t.Errorf("saved settings: %s", data)
	}
	if fmt.Sprint(saved["someUnknownKey"]) != "[1 2 3]" || asObj(saved["retry"])["enabled"] != true {
		t.Errorf("unknown keys lost: %s", data)
	}
	assertNoKey(t, a)
}

func TestCycleModelScopeAndNull(t *testing.T) {
	a := e2e.Start(t, e2e.Options{AgentFiles: map[string]string{"settings.json": `{"enabledModels": ["faux/faux-2"]}`}})
	r := a.MustSucceed(map[string]any{"type": "cycle_model"})
	if raw, ok := r["data"]; !ok || raw != nil {
		t.Errorf("cycle_model with one scoped model: %v", r)
	}
	b := e2e.Start(t, e2e.Options{})
	c := asObj(b.MustSucceed(map[string]any{"type": "cycle_model"})["data"])
	if asObj(c["model"])["id"] != "faux-2" {
		t.Errorf("faux cycle: %v", c)
	}
}

func TestAutoRetryThenSuccess(t *testing.T) {
	srv := llmtest.Start(t)
	srv.Enqueue(
		llmtest.Status(503, llmtest.ErrorBody("server_error", "The server is temporarily overloaded")),
		llmtest.Status(429, llmtest.ErrorBody("rate_limit_exceeded", "Too many requests"), "Retry-After", "1"),
		llmtest.OpenAIChat(llmtest.Turn{Text: "Recovered.", Usage: llmtest.Usage{Input: 10, Output: 3}}),
	)
	a := startLocal(t, srv, `{"retry": {"baseDelayMs": 20}}`)
	from := a.Len()
	a.MustSucceed(map[string]any{"type": "prompt", "message": "hello"})
	a.WaitType(from, "agent_settled")
	recs := a.Records(from)

	starts := recordsOfType(recs, "auto_retry_start")
	if len(starts) != 2 {
		t.Fatalf("auto_retry_start events: %v\n%v", starts, e2e.Types(recs))
	}
	if asNum(starts[0]["attempt"]) != 1 || asNum(starts[0]["maxAttempts"]) != 3 || asNum(starts[0]["delayMs"]) != 20 ||
		!strings.Contains(fmt.Sprint(starts[0]["errorMessage"]), "503") {
		t.Errorf("first auto_retry_start: %v", starts[0])
	}
	if asNum(starts[1]["attempt"]) != 2 || asNum(starts[1]["delayMs"]) != 1000 {
		t.Errorf("second auto_retry_start (Retry-After: 1): %v", starts[1])
	}
	ends := recordsOfType(recs, "auto_retry_end")
	if len(ends) != 1 || ends[0]["success"] != true || asNum(ends[0]["attempt"]) != 2 {
		t.Fatalf("auto_retry_end: %v", ends)
	}
	if _, has := ends[0]["finalError"]; has {
		t.Errorf("finalError on success: %v", ends[0])
	}
	// Each attempt is its own run: three agent_end, then one agent_settled.
	if n := len(recordsOfType(recs, "agent_end")); n != 3 {
		t.Errorf("agent_end count %d: %v", n, e2e.Types(recs))
	}
	errs := 0
	for _, r := range recordsOfType(recs, "message_end") {
		if m := asObj(r["message"]); m["role"] == "assistant" && m["stopReason"] == "error" {
			errs++
			if m["errorMessage"] == "" {
				t.Errorf("error message without text")
			}
		}
	}
	if errs != 2 {
		t.Errorf("%d error messages, want 2", errs)
	}
	// The failed attempts left the context: user + the answer.
	msgs := asObj(a.MustSucceed(map[string]any{"type": "get_messages"})["data"])["messages"].([]any)
	if len(msgs) != 2 || asObj(msgs[1])["stopReason"] != "stop" {
		t.Errorf("context after retries: %v", msgs)
	}
	if len(srv.Requests()) != 3 {
		t.Errorf("requests: %d", len(srv.Requests()))
	}
	assertNoKey(t, a)
}

func TestRetryGivesUpAndNonRetryable(t *testing.T) {
	srv := llmtest.Start(t)
	srv.Enqueue(
		llmtest.Status(502, llmtest.ErrorBody("bad_gateway", "Bad gateway")),
		llmtest.Status(502, llmtest.ErrorBody("bad_gateway", "Bad gateway again")),
		llmtest.Status(400, llmtest.ErrorBody("invalid_request_error", "This model's maximum context length is 32000 tokens.")),
		llmtest.Status(401, llmtest.ErrorBody("invalid_request_error", "Incorrect API key provided: "+plantedKey)),
	)
	a := startLocal(t, srv, `{"retry": {"baseDelayMs": 10, "maxRetries": 1}}`)
	from := a.Len()
	a.MustSucceed(map[string]any{"type": "prompt", "message": "one"})
	a.WaitType(from, "agent_settled")
	recs := a.Records(from)
	ends := recordsOfType(recs, "auto_retry_end")
	if len(recordsOfType(recs, "auto_retry_start")) != 1 || len(ends) != 1 || ends[0]["success"] != false ||
		asNum(ends[0]["attempt"]) != 1 || !strings.Contains(fmt.Sprint(ends[0]["finalError"]), "Bad gateway again") {
		t.Fatalf("give up: %v", ends)
	}

	from = a.Len()
	a.MustSucceed(map[string]any{"type": "prompt", "message": "two"})
	a.WaitType(from, "agent_settled")
	recs = a.Records(from)
	if n := len(recordsOfType(recs, "auto_retry_start")); n != 0 {
		t.Errorf("a context overflow was retried")
	}
	var final map[string]any
	for _, r := range recordsOfType(recs, "message_end") {
		final = asObj(r["message"])
	}
	if final["stopReason"] != "error" || !strings.Contains(fmt.Sprint(final["errorMessage"]), "maximum context length") {
		t.Errorf("final message: %v", final)
	}
	// A service that echoes the key in its error: the key is redacted.
	from = a.Len()
	a.MustSucceed(map[string]any{"type": "prompt", "message": "three"})
	a.WaitType(from, "agent_settled")
	for _, r := range recordsOfType(a.Records(from), "message_end") {
		final = asObj(r["message"])
	}
	if !strings.Contains(fmt.Sprint(final["errorMessage"]), "Incorrect API key provided: ***") {
		t.Errorf("401 message: %v", final["errorMessage"])
	}
	// The agent still answers commands.
	a.MustSucceed(map[string]any{"type": "get_state"})
	assertNoKey(t, a)
}

func TestAbortRetryCancelsWait(t *testing.T) {
	srv := llmtest.Start(t)
	srv.Enqueue(llmtest.AnthropicError(529, "overloaded_error", "Overloaded"))
	srv.Respond = func(llmtest.Request) llmtest.Response { return llmtest.OpenAIChat(llmtest.Turn{Text: "late"}) }
	a := startLocal(t, srv, `{"retry": {"baseDelayMs": 60000}}`)
	from := a.Len()
	a.MustSucceed(map[string]any{"type": "prompt", "message": "hi"})
	start := a.WaitType(from, "auto_retry_start")
	if asNum(start["delayMs"]) != 60000 {
		t.Errorf("delay %v", start["delayMs"])
	}
	t0 := time.Now()
	a.MustSucceed(map[string]any{"type": "abort_retry"})
	end := a.WaitFrom(from, 5*time.Second, func(r e2e.Record) bool { return r.Type() == "auto_retry_end" })
	if end["success"] != false || end["finalError"] != "Retry cancelled" || asNum(end["attempt"]) != 1 {
		t.Errorf("auto_retry_end: %v", end)
	}
	a.WaitFrom(from, 5*time.Second, func(r e2e.Record) bool { return r.Type() == "agent_settled" })
	if d := time.Since(t0); d > 5*time.Second {
		t.Errorf("abort_retry took %v", d)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("a retry was sent after abort_retry: %d requests", n)
	}
	st := asObj(a.MustSucceed(map[string]any{"type": "get_state"})["data"])
	if st["isStreaming"] != false {
		t.Errorf("still streaming after abort_retry")
	}
}

func TestAbortDuringRetryWaitAndMidStream(t *testing.T) {
	srv := llmtest.Start(t)
	slow := llmtest.OpenAIChat(llmtest.Turn{Text: strings.Repeat("word ", 100), Chunks: 100})
	slow.Delay = 30 * time.Millisecond
	srv.Enqueue(llmtest.Status(500, llmtest.ErrorBody("server_error", "boom")), slow)
	a := startLocal(t, srv, `{"retry": {"baseDelayMs": 60000}}`)
	from := a.Len()
	a.MustSucceed(map[string]any{"type": "prompt", "message": "hi"})
	a.WaitType(from, "auto_retry_start")
	a.MustSucceed(map[string]any{"type": "abort"})
	end := a.WaitType(from, "auto_retry_end")
	if end["finalError"] != "Retry cancelled" {
		t.Errorf("abort during the wait: %v", end)
	}

	// Abort while a response streams: the message ends as aborted.
	srv.Enqueue(slow)
	a.MustSucceed(map[string]any{"type": "set_auto_retry", "enabled": false})
	from = a.Len()
	a.MustSucceed(map[string]any{"type": "prompt", "message": "again"})
	a.WaitFrom(from, 10*time.Second, func(r e2e.Record) bool {
		return r.Type() == "message_update" && asObj(r["assistantMessageEvent"])["type"] == "text_delta"
	})
	a.MustSucceed(map[string]any{"type": "abort"})
	msgEnd := a.WaitFrom(from, 10*time.Second, func(r e2e.Record) bool {
		return r.Type() == "message_end" && asObj(r["message"])["role"] == "assistant"
	})
	if m := asObj(msgEnd["message"]); m["stopReason"] != "aborted" || m["errorMessage"] != "Request was aborted" {
		t.Errorf("aborted message: %v", m)
	}
}

func TestAnthropicProviderThroughModelsJSON(t *testing.T) {
	srv := llmtest.Start(t)
	srv.Enqueue(llmtest.Anthropic(llmtest.Turn{Thinking: "thinking about it", Signature: "sig-xyz", Text: "Hi there", Chunks: 2,
		Usage: llmtest.Usage{Input: 12, Output: 7, CacheWrite: 100}}))
	models := fmt.Sprintf(`{"providers": {"claude-proxy": {"baseUrl": %q, "api": "anthropic-messages", "apiKey": %q,
	  "models": [{"id": "claude-sonnet-4-5", "reasoning": true, "input": ["text", "image"], "contextWindow": 200000, "maxTokens": 64000,
	  "cost": {"input": 3, "output": 15, "cacheRead": 0.3, "cacheWrite": 3.75}}]}}}`, srv.URL, plantedKey)
	a := e2e.Start(t, e2e.Options{AgentFiles: map[string]string{"models.json": models}})
	recs := a.PromptAndWait("hello")
	var final map[string]any
	for _, r := range recordsOfType(recs, "message_end") {
		final = asObj(r["message"])
	}
	blocks := final["content"].([]any)
	if len(blocks) != 2 || asObj(blocks[0])["thinkingSignature"] != "sig-xyz" || asObj(blocks[1])["text"] != "Hi there" {
		t.Fatalf("content: %v", blocks)
	}
	if u := asObj(final["usage"]); asNum(u["cacheWrite"]) != 100 {
		t.Errorf("usage: %v", u)
	}
	if got := srv.Requests()[0].Header.Get("X-Api-Key"); got != plantedKey {
		t.Errorf("x-api-key not sent")
	}
	assertNoKey(t, a)
}

func TestCredentialsFromEnvAndLogout(t *testing.T) {
	auth := `{"openai": {"type": "api_key", "key": "sk-stored-openai-123"}}`
	a := e2e.Start(t, e2e.Options{
		Env:        map[string]string{"ANTHROPIC_API_KEY": plantedKey},
		AgentFiles: map[string]string{"auth.json": auth},
	})
	st := asObj(a.MustSucceed(map[string]any{"type": "get_state"})["data"])
	if m := asObj(st["model"]); m["provider"] != "anthropic" {
		t.Errorf("default model with ANTHROPIC_API_KEY: %v", m)
	}
	models := asObj(a.MustSucceed(map[string]any{"type": "get_available_models"})["data"])["models"].([]any)
	providers := map[string]bool{}
	for _, m := range models {
		providers[asObj(m)["provider"].(string)] = true
	}
	if !providers["anthropic"] || !providers["openai"] || providers["google"] || providers["faux"] {
		t.Errorf("providers available: %v", providers)
	}
	out := asObj(a.MustSucceed(map[string]any{"type": "logout_provider", "provider": "openai"})["data"])
	if out["provider"] != "openai" || asObj(out["authStatus"])["configured"] != false {
		t.Errorf("logout openai: %v", out)
	}
	for _, m := range out["models"].([]any) {
		if asObj(m)["provider"] == "openai" {
			t.Errorf("openai models still listed after logout")
			break
		}
	}
	data, _ := os.ReadFile(filepath.Join(a.AgentDir, "auth.json"))
	if strings.Contains(string(data), "sk-stored-openai-123") {
		t.Errorf("auth.json still holds the key: %s", data)
	}
	out = asObj(a.MustSucceed(map[string]any{"type": "logout_provider", "provider": "anthropic"})["data"])
	if as := asObj(out["authStatus"]); as["configured"] != true || as["source"] != "environment" || as["label"] != "ANTHROPIC_API_KEY" {
		t.Errorf("env auth status: %v", as)
	}
	assertNoKey(t, a)
}
