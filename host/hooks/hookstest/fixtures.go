// Package hookstest is the one table of composition fixtures every
// extension runtime is tested against: the handlers of each fixture are
// built by the runtime under test (script, Go plugin, Node…), put on a
// hooks.Bus, and the composed outcome must be the fixture's. The bus is
// the only composer, so every runtime must only run handlers and return
// each one's result or error.
package hookstest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/atomic-go/atomic/host/hooks"
)

// Handler is one handler's behaviour, described so that any runtime can
// build it.
type Handler struct {
	// SeesField/SeesValue: the handler fails ("saw …") unless the event's
	// top-level field SeesField equals the JSON SeesValue (checks that a
	// handler sees what the previous one changed).
	SeesField string `json:"seesField,omitempty"`
	SeesValue string `json:"seesValue,omitempty"`
	// Throw makes the handler fail with this message.
	Throw string `json:"throw,omitempty"`
	// Return is the handler's result as JSON ("" for none).
	Return string `json:"return,omitempty"`
}

// Fixture is one composition case.
type Fixture struct {
	Name     string
	Event    string
	Payload  string // the event without "type", as JSON
	Handlers []Handler
	// Want is the composed outcome (see Outcome) as JSON.
	Want string
	// WantErrors is how many extension_error reports the dispatch makes.
	WantErrors int
}

// Fixtures are the composition cases.
var Fixtures = []Fixture{
	{Name: "tool_call input chains", Event: hooks.ToolCall, Payload: `{"toolCallId":"c1","toolName":"bash","input":{"path":"/etc"}}`,
		Handlers: []Handler{{Return: `{"input":{"path":"/safe"}}`}, {SeesField: "input", SeesValue: `{"path":"/safe"}`}},
		Want:     `{"block":false,"input":{"path":"/safe"},"modified":true}`},
	{Name: "tool_call block stops", Event: hooks.ToolCall, Payload: `{"toolCallId":"c1","toolName":"bash","input":{}}`,
		Handlers: []Handler{{Return: `{"block":true,"reason":"no"}`}, {Throw: "never called"}},
		Want:     `{"block":true,"reason":"no","input":{},"modified":false}`},
	{Name: "tool_call failure blocks", Event: hooks.ToolCall, Payload: `{"toolCallId":"c1","toolName":"bash","input":{}}`,
		Handlers: []Handler{{Throw: "boom"}, {Return: `{"block":true,"reason":"second"}`}},
		Want:     `{"block":true,"reason":"Extension failed, blocking execution: boom","input":{},"modified":false}`, WantErrors: 1},
	{Name: "tool_call modify then block", Event: hooks.ToolCall, Payload: `{"toolCallId":"c1","toolName":"bash","input":{"a":1}}`,
		Handlers: []Handler{{Return: `{"input":{"a":2}}`}, {SeesField: "input", SeesValue: `{"a":2}`, Return: `{"block":true,"reason":"r"}`}},
		Want:     `{"block":true,"reason":"r","input":{"a":2},"modified":true}`},
	{Name: "tool_result patches chain past a failure", Event: hooks.ToolResult, Payload: `{"toolCallId":"c1","toolName":"x","input":{},"content":[],"isError":false}`,
		Handlers: []Handler{{Return: `{"content":[{"type":"text","text":"one"}]}`}, {Throw: "middle fails"},
			{SeesField: "content", SeesValue: `[{"type":"text","text":"one"}]`, Return: `{"details":{"saw":"one"},"isError":true}`}},
		Want: `{"changed":true,"content":[{"type":"text","text":"one"}],"details":{"saw":"one"},"isError":true}`, WantErrors: 1},
	{Name: "input transform then handled", Event: hooks.Input, Payload: `{"text":"a","source":"rpc"}`,
		Handlers: []Handler{{Return: `{"action":"transform","text":"b"}`}, {SeesField: "text", SeesValue: `"b"`, Return: `{"action":"handled"}`}, {Throw: "never called"}},
		Want:     `{"action":"handled","text":"b"}`},
	{Name: "input transform survives a failure", Event: hooks.Input, Payload: `{"text":"a","source":"rpc"}`,
		Handlers: []Handler{{Throw: "first fails"}, {Return: `{"action":"transform","text":"x"}`}, {Return: `{"action":"continue"}`}},
		Want:     `{"action":"transform","text":"x"}`, WantErrors: 1},
	{Name: "before_agent_start chains the prompt and collects messages", Event: hooks.BeforeAgentStart, Payload: `{"prompt":"p","systemPrompt":"S0"}`,
		Handlers: []Handler{{Return: `{"systemPrompt":"S1","message":{"customType":"m1","content":"one","display":true}}`},
			{Throw: "fails"},
			{SeesField: "systemPrompt", SeesValue: `"S1"`, Return: `{"message":{"customType":"m2","content":"two","display":false}}`}},
		Want: `{"messages":["m1","m2"],"systemPrompt":"S1"}`, WantErrors: 1},
	{Name: "context messages chain", Event: hooks.Context, Payload: `{"messages":[{"role":"user","content":"hi","timestamp":1}]}`,
		Handlers: []Handler{{Return: `{"messages":[]}`}, {SeesField: "messages", SeesValue: `[]`}},
		Want:     `{"changed":true,"messages":0}`},
	{Name: "before: a failing first handler keeps the second's cancel", Event: hooks.SessionBeforeFork, Payload: `{"entryId":"e1","position":"before"}`,
		Handlers: []Handler{{Throw: "first fails"}, {Return: `{"cancel":true}`}},
		Want:     `{"cancel":true,"raw":{"cancel":true}}`, WantErrors: 1},
	{Name: "before: cancel stops", Event: hooks.SessionBeforeFork, Payload: `{"entryId":"e1","position":"before"}`,
		Handlers: []Handler{{Return: `{"cancel":true}`}, {Throw: "never called"}},
		Want:     `{"cancel":true,"raw":{"cancel":true}}`},
	{Name: "before: the last truthy result wins", Event: hooks.SessionBeforeFork, Payload: `{"entryId":"e1","position":"before"}`,
		Handlers: []Handler{{Return: `{"skipConversationRestore":true}`}, {Return: `{"cancel":false,"skipConversationRestore":false}`}, {}},
		Want:     `{"cancel":false,"raw":{"cancel":false,"skipConversationRestore":false}}`},
	{Name: "user_bash: the first result wins past a failure", Event: hooks.UserBash, Payload: `{"command":"ls","excludeFromContext":false,"cwd":"/"}`,
		Handlers: []Handler{{Throw: "fails"}, {}, {Return: `{"result":{"output":"a","cancelled":false,"truncated":false}}`}, {Return: `{"result":{"output":"b","cancelled":false,"truncated":false}}`}},
		Want:     `{"result":{"output":"a","cancelled":false,"truncated":false}}`, WantErrors: 1},
}

// Builder builds the subscribers (extensions) for groups of handlers of
// one event: groups[i] are the handlers, in registration order, of
// extension i (load order).
type Builder func(t *testing.T, event string, groups [][]Handler) []hooks.Subscriber

// Run runs every fixture with the runtime's builder, twice: all handlers
// in one extension, and each handler in an extension of its own.
func Run(t *testing.T, build Builder) {
	for _, f := range Fixtures {
		t.Run(f.Name, func(t *testing.T) {
			layouts := map[string][][]Handler{"one extension": {f.Handlers}}
			var each [][]Handler
			for _, h := range f.Handlers {
				each = append(each, []Handler{h})
			}
			layouts["an extension each"] = each
			for name, groups := range layouts {
				t.Run(name, func(t *testing.T) {
					subs := build(t, f.Event, groups)
					got, errs := Dispatch(f, subs)
					if !sameJSON(got, f.Want) || len(errs) != f.WantErrors {
						t.Fatalf("outcome %s with %d errors %v\nwant    %s with %d errors", got, len(errs), errs, f.Want, f.WantErrors)
					}
				})
			}
		})
	}
}

// Dispatch puts the subscribers on a bus, dispatches the fixture's event
// and returns the outcome as JSON and the reported errors.
func Dispatch(f Fixture, subs []hooks.Subscriber) (string, []hooks.ExtensionError) {
	bus := hooks.New()
	var mu sync.Mutex
	var errs []hooks.ExtensionError
	bus.OnError = func(e hooks.ExtensionError) {
		mu.Lock()
		errs = append(errs, e)
		mu.Unlock()
	}
	bus.Add(subs...)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	out := Outcome(ctx, bus, f.Event, json.RawMessage(f.Payload))
	mu.Lock()
	defer mu.Unlock()
	return out, append([]hooks.ExtensionError(nil), errs...)
}

// Outcome dispatches one event through the bus's composition for it and
// describes the composed result as JSON.
func Outcome(ctx context.Context, bus *hooks.Bus, event string, payload json.RawMessage) string {
	var v any
	switch event {
	case hooks.ToolCall:
		var ev hooks.ToolCallEvent
		_ = json.Unmarshal(payload, &ev)
		d := bus.ToolCall(ctx, ev)
		m := map[string]any{"block": d.Block, "input": d.Input, "modified": d.Modified}
		if d.Reason != "" {
			m["reason"] = withoutPosition(d.Reason)
		}
		v = m
	case hooks.ToolResult:
		var ev hooks.ToolResultEvent
		_ = json.Unmarshal(payload, &ev)
		r, changed := bus.ToolResult(ctx, ev)
		v = map[string]any{"changed": changed, "content": r.Content, "details": r.Details, "isError": r.IsError}
	case hooks.Input:
		var ev hooks.InputEvent
		_ = json.Unmarshal(payload, &ev)
		r := bus.Input(ctx, ev)
		v = map[string]any{"action": r.Action, "text": r.Text}
	case hooks.BeforeAgentStart:
		var ev hooks.BeforeAgentStartEvent
		_ = json.Unmarshal(payload, &ev)
		r := bus.BeforeAgentStart(ctx, ev, nil)
		types := []string{}
		for _, m := range r.Messages {
			types = append(types, m.CustomType)
		}
		v = map[string]any{"systemPrompt": r.SystemPrompt, "messages": types}
	case hooks.Context:
		var ev hooks.ContextEvent
		_ = json.Unmarshal(payload, &ev)
		msgs, changed := bus.Context(ctx, ev.Messages)
		v = map[string]any{"changed": changed, "messages": len(msgs)}
	case hooks.UserBash:
		var ev hooks.UserBashEvent
		_ = json.Unmarshal(payload, &ev)
		v = map[string]any{"result": bus.UserBash(ctx, ev)}
	default:
		r := bus.Before(ctx, event, payload)
		v = map[string]any{"cancel": r.Cancel, "raw": r.Raw}
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("unencodable outcome: %v", err)
	}
	return string(b)
}

// withoutPosition drops the source position a runtime appends to an
// error message ("boom (ext0.ts:4:11)" → "boom").
func withoutPosition(s string) string {
	if i := strings.LastIndex(s, " ("); i >= 0 && strings.HasSuffix(s, ")") && strings.Contains(s[i:], ":") {
		return s[:i]
	}
	return s
}

// Check runs a handler's check: nil, or the error the handler fails with.
func (h Handler) Check(event json.RawMessage) error {
	if h.SeesField == "" {
		return nil
	}
	var m map[string]json.RawMessage
	_ = json.Unmarshal(event, &m)
	if !sameJSON(string(m[h.SeesField]), h.SeesValue) {
		return fmt.Errorf("saw %s = %s", h.SeesField, m[h.SeesField])
	}
	return nil
}

// Canonical re-encodes JSON with sorted keys ("" stays "").
func Canonical(s string) string {
	if s == "" {
		return ""
	}
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		return s
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func sameJSON(a, b string) bool { return bytes.Equal([]byte(Canonical(a)), []byte(Canonical(b))) }

// Go builds the fixtures' handlers as plain Go subscribers with
// hooks.HandlerSet (the reference the runtimes are compared with).
func Go(t *testing.T, event string, groups [][]Handler) []hooks.Subscriber {
	var out []hooks.Subscriber
	for i, g := range groups {
		out = append(out, &goSub{path: fmt.Sprintf("ext%d", i), event: event, hs: g})
	}
	return out
}

type goSub struct {
	path, event string
	hs          []Handler
}

func (s *goSub) Path() string              { return s.path }
func (s *goSub) Events() []string          { return []string{s.event} }
func (s *goSub) Handlers(event string) int { return len(s.hs) }
func (s *goSub) Handle(ctx context.Context, ev *hooks.Event) (json.RawMessage, error) {
	return nil, fmt.Errorf("the bus must call handlers one by one")
}
func (s *goSub) HandleOne(ctx context.Context, ev *hooks.Event, i int) (json.RawMessage, error) {
	raw, err := ev.JSON()
	if err != nil {
		return nil, err
	}
	return s.hs[i].Run(raw)
}

// Run is the handler's behaviour for runtimes written in Go: check, throw
// or return.
func (h Handler) Run(event json.RawMessage) (json.RawMessage, error) {
	if err := h.Check(event); err != nil {
		return nil, err
	}
	if h.Throw != "" {
		return nil, fmt.Errorf("%s", h.Throw)
	}
	if h.Return == "" {
		return nil, nil
	}
	return json.RawMessage(h.Return), nil
}

// Script writes the handlers of a fixture as a pi-style TypeScript
// extension (for the script runtimes: goja and Node).
func Script(event string, hs []Handler) string {
	var b strings.Builder
	b.WriteString(`const canon = (v: any): any => Array.isArray(v) ? v.map(canon) : v && typeof v === "object" ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, canon(v[k])])) : v;
export default function (pi: any) {
`)
	for _, h := range hs {
		fmt.Fprintf(&b, "  pi.on(%q, async (e: any) => {\n", event)
		if h.SeesField != "" {
			fmt.Fprintf(&b, "    if (JSON.stringify(canon(e[%q])) !== %q) throw new Error(\"saw \" + JSON.stringify(e[%q]));\n", h.SeesField, Canonical(h.SeesValue), h.SeesField)
		}
		if h.Throw != "" {
			fmt.Fprintf(&b, "    throw new Error(%q);\n", h.Throw)
		}
		if h.Return != "" {
			fmt.Fprintf(&b, "    return %s;\n", h.Return)
		}
		b.WriteString("  });\n")
	}
	b.WriteString("}\n")
	return b.String()
}
