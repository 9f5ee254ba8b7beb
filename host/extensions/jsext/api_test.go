package jsext

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/atomic-go/atomic/host/llm"
)

func TestContextUIAndSession(t *testing.T) {
	h := newHarness(t)
	h.fake.Confirm = func(title, msg string) bool { return strings.Contains(msg, "ok") }
	h.fake.Select = func(title string, opts []string) string { return opts[1] }
	s := h.mustLoad("ui.ts", `export default function (pi: any) {
  pi.on("tool_call", async (event: any, ctx: any) => {
    if (!ctx.hasUI) return { block: true, reason: "no ui" };
    const ok = await ctx.ui.confirm("Run?", event.input.command);
    const choice = await ctx.ui.select("Pick", ["a", "b", "c"]);
    const typed = await ctx.ui.input("Name");
    ctx.ui.notify("checked " + event.input.command, "warning");
    ctx.ui.setStatus("guard", "on");
    ctx.ui.setWidget("w", ["line 1"]);
    if (!ok) return { block: true, reason: "denied/" + choice + "/" + typed };
  });
  pi.on("session_start", (_e: any, ctx: any) => {
    pi.setSessionName("named");
    const id = pi.appendEntry("todo-state", { items: ["x"] });
    pi.setLabel(id, "first");
    const entries = ctx.sessionManager.getEntries();
    pi.sendMessage({ customType: "note", content: "entries=" + entries.length + " name=" + pi.getSessionName(), display: true });
    pi.sendMessage({ content: "untyped", display: true });
    ctx.ui.setHiddenThinkingLabel("x");
    ctx.ui.setWorkingIndicator({});
    pi.setActiveTools(["read"]);
    pi.setThinkingLevel("high");
    return undefined;
  });
}`)
	res, err := handle(t, s, "tool_call", map[string]any{"toolName": "bash", "input": map[string]any{"command": "rm -rf /"}}, 5*time.Second)
	if err != nil || res != `{"block":true,"reason":"denied/b/undefined"}` {
		t.Fatalf("%s %v", res, err)
	}
	res, err = handle(t, s, "tool_call", map[string]any{"toolName": "bash", "input": map[string]any{"command": "ok"}}, 5*time.Second)
	if err != nil || res != "" {
		t.Fatalf("%s %v", res, err)
	}
	for _, m := range []string{"confirm", "select", "input", "notify", "setStatus", "setWidget"} {
		if len(h.fake.Requests(m)) != 2 {
			t.Errorf("%s requests: %d", m, len(h.fake.Requests(m)))
		}
	}
	if p := h.fake.Requests("notify")[0].Params; p["message"] != "checked rm -rf /" || p["notifyType"] != "warning" {
		t.Errorf("notify params %v", p)
	}
	if _, err := handle(t, s, "session_start", map[string]any{"reason": "startup"}, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	h.waitFake(func() bool { return len(h.fake.Messages) > 1 })
	h.fake.Locked(func() {
		if h.fake.Name != "named" || len(h.fake.Entries) != 1 || h.fake.Entries[0].CustomType != "todo-state" || h.fake.Labels[h.fake.Entries[0].ID] != "first" {
			t.Fatalf("host: name=%q entries=%+v labels=%v", h.fake.Name, h.fake.Entries, h.fake.Labels)
		}
		// A message without a customType is sent as pi sends it.
		if len(h.fake.Messages) != 2 || h.fake.Messages[0].CustomType != "note" || h.fake.Messages[1].CustomType != "" {
			t.Fatalf("messages %+v", h.fake.Messages)
		}
		if c, _ := json.Marshal(h.fake.Messages[0].Content); string(c) != `"entries=1 name=named"` {
			t.Fatalf("content %s", c)
		}
		if strings.Join(h.fake.ActiveTools, ",") != "read" || h.fake.Thinking != "high" {
			t.Fatalf("tools %v thinking %s", h.fake.ActiveTools, h.fake.Thinking)
		}
	})
}

func TestCommandsToolsAndFlags(t *testing.T) {
	h := newHarness(t)
	h.rt.FlagValues = map[string]string{"plan": "true", "who": "you"}
	s := h.mustLoad("todo.ts", `import { Type } from "@sinclair/typebox";
export default function (pi: any) {
  const items: string[] = [];
  pi.registerFlag("plan", { description: "plan mode", type: "boolean", default: false });
  pi.registerFlag("who", { type: "string", default: "me" });
  pi.registerFlag("other", { type: "string", default: "dflt" });
  pi.registerCommand("todo", {
    description: "Manage todos",
    getArgumentCompletions: (prefix: string) => ["add", "list", "clear"].filter((x) => x.startsWith(prefix)).map((value) => ({ value, label: value })),
    handler: async (args: string, ctx: any) => {
      items.push(args);
      pi.appendEntry("todo", { items, plan: pi.getFlag("plan"), who: pi.getFlag("who"), other: pi.getFlag("other"), unknown: pi.getFlag("nope") ?? null });
      await ctx.waitForIdle();
    },
  });
  pi.registerCommand("broken", { handler: () => { throw new Error("cmd failed"); } });
  pi.registerTool({
    name: "todo_list", label: "Todos", description: "List todos",
    parameters: Type.Object({ filter: Type.Optional(Type.String()) }),
    async execute(toolCallId: string, params: any, signal: any, onUpdate: any, ctx: any) {
      onUpdate({ content: [{ type: "text", text: "working" }] });
      if (params.filter === "fail") throw new Error("no such filter");
      return { content: [{ type: "text", text: items.join(",") + "|" + toolCallId }], details: { count: items.length, aborted: signal.aborted } };
    },
  });
}`)
	ctx := context.Background()
	cmds := s.Commands()
	if len(cmds) != 2 || cmds[0].Name != "todo" || !cmds[0].HasCompletions || cmds[0].Description != "Manage todos" || cmds[1].HasCompletions {
		t.Fatalf("commands %+v", cmds)
	}
	items, none, err := s.Complete(ctx, "todo", "l")
	if err != nil || none || len(items) != 1 || items[0].Value != "list" {
		t.Fatalf("completions %+v %v %v", items, none, err)
	}
	if _, none, _ := s.Complete(ctx, "broken", ""); !none {
		t.Fatal("broken has completions")
	}
	if err := s.RunCommand(ctx, "todo", "buy milk"); err != nil {
		t.Fatal(err)
	}
	if err := s.RunCommand(ctx, "broken", ""); err == nil || !strings.Contains(err.Error(), "cmd failed (todo.ts:") {
		t.Fatalf("broken: %v", err)
	}
	var data []byte
	h.fake.Locked(func() {
		if len(h.fake.Entries) != 1 {
			t.Fatalf("entries %+v", h.fake.Entries)
		}
		data, _ = json.Marshal(h.fake.Entries[0].Data)
	})
	if string(data) != `{"items":["buy milk"],"plan":true,"who":"you","other":"dflt","unknown":null}` {
		t.Fatalf("data %s", data)
	}
	var updates []llm.ToolResult
	res, err := s.ExecuteTool(ctx, "todo_list", "call-1", map[string]any{}, func(r llm.ToolResult) { updates = append(updates, r) })
	if err != nil || res.ResultText() != "buy milk|call-1" || len(updates) != 1 || updates[0].ResultText() != "working" {
		t.Fatalf("res %+v updates %+v err %v", res, updates, err)
	}
	if d, _ := json.Marshal(res.Details); string(d) != `{"aborted":false,"count":1}` {
		t.Fatalf("details %s", d)
	}
	_, err = s.ExecuteTool(ctx, "todo_list", "call-2", map[string]any{"filter": "fail"}, nil)
	if err == nil || err.Error() != "no such filter" {
		t.Fatalf("err %v", err)
	}
	flags := s.Flags()
	if len(flags) != 3 || flags[0].Type != "boolean" || flags[1].Default != "me" {
		t.Fatalf("flags %+v", flags)
	}
}

func TestToolSignalAbortsOnCancel(t *testing.T) {
	h := newHarness(t)
	s := h.mustLoad("slow.ts", `export default function (pi: any) {
  pi.registerTool({
    name: "slow", description: "waits", parameters: { type: "object", properties: {} },
    execute: (_id: string, _p: any, signal: any) => new Promise((resolve, reject) => {
      signal.addEventListener("abort", () => { pi.appendEntry("aborted", { reason: String(signal.reason) }); reject(new Error("stopped")); });
      pi.appendEntry("started", {});
    }),
  });
}`)
	ctx, cancel := context.WithCancel(context.Background())
	// Cancel only once the tool runs: a context cancelled before the call
	// reaches the script never starts it, and no listener would hear it.
	go func() {
		h.waitFake(func() bool { return len(h.fake.Entries) > 0 })
		cancel()
	}()
	_, err := s.ExecuteTool(ctx, "slow", "c", nil, nil)
	if err == nil {
		t.Fatal("no error")
	}
	h.waitFake(func() bool { return len(h.fake.Entries) > 1 })
	h.fake.Locked(func() {
		if len(h.fake.Entries) != 2 || h.fake.Entries[0].CustomType != "started" || h.fake.Entries[1].CustomType != "aborted" {
			t.Fatalf("entries %+v", h.fake.Entries)
		}
	})
}

func TestEventsAreSharedBetweenScripts(t *testing.T) {
	h := newHarness(t)
	h.mustLoad("listener.ts", `export default function (pi: any) {
  pi.events.on("todo:changed", (data: any) => { pi.appendEntry("heard", data); });
}`)
	talker := h.mustLoad("talker.ts", `export default function (pi: any) {
  let local = 0;
  pi.events.on("todo:changed", () => { local++; });
  pi.on("input", (e: any) => { pi.events.emit("todo:changed", { text: e.text }); return { action: "transform", text: "local=" + local }; });
}`)
	res, err := handle(t, talker, "input", map[string]any{"text": "hi"}, 5*time.Second)
	if err != nil || res != `{"action":"transform","text":"local=1"}` {
		t.Fatalf("%s %v", res, err)
	}
	h.waitFake(func() bool { return len(h.fake.Entries) > 0 })
	h.fake.Locked(func() {
		if len(h.fake.Entries) != 1 || h.fake.Entries[0].CustomType != "heard" {
			t.Fatalf("entries %+v", h.fake.Entries)
		}
	})
}

func TestConsoleGoesToTheLog(t *testing.T) {
	h := newHarness(t)
	s := h.mustLoad("chatty.js", `export default function (pi) {
  console.log("hello from", "script", { a: 1 });
  console.error("bad thing");
  process.stdout.write("raw stdout\n");
  pi.on("input", async () => { await new Promise((r) => setTimeout(r, 5)); console.warn("in handler"); });
}`)
	if _, err := handle(t, s, "input", map[string]any{"text": "x"}, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	logs := h.logs.String()
	for _, want := range []string{"hello from script", "level=ERROR msg=\"bad thing\"", "raw stdout", "level=WARN msg=\"in handler\""} {
		if !strings.Contains(logs, want) {
			t.Errorf("log lacks %q:\n%s", want, logs)
		}
	}
}

func TestTimersAndUnhandledErrorsAreLogged(t *testing.T) {
	h := newHarness(t)
	h.mustLoad("timers.js", `export default function (pi) {
  const t = setTimeout(() => { throw new Error("cleared timer ran"); }, 10);
  clearTimeout(t);
  setTimeout(() => { throw new Error("timer boom"); }, 1);
  Promise.reject(new Error("nobody catches"));
  let n = 0;
  const i = setInterval(() => { if (++n === 3) { clearInterval(i); console.log("interval done"); } }, 1);
}`)
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(h.logs.String(), "interval done") && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	time.Sleep(30 * time.Millisecond)
	logs := h.logs.String()
	for _, want := range []string{"timer boom (timers.js:4:", "nobody catches (timers.js:5:", "interval done"} {
		if !strings.Contains(logs, want) {
			t.Errorf("log lacks %q:\n%s", want, logs)
		}
	}
	if strings.Contains(logs, "cleared timer ran") {
		t.Error("a cleared timer ran")
	}
}

// setHeader and setFooter send the lines of the factory's component,
// rendered when set and again when it asks; a bad factory is a warning.
func TestHeaderFooterAndWorkingMessage(t *testing.T) {
	h := newHarness(t)
	s := h.mustLoad("chrome.ts", `export default function (pi: any) {
  pi.on("session_start", (_e: any, ctx: any) => {
    let n = 0;
    ctx.ui.setWorkingMessage("busy");
    ctx.ui.setWorkingMessage();
    ctx.ui.setHeader((tui: any) => {
      setTimeout(() => { n++; tui.requestRender(); tui.requestRender(); }, 1);
      return { render: (w: number) => ["head " + w + " " + n], invalidate() {} };
    });
    ctx.ui.setFooter("not a factory");
    ctx.ui.setFooter(() => { throw new Error("boom"); });
    ctx.ui.setFooter(() => ({}));
    ctx.ui.setFooter(undefined);
  });
}`)
	if _, err := handle(t, s, "session_start", map[string]any{"reason": "startup"}, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for len(h.fake.Requests("setHeader")) < 2 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	var heads []string
	for _, r := range h.fake.Requests("setHeader") {
		b, _ := json.Marshal(r.Params["lines"])
		heads = append(heads, string(b))
	}
	if strings.Join(heads, " ") != `["head 80 0"] ["head 80 1"]` {
		t.Errorf("setHeader sent %v (want the first render, then one for two requestRender calls)", heads)
	}
	wm := h.fake.Requests("setWorkingMessage")
	if len(wm) != 2 || wm[0].Params["message"] != "busy" || wm[1].Params["message"] != nil {
		t.Errorf("setWorkingMessage requests %v", wm)
	}
	if f := h.fake.Requests("setFooter"); len(f) != 1 || f[0].Params["lines"] != nil {
		t.Errorf("setFooter requests %v (want one, the clearing)", f)
	}
	logs := h.logs.String()
	for _, want := range []string{"setFooter: expected a component factory", "setFooter: the factory failed: boom", "setFooter: the factory must return a component"} {
		if !strings.Contains(logs, want) {
			t.Errorf("log lacks %q:\n%s", want, logs)
		}
	}
}
