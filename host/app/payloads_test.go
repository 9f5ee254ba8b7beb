package app

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/atomic-go/atomic/host/config"
	"github.com/atomic-go/atomic/host/hooks"
	"github.com/atomic-go/atomic/host/hooks/hookstest"
	"github.com/atomic-go/atomic/host/llm"
	"github.com/atomic-go/atomic/host/llm/faux"
	pluginv1 "github.com/atomic-go/atomic/proto/atomic/plugin/v1"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"
)

// The payload schema (proto/atomic/plugin/v1/events.proto) is the one
// description of what extensions receive and may answer. These tests hold
// the host to it: every payload the host emits in a scenario, and every
// result it accepts there and in the composition fixtures, must parse as
// its schema message with no unknown key, so a payload written by hand
// that drifts from the schema fails here.

// schemaMessages maps each event to its payload and result messages,
// read from the options `event` and `result` of the schema.
func schemaMessages(t *testing.T) (payloads, results map[string]protoreflect.MessageDescriptor) {
	t.Helper()
	payloads, results = map[string]protoreflect.MessageDescriptor{}, map[string]protoreflect.MessageDescriptor{}
	msgs := pluginv1.File_atomic_plugin_v1_events_proto.Messages()
	for i := 0; i < msgs.Len(); i++ {
		m := msgs.Get(i)
		for _, ev := range proto.GetExtension(m.Options(), pluginv1.E_Event).([]string) {
			if _, dup := payloads[ev]; dup {
				t.Fatalf("event %s has two payload messages", ev)
			}
			payloads[ev] = m
		}
		for _, ev := range proto.GetExtension(m.Options(), pluginv1.E_Result).([]string) {
			if _, dup := results[ev]; dup {
				t.Fatalf("event %s has two result messages", ev)
			}
			results[ev] = m
		}
	}
	return payloads, results
}

// checkSchema parses raw as md strictly (an unknown key fails).
func checkSchema(md protoreflect.MessageDescriptor, raw []byte) error {
	return protojson.UnmarshalOptions{}.Unmarshal(raw, dynamicpb.NewMessage(md))
}

// answered are the events whose handler results the host reads.
var answered = map[string]bool{
	hooks.ResourcesDiscover: true, hooks.VirtualModelRoute: true, hooks.UserBash: true, hooks.ProjectTrust: true,
}

func TestEveryEventHasASchemaMessage(t *testing.T) {
	payloads, results := schemaMessages(t)
	for name, kind := range hooks.Kinds {
		if payloads[name] == nil {
			t.Errorf("%s has no payload message in events.proto (option event)", name)
		}
		if hooks.PayloadTypes[name] == "" {
			t.Errorf("%s has no generated payload type (run .ci/proto-check --write)", name)
		}
		if (kind != hooks.Notify || answered[name]) && name != hooks.BeforeProviderRequest && results[name] == nil {
			t.Errorf("%s is answered but has no result message in events.proto (option result)", name)
		}
	}
	for name := range payloads {
		if _, ok := hooks.Kinds[name]; !ok {
			t.Errorf("events.proto has a payload for %s, which the bus does not know", name)
		}
	}
}

func TestCompositionFixturesAnswerInTheSchema(t *testing.T) {
	payloads, results := schemaMessages(t)
	// The check is strict: a key the schema does not have fails.
	if checkSchema(payloads[hooks.ToolCall], []byte(`{"type":"tool_call","toolCallId":"c","toolName":"x","input":{},"tool_call_id":"c"}`)) == nil ||
		checkSchema(results[hooks.ToolCall], []byte(`{"block":true,"why":"x"}`)) == nil {
		t.Fatal("an unknown key passed the schema check")
	}
	for _, f := range hookstest.Fixtures {
		payload := `{"type":"` + f.Event + `","` + strings.TrimPrefix(f.Payload, `{"`)
		if f.Payload == "{}" {
			payload = `{"type":"` + f.Event + `"}`
		}
		if err := checkSchema(payloads[f.Event], []byte(payload)); err != nil {
			t.Errorf("%s: payload %s: %v", f.Name, payload, err)
		}
		for _, h := range f.Handlers {
			if h.Return == "" || h.Return == "null" || results[f.Event] == nil {
				continue
			}
			if err := checkSchema(results[f.Event], []byte(h.Return)); err != nil {
				t.Errorf("%s: result %s: %v", f.Name, h.Return, err)
			}
		}
	}
}

// recorder subscribes to every event, records each payload and answers
// from a table of results (which are checked against the schema too).
type recorder struct {
	mu      sync.Mutex
	seen    map[string][][]byte
	answers map[string]string
	fired   chan string
}

func (r *recorder) Path() string { return "payload-recorder" }

func (r *recorder) Events() []string {
	var out []string
	for name := range hooks.Kinds {
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}

func (r *recorder) Handle(_ context.Context, ev *hooks.Event) (json.RawMessage, error) {
	raw, err := ev.JSON()
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	r.seen[ev.Name] = append(r.seen[ev.Name], append([]byte(nil), raw...))
	answer := r.answers[ev.Name]
	r.mu.Unlock()
	select {
	case r.fired <- ev.Name:
	default:
	}
	if answer == "" {
		return nil, nil
	}
	return json.RawMessage(answer), nil
}

func TestHostPayloadsMatchTheSchema(t *testing.T) {
	payloads, results := schemaMessages(t)
	dir := t.TempDir()
	t.Setenv("ATOMIC_FAUX_SCRIPT", "")
	loaded, err := config.Load(config.Paths{AgentDir: filepath.Join(dir, "agent"), ProjectDir: filepath.Join(dir, ".atomic"), Cwd: dir}, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	rt, err := New(Options{Cwd: dir, Settings: loaded, SessionPath: filepath.Join(dir, "s.jsonl")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rt.Close)
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("one\ntwo\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	rt.catalog.RegisterAPI(faux.API, faux.NewWithSteps(
		faux.Step{ToolCalls: []faux.ToolCall{{ID: "call_1", Name: "read", Arguments: map[string]any{"path": "notes.txt"}},
			{ID: "call_2", Name: "bash", Arguments: map[string]any{"command": "echo one; echo two"}}}},
		faux.Step{Text: "listed", Chunks: 2},
		faux.Step{Text: "two"}, faux.Step{Text: "three"}, faux.Step{Text: "four"}, faux.Step{Text: "five"},
	))
	rt.extReady()
	rec := &recorder{seen: map[string][][]byte{}, fired: make(chan string, 64), answers: map[string]string{
		// Answers that exercise each result's fields and leave the
		// scenario going.
		hooks.Input:                `{"action":"transform","text":"list the files"}`,
		hooks.BeforeAgentStart:     `{"message":{"customType":"note","content":"from the recorder","display":false}}`,
		hooks.ToolCall:             `{"block":false}`,
		hooks.ToolResult:           `{"details":{"seen":true},"isError":false}`,
		hooks.Context:              `{"messages":null}`,
		hooks.MessageEnd:           `{}`,
		hooks.TurnEnd:              `{"entries":[],"continue":false}`,
		hooks.UserBash:             `{"result":{"output":"hi\n","exitCode":0,"cancelled":false,"truncated":false}}`,
		hooks.SessionBeforeCompact: `{"compaction":{"summary":"compacted by the recorder"}}`,
		hooks.SessionBeforeFork:    `{"cancel":true}`,
		hooks.SessionBeforeTree:    `{"summary":{"summary":"summed up"},"label":"moved"}`,
		hooks.VirtualModelRoute:    `{"model":{"provider":"nowhere","id":"none"},"thinkingLevel":"low"}`,
		hooks.ResourcesDiscover:    `{"skillPaths":[],"promptPaths":[]}`,
		hooks.MessageRender:        `{"lines":["drawn"]}`,
		hooks.ToolRender:           `{"call":["called"],"result":["finished"]}`,
		hooks.ProjectTrust:         `{"trusted":"no","remember":true}`,
	}}
	for name, answer := range rec.answers {
		if err := checkSchema(results[name], []byte(answer)); err != nil {
			t.Fatalf("the test's answer to %s is not in the schema: %v", name, err)
		}
	}
	rt.ext.bus.Add(rec)
	t.Cleanup(func() { rt.ext.bus.Remove(rec) }) // (before rt.Close: its queue goroutine ends)

	wait := func(name string) {
		t.Helper()
		deadline := time.After(5 * time.Second)
		for {
			rec.mu.Lock()
			n := len(rec.seen[name])
			rec.mu.Unlock()
			if n > 0 {
				return
			}
			select {
			case <-rec.fired:
			case <-deadline:
				t.Fatalf("%s was not sent", name)
			}
		}
	}

	promptAndWait(t, rt, "list")
	for _, text := range []string{"two", "three", "four", "five"} {
		promptAndWait(t, rt, text)
	}
	if _, err := rt.SetModel("faux", "faux-2", false); err != nil {
		t.Fatal(err)
	}
	if _, err := rt.SetThinkingLevel("off", false); err != nil {
		t.Fatal(err)
	}
	if err := rt.SetSessionName("payloads"); err != nil {
		t.Fatal(err)
	}
	if r := rt.UserBash(context.Background(), "echo hi", false); r == nil || r.Output != "hi\n" {
		t.Fatalf("user_bash answer not used: %+v", r)
	}
	if _, err := rt.Compact(context.Background()); err != nil {
		t.Fatal(err)
	}
	users, err := rt.ForkMessages()
	if err != nil || len(users) == 0 {
		t.Fatalf("no user message to fork at: %v %v", users, err)
	}
	if r, err := rt.Fork(users[0].EntryID); err != nil || !r.Cancelled {
		t.Fatalf("fork not cancelled by the recorder: %+v %v", r, err)
	}
	if _, err := rt.NavigateTree(users[0].EntryID, NavigateOptions{Summarize: true}); err != nil {
		t.Fatal(err)
	}
	rec.mu.Lock()
	rec.answers[hooks.SessionBeforeCompact] = `{"cancel":true}`
	rec.mu.Unlock()
	if _, err := rt.Compact(context.Background()); err == nil {
		t.Fatal("the compaction was not cancelled")
	}
	if _, err := rt.NewSession(""); err != nil {
		t.Fatal(err)
	}
	// The parts of the host the faux scenario does not reach.
	rt.uiPromptSpan("confirm", map[string]any{"title": "Sure?"}, true)
	rt.uiPromptSpan("confirm", map[string]any{"title": "Sure?"}, false)
	if h := rt.providerHooks(faux.Models()[1]); h == nil {
		t.Fatal("no provider hooks")
	} else {
		ctx := context.Background()
		h.Headers(ctx, map[string]string{"x-one": "1"})
		h.Payload(ctx, json.RawMessage(`{"model":"faux-2","messages":[]}`))
		h.Response(ctx, 200, map[string]string{"content-type": "text/event-stream"})
		h.Stream(ctx, json.RawMessage(`{"type":"ping"}`))
	}
	if err := rt.RegisterMCPServer(rec.Path(), "nowhere", json.RawMessage(`{"url":"http://127.0.0.1:9/mcp"}`)); err != nil {
		t.Fatal(err)
	}
	// resources_discover goes out at start-up and on reload, in the
	// background (the recorder may come after the start-up's).
	rt.resourcesDiscover(context.Background(), "reload")
	// project_trust goes out at start-up, before the project's
	// extensions load, for a project with something to trust (its
	// .atomic directory); the answer "no" leaves it untrusted.
	if err := os.Mkdir(filepath.Join(dir, ".atomic"), 0o700); err != nil {
		t.Fatal(err)
	}
	if rt.askProjectTrust(context.Background()) || rt.ProjectTrusted() {
		t.Fatal("project_trust's \"no\" trusted the project")
	}
	// A virtual model's route (the answer names a model the catalogue
	// does not have: the request ends there, after the event).
	vm := llm.Model{Provider: "router", ID: "auto", API: llm.APIVirtual}
	if err := rt.routeVirtual(context.Background(), &llm.Request{Model: vm, Messages: []llm.Message{llm.UserText("route me")}}, nil); err == nil ||
		!strings.Contains(err.Error(), "catalogue does not have") {
		t.Fatalf("route: %v", err)
	}
	// A custom message drawn by the terminal's renderer.
	if lines, ok := rt.RenderMessage(context.Background(), "box", map[string]any{"role": "custom", "customType": "box", "content": "hi", "display": true}, false, 80); !ok ||
		len(lines) != 1 || lines[0] != "drawn" {
		t.Fatalf("render: %v %v", lines, ok)
	}
	// A tool drawn by its renderCall and renderResult.
	if r, ok := rt.RenderTool(context.Background(), ToolRenderInput{ToolName: "weather", ToolCallID: "c1", Args: map[string]any{"city": "Paris"},
		Result: map[string]any{"content": []any{map[string]any{"type": "text", "text": "sunny"}}, "details": map[string]any{"temp": 21}}, Width: 80}); !ok ||
		len(r.Call) != 1 || len(r.Result) != 1 {
		t.Fatalf("tool render: %+v %v", r, ok)
	}
	for _, name := range []string{hooks.ThinkingLevelSelect, hooks.ModelSelect, hooks.SessionInfoChanged, hooks.SessionTree,
		hooks.SessionStart, hooks.AgentSettled, hooks.SessionCompactFailed, hooks.UIPromptEnd, hooks.MCPServersChange} {
		wait(name)
	}
	rt.ext.bus.Flush(3 * time.Second)

	rec.mu.Lock()
	defer rec.mu.Unlock()
	var missing []string
	for name := range hooks.Kinds {
		list := rec.seen[name]
		if len(list) == 0 {
			missing = append(missing, name)
			continue
		}
		for _, raw := range list {
			var head struct {
				Type string `json:"type"`
			}
			if err := json.Unmarshal(raw, &head); err != nil || head.Type != name {
				t.Errorf("%s: the payload's type is %q: %s", name, head.Type, raw)
			}
			if err := checkSchema(payloads[name], raw); err != nil {
				t.Errorf("%s: the payload is not its schema message %s: %v\n%s", name, payloads[name].Name(), err, raw)
			}
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("the scenario did not produce %v (every event's payload is checked here)", missing)
	}
}
