package interop

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/atomic-go/atomic/host/llm/llmtest"
	"github.com/atomic-go/atomic/internal/e2e"
)

var uuidRE = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

// normalizer replaces what legitimately differs from run to run
// (timestamps, session ids and files, temporary paths, the server's port)
// with placeholders, after checking its form.
type normalizer struct {
	t        *testing.T
	cwd      string
	server   string
	agentDir string
	sessions map[string]string // session id -> placeholder, in order of appearance
}

func (n *normalizer) value(path string, v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, val := range x {
			out[k] = n.field(path+"."+k, k, val)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, val := range x {
			out[i] = n.value(path+"["+strconv.Itoa(i)+"]", val)
		}
		return out
	case string:
		x = strings.ReplaceAll(x, n.server, "<server>")
		return strings.ReplaceAll(x, n.cwd, "<cwd>")
	case float64:
		if x == 0 {
			return x
		}
		// Costs are sums of products: compare them to 12 digits.
		r, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'g', 12, 64), 64)
		return r
	}
	return v
}

func (n *normalizer) field(path, key string, v any) any {
	switch key {
	case "timestamp":
		if f, ok := v.(float64); !ok || f < 1e12 {
			n.t.Errorf("%s: timestamp %v is not a time in milliseconds", path, v)
		}
		return "<ts>"
	case "sessionId":
		s, _ := v.(string)
		if !uuidRE.MatchString(s) {
			n.t.Errorf("%s: session id %q is not a UUID", path, s)
		}
		if _, ok := n.sessions[s]; !ok {
			n.sessions[s] = fmt.Sprintf("<session-%d>", len(n.sessions)+1)
		}
		return n.sessions[s]
	case "sessionFile":
		s, _ := v.(string)
		dir := filepath.Join(n.agentDir, "sessions") + "/"
		if !strings.HasPrefix(s, dir) || !strings.HasSuffix(s, ".jsonl") {
			n.t.Errorf("%s: session file %q is not a .jsonl file under %s", path, s, dir)
		}
		// The file name ends with the session id.
		base := filepath.Base(s)
		id := strings.TrimSuffix(base[strings.LastIndexByte(base, '_')+1:], ".jsonl")
		if _, ok := n.sessions[id]; !ok {
			n.sessions[id] = fmt.Sprintf("<session-%d>", len(n.sessions)+1)
		}
		return "<file of " + n.sessions[id] + ">"
	}
	return n.value(path, v)
}

// check compares a recorded value with the expected JSON, after
// normalising the recorded one.
func (n *normalizer) check(name string, got json.RawMessage, want string) {
	n.t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		n.t.Errorf("%s: recorded value does not decode: %v: %s", name, err, got)
		return
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		n.t.Fatalf("%s: expected value does not decode: %v", name, err)
	}
	g = n.value(name, g)
	w = round(w) // the expected numbers are rounded the same way
	if !reflect.DeepEqual(g, w) {
		gb, _ := json.MarshalIndent(g, "", "  ")
		wb, _ := json.MarshalIndent(w, "", "  ")
		n.t.Errorf("%s:\ngot  %s\nwant %s", name, gb, wb)
	}
}

const localModel = `{"id": "local-model", "name": "Local Model", "api": "openai-completions", "provider": "local",
  "baseUrl": "<server>/v1", "reasoning": false, "input": ["text"], "contextWindow": 16000, "maxTokens": 1024,
  "cost": {"input": 1, "output": 2, "cacheRead": 0.5, "cacheWrite": 0}}`

const otherModel = `{"id": "local-other", "name": "Local Other", "api": "openai-completions", "provider": "local",
  "baseUrl": "<server>/v1", "reasoning": false, "input": ["text"], "contextWindow": 32000, "maxTokens": 2048,
  "cost": {"input": 3, "output": 6, "cacheRead": 1, "cacheWrite": 0}}`

func usage(in, out, cacheRead int, rIn, rOut, rCache float64) string {
	ci, co, cr := float64(in)*rIn/1e6, float64(out)*rOut/1e6, float64(cacheRead)*rCache/1e6
	return fmt.Sprintf(`{"input": %d, "output": %d, "cacheRead": %d, "cacheWrite": 0, "totalTokens": %d,
	  "cost": {"input": %v, "output": %v, "cacheRead": %v, "cacheWrite": 0, "total": %v}}`,
		in, out, cacheRead, in+out+cacheRead, ci, co, cr, ci+co+cr)
}

var (
	userHello  = `{"role": "user", "content": [{"type": "text", "text": "Say hello"}], "timestamp": "<ts>"}`
	replyHello = `{"role": "assistant", "content": [{"type": "text", "text": "Hello from the local model."}],
	  "api": "openai-completions", "provider": "local", "model": "local-other", "responseId": "chatcmpl-1",
	  "usage": ` + usage(120, 7, 0, 3, 6, 1) + `, "stopReason": "stop", "timestamp": "<ts>"}`
	userCheck = `{"role": "user", "content": [{"type": "text", "text": "Run the check"}], "timestamp": "<ts>"}`
	toolCall  = `{"type": "toolCall", "id": "call_interop_1", "name": "bash", "arguments": {"command": "echo interop-$((6*7))"}}`
	replyTool = `{"role": "assistant", "content": [{"type": "text", "text": "Running it."}, ` + toolCall + `],
	  "api": "openai-completions", "provider": "local", "model": "local-other", "responseId": "chatcmpl-2",
	  "usage": ` + usage(150, 12, 0, 3, 6, 1) + `, "stopReason": "toolUse", "timestamp": "<ts>"}`
	toolResult = `{"role": "toolResult", "toolCallId": "call_interop_1", "toolName": "bash",
	  "content": [{"type": "text", "text": "interop-42\n"}], "isError": false, "timestamp": "<ts>"}`
	replyFinal = `{"role": "assistant", "content": [{"type": "text", "text": "The command printed interop-42."}],
	  "api": "openai-completions", "provider": "local", "model": "local-other", "responseId": "chatcmpl-3",
	  "usage": ` + usage(180, 9, 100, 3, 6, 1) + `, "stopReason": "stop", "timestamp": "<ts>"}`
)

// eventTypes lists the events' types, message_update with the type of its
// delta.
func eventTypes(evs []json.RawMessage) []string {
	var out []string
	for _, raw := range evs {
		var e struct {
			Type string `json:"type"`
			AME  struct {
				Type string `json:"type"`
			} `json:"assistantMessageEvent"`
		}
		_ = json.Unmarshal(raw, &e)
		if e.Type == "message_update" {
			out = append(out, "update:"+e.AME.Type)
		} else {
			out = append(out, e.Type)
		}
	}
	return out
}

func ofType(evs []json.RawMessage, typ string) []json.RawMessage {
	var out []json.RawMessage
	for _, raw := range evs {
		var e struct{ Type string }
		_ = json.Unmarshal(raw, &e)
		if e.Type == typ {
			out = append(out, raw)
		}
	}
	return out
}

func deltas(evs []json.RawMessage) string {
	var sb strings.Builder
	for _, raw := range ofType(evs, "message_update") {
		var e struct {
			AME struct{ Type, Delta string } `json:"assistantMessageEvent"`
		}
		_ = json.Unmarshal(raw, &e)
		if e.AME.Type == "text_delta" {
			sb.WriteString(e.AME.Delta + "|")
		}
	}
	return sb.String()
}

func checkScenario(t *testing.T, res driverResults, env e2e.Env, cwd string, srv *llmtest.Server) {
	n := &normalizer{t: t, cwd: cwd, server: srv.URL, agentDir: env.AgentDir, sessions: map[string]string{}}
	steps := map[string]result{}
	var order []string
	for _, s := range res.Steps {
		steps[s.Name] = s
		order = append(order, s.Name)
		if s.Error != "" && s.Name != "unknownCommand" {
			t.Errorf("step %s failed: %s", s.Name, s.Error)
		}
	}
	want := []string{"getState", "getAvailableModels", "setModel", "promptText", "promptBash", "getMessages",
		"getLastAssistantText", "getSessionStats", "bash", "newSession", "getStateAfterNewSession", "getCommands",
		"unknownCommand", "stop"}
	if !reflect.DeepEqual(order, want) {
		t.Fatalf("steps %v, want %v\nagent stderr:\n%s", order, want, res.Stderr)
	}

	stateJSON := func(model string, messages int) string {
		return `{"model": ` + model + `, "thinkingLevel": "off", "isStreaming": false, "isCompacting": false,
		  "steeringMode": "one-at-a-time", "followUpMode": "one-at-a-time",
		  "sessionFile": "<file of <session-%d>>", "sessionId": "<session-%d>", "autoCompactionEnabled": true,
		  "messageCount": ` + strconv.Itoa(messages) + `, "pendingMessageCount": 0, "queuedMessagesPaused": false,
		  "resourceOverlaps": []}`
	}
	n.check("getState", steps["getState"].Value, fmt.Sprintf(stateJSON(localModel, 0), 1, 1))
	n.check("getAvailableModels", steps["getAvailableModels"].Value, `[`+localModel+`, `+otherModel+`]`) // faux only when nothing else is available

	n.check("setModel", steps["setModel"].Value, otherModel)
	n.check("setModel events", mustJSON(steps["setModel"].Events),
		`[{"type": "model_changed", "model": `+otherModel+`, "previousModel": `+localModel+`, "source": "set"}]`)

	// A text reply, streamed in three deltas.
	text := steps["promptText"]
	wantTypes := []string{"agent_start", "turn_start", "message_start", "message_end", "message_start",
		"update:text_start", "update:text_delta", "update:text_delta", "update:text_delta", "update:text_end",
		"message_end", "turn_end", "agent_end"}
	var collected []json.RawMessage
	_ = json.Unmarshal(text.Value, &collected)
	if got := eventTypes(collected); !reflect.DeepEqual(got, wantTypes) {
		t.Errorf("promptAndWait events:\n got %v\nwant %v", got, wantTypes)
	}
	if got := eventTypes(text.Events); len(got) != len(wantTypes)+1 || got[len(got)-1] != "agent_settled" {
		t.Errorf("all events of the text prompt: %v", got)
	}
	if d := deltas(collected); d != "Hello fro|m the loc|al model.|" {
		t.Errorf("deltas %q", d)
	}
	if len(collected) == len(wantTypes) {
		n.check("promptText user message_start", collected[2], `{"type": "message_start", "message": `+userHello+`}`)
		n.check("promptText assistant message_start", collected[4], `{"type": "message_start", "message": {"role": "assistant",
		  "content": [], "api": "openai-completions", "provider": "local", "model": "local-other",
		  "usage": `+usage(0, 0, 0, 0, 0, 0)+`, "stopReason": "pending", "timestamp": "<ts>"}}`)
		n.check("promptText text_end", collected[9], `{"type": "message_update", "usage": `+usage(120, 7, 0, 3, 6, 1)+`,
		  "assistantMessageEvent": {"type": "text_end", "contentIndex": 0, "content": "Hello from the local model."}}`)
		n.check("promptText message_end", collected[10], `{"type": "message_end", "message": `+replyHello+`}`)
		n.check("promptText turn_end", collected[11], `{"type": "turn_end", "message": `+replyHello+`, "toolResults": []}`)
		n.check("promptText agent_end", collected[12], `{"type": "agent_end", "messages": [`+userHello+`, `+replyHello+`], "willRetry": false}`)
	}

	// A bash tool call and the reply after it.
	bash := steps["promptBash"]
	wantTypes = []string{"agent_start", "turn_start", "message_start", "message_end", "message_start",
		"update:text_start", "update:text_delta", "update:text_delta", "update:text_end",
		"update:toolcall_start", "update:toolcall_delta", "update:toolcall_delta", "update:toolcall_end", "message_end",
		"tool_execution_start", "tool_execution_update", "tool_execution_end", "message_start", "message_end", "turn_end",
		"turn_start", "message_start", "update:text_start", "update:text_delta", "update:text_delta", "update:text_end",
		"message_end", "turn_end", "agent_end", "agent_settled"}
	if got := eventTypes(bash.Events); !reflect.DeepEqual(got, wantTypes) {
		t.Errorf("bash prompt events:\n got %v\nwant %v", got, wantTypes)
	}
	if d := deltas(bash.Events); d != "Runnin|g it.|The command prin|ted interop-42.|" {
		t.Errorf("deltas %q", d)
	}
	n.check("tool_execution_start", mustJSON(ofType(bash.Events, "tool_execution_start")),
		`[{"type": "tool_execution_start", "toolCallId": "call_interop_1", "toolName": "bash", "args": {"command": "echo interop-$((6*7))"}}]`)
	if ends := ofType(bash.Events, "tool_execution_end"); len(ends) == 1 {
		var end struct {
			ToolCallID, ToolName string
			IsError              bool
			Result               struct {
				Content []struct{ Type, Text string }
			}
		}
		_ = json.Unmarshal(ends[0], &end)
		if end.ToolCallID != "call_interop_1" || end.ToolName != "bash" || end.IsError ||
			len(end.Result.Content) != 1 || end.Result.Content[0].Text != "interop-42\n" {
			t.Errorf("tool_execution_end %s", ends[0])
		}
	}
	n.check("bash prompt agent_end", mustJSON(ofType(bash.Events, "agent_end")),
		`[{"type": "agent_end", "messages": [`+userCheck+`, `+replyTool+`, `+toolResult+`, `+replyFinal+`], "willRetry": false}]`)

	n.check("getMessages", steps["getMessages"].Value,
		`[`+userHello+`, `+replyHello+`, `+userCheck+`, `+replyTool+`, `+toolResult+`, `+replyFinal+`]`)
	n.check("getLastAssistantText", steps["getLastAssistantText"].Value, `"The command printed interop-42."`)
	totalCost := (450*3 + 28*6 + 100*1) / 1e6
	n.check("getSessionStats", steps["getSessionStats"].Value, fmt.Sprintf(`{"sessionFile": "<file of <session-1>>",
	  "sessionId": "<session-1>", "userMessages": 2, "assistantMessages": 3, "toolCalls": 1, "toolResults": 1,
	  "totalMessages": 6, "tokens": {"input": 450, "output": 28, "cacheRead": 100, "cacheWrite": 0, "total": 578},
	  "cost": %v, "contextUsage": {"tokens": 289, "contextWindow": 32000, "percent": %v}}`, totalCost, 289.0/32000*100))

	// Direct bash: the result, and its output streamed under the request
	// id the client gave it (req_9: the ninth request of the session).
	n.check("bash", steps["bash"].Value, `{"output": "direct-42\n<cwd>\n", "exitCode": 0, "cancelled": false, "truncated": false}`)
	var out strings.Builder
	for _, raw := range steps["bash"].Events {
		var u struct{ Type, ID, Channel, Delta string }
		_ = json.Unmarshal(raw, &u)
		if u.Type != "bash_execution_update" || u.ID != "req_9" || u.Channel != "stdout" {
			t.Errorf("bash event %s", raw)
		}
		out.WriteString(u.Delta)
	}
	if out.String() != "direct-42\n"+cwd+"\n" {
		t.Errorf("streamed bash output %q", out.String())
	}

	n.check("newSession", steps["newSession"].Value, `{"cancelled": false}`)
	n.check("getStateAfterNewSession", steps["getStateAfterNewSession"].Value, fmt.Sprintf(stateJSON(otherModel, 0), 2, 2))

	builtin := func(name, desc, hint string) string {
		return fmt.Sprintf(`{"name": %q, "description": %q, "source": "prompt", "location": "user",
		  "path": "<builtin>/prompts/%s.md", "argumentHint": %q,
		  "sourceInfo": {"path": "<builtin>/prompts/%s.md", "source": "builtin", "scope": "user", "origin": "package"}}`,
			name, desc, name, hint, name)
	}
	n.check("getCommands", steps["getCommands"].Value, `[{"name": "interop-check", "description": "Check the interop set-up",
	  "source": "prompt", "location": "project", "path": "<cwd>/.atomic/prompts/interop-check.md", "argumentHint": "<what>",
	  "sourceInfo": {"path": "<cwd>/.atomic/prompts/interop-check.md", "source": "auto", "scope": "project",
	    "origin": "top-level", "baseDir": "<cwd>/.atomic"}}, `+
		builtin("explain", "Explain how a piece of code works (a file, a function, a package or a feature)", "<what to explain>")+`, `+
		builtin("fix-tests", "Run the tests, find why they fail, and fix the cause", "[test command or test name]")+`, `+
		builtin("review", "Review the current changes (or the given files or git range) for bugs and risks", "[files or git range] [focus]")+`]`)

	n.check("unknownCommand", steps["unknownCommand"].Value,
		`{"id": "req_13", "type": "response", "command": "interop_unknown", "success": false, "error": "Unknown command: interop_unknown"}`)
	n.check("stop", steps["stop"].Value, `{"exitCode": 0, "signalCode": null, "stoppedWithinGrace": true}`)

	// What the model server received.
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("the server got %d requests, want 3", len(reqs))
	}
	for i, r := range reqs {
		var body struct {
			Model    string           `json:"model"`
			Stream   bool             `json:"stream"`
			Messages []map[string]any `json:"messages"`
		}
		_ = json.Unmarshal(r.Body, &body)
		if r.Path != "/v1/chat/completions" || r.Header.Get("Authorization") != "Bearer interop-key" || body.Model != "local-other" || !body.Stream {
			t.Errorf("request %d: %s %s auth %q model %q stream %v", i, r.Method, r.Path, r.Header.Get("Authorization"), body.Model, body.Stream)
		}
		if i == 2 {
			last := body.Messages[len(body.Messages)-1]
			if last["role"] != "tool" || last["tool_call_id"] != "call_interop_1" || last["content"] != "interop-42\n" {
				t.Errorf("tool result sent to the model: %v", last)
			}
		}
	}
	if len(n.sessions) != 2 {
		t.Errorf("sessions seen: %v", n.sessions)
	}
	if t.Failed() {
		t.Logf("agent stderr:\n%s", res.Stderr)
	}
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

func round(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, val := range x {
			x[k] = round(val)
		}
	case []any:
		for i, val := range x {
			x[i] = round(val)
		}
	case float64:
		r, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'g', 12, 64), 64)
		return r
	}
	return v
}
