package jsext

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/atomic-go/atomic/host/extensions"
	"github.com/atomic-go/atomic/host/extensions/grpcext"
	"github.com/atomic-go/atomic/host/hooks"
	"github.com/atomic-go/atomic/host/llm"
	"github.com/atomic-go/atomic/internal/leaktest"
)

// TestMain lets the test binary serve isolated scripts, as the atomic
// binary does with its hidden command.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == ServeCommand {
		os.Exit(ServeChild(os.Args[2:]))
	}
	// The tests fail if a goroutine (an event loop, a timer, a plugin
	// connection) outlives them.
	leaktest.VerifyTestMain(m)
}

func (h *harness) loadIsolated(name, src string, limit int64) (extensions.Extension, error) {
	h.t.Helper()
	p := h.write(name, src)
	h.rt.Process = &grpcext.Runtime{Log: h.rt.Log, HostVersion: "test"}
	h.rt.MemoryLimit = limit
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	ext, err := h.rt.Load(ctx, extensions.Spec{Path: p, Kind: extensions.KindScript, Dir: h.dir,
		Options: extensions.Options{Isolation: "process"}}, h.host)
	if err != nil {
		return nil, err
	}
	h.t.Cleanup(func() { ext.Close() })
	return ext, nil
}

func TestIsolatedScript(t *testing.T) {
	h := newHarness(t)
	h.fake.Confirm = func(title, msg string) bool { return false }
	ext, err := h.loadIsolated("iso.ts", `import { Type } from "@sinclair/typebox";
export default function (pi: any) {
  pi.on("tool_call", async (e: any, ctx: any) => {
    console.log("child console");
    const ok = await ctx.ui.confirm("Allow?", e.input.command);
    return ok ? undefined : { block: true, reason: "denied in " + process.pid };
  });
  pi.registerCommand("note", { description: "n", handler: async (args: string) => { pi.appendEntry("note", { args }); } });
  pi.registerTool({ name: "echo", description: "echo", parameters: Type.Object({ text: Type.String() }),
    async execute(_id: string, p: any, _s: any, onUpdate: any) { onUpdate({ content: [{ type: "text", text: "partial" }] }); return { content: [{ type: "text", text: p.text }] }; } });
}`, 0)
	if err != nil {
		t.Fatalf("load: %v\n%s", err, h.logs)
	}
	if _, ok := ext.(*isolated); !ok {
		t.Fatalf("loaded as %T", ext)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	raw, err := ext.Handle(ctx, hooksEvent("tool_call", map[string]any{"toolName": "bash", "input": map[string]any{"command": "ls"}}))
	if err != nil || !strings.Contains(string(raw), `"block":true`) || strings.Contains(string(raw), "denied in "+itoa(os.Getpid())) {
		t.Fatalf("%s %v", raw, err)
	}
	if err := ext.RunCommand(ctx, "note", "hello"); err != nil {
		t.Fatal(err)
	}
	var updates int
	res, err := ext.ExecuteTool(ctx, "echo", "c1", map[string]any{"text": "back"}, func(llm.ToolResult) { updates++ })
	if err != nil || res.ResultText() != "back" || updates != 1 {
		t.Fatalf("%+v %d %v", res, updates, err)
	}
	h.waitFake(func() bool { return len(h.fake.Entries) > 0 })
	h.fake.Locked(func() {
		if len(h.fake.Entries) != 1 || h.fake.Entries[0].CustomType != "note" {
			t.Fatalf("entries %+v", h.fake.Entries)
		}
	})
	if len(h.fake.Requests("confirm")) != 1 {
		t.Fatal("no confirm dialog")
	}
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(h.logs.String(), "child console") && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if !strings.Contains(h.logs.String(), "child console") {
		t.Fatalf("console output not in the log:\n%s", h.logs)
	}
}

func TestIsolatedLoadErrorNamesTheLine(t *testing.T) {
	h := newHarness(t)
	_, err := h.loadIsolated("bad.ts", "export default function (pi: any) {\n  pi.on('input', () => {\n    throw new Error('x')\n  }\n", 0)
	if err == nil || !strings.Contains(err.Error(), "bad.ts:5:") {
		t.Fatalf("err = %v", err)
	}
	_, err = h.loadIsolated("throws.ts", "export default function (pi: any) {\n  throw new Error('factory says no');\n}\n", 0)
	if err == nil || !strings.Contains(err.Error(), "factory says no (throws.ts:2:") {
		t.Fatalf("err = %v", err)
	}
}

func TestIsolatedScriptThatExhaustsMemoryIsKilled(t *testing.T) {
	h := newHarness(t)
	ext, err := h.loadIsolated("hog.js", `export default function (pi) {
  pi.on("input", (e) => {
    if (e.text !== "hog") return { action: "transform", text: "fine" };
    const keep = [];
    for (;;) keep.push(new Array(1000000).fill(keep.length));
  });
}`, 64<<20)
	if err != nil {
		t.Fatalf("load: %v\n%s", err, h.logs)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	start := time.Now()
	_, err = ext.Handle(ctx, hooksEvent("input", map[string]any{"text": "hog"}))
	if err == nil || !strings.Contains(err.Error(), "memory limit of 64 MiB") {
		t.Fatalf("err = %v (after %v)", err, time.Since(start))
	}
	// The plugin runtime restarts the child on its next use.
	deadline := time.Now().Add(10 * time.Second)
	for {
		raw, err := ext.Handle(ctx, hooksEvent("input", map[string]any{"text": "ok"}))
		if err == nil {
			if string(raw) != `{"action":"transform","text":"fine"}` {
				t.Fatalf("after restart: %s", raw)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("not restarted: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// timeoutSub gives a subscriber a fixed deadline on the bus.
type timeoutSub struct {
	extensions.Extension
	d time.Duration
}

func (t timeoutSub) Timeout(string) time.Duration { return t.d }

func TestDialogTimeDoesNotCountAgainstTheDeadline(t *testing.T) {
	const src = `export default function (pi: any) {
  pi.on("tool_call", async (e: any, ctx: any) => {
    const ok = await ctx.ui.confirm("Slow user?", "x");
    return ok ? undefined : { block: true, reason: "declined" };
  });
}`
	for _, iso := range []string{"", "process"} {
		t.Run("isolation="+iso, func(t *testing.T) {
			h := newHarness(t)
			h.fake.Confirm = func(string, string) bool {
				time.Sleep(600 * time.Millisecond)
				return true
			}
			var ext extensions.Extension
			var err error
			if iso == "" {
				ext, err = h.load("slow.ts", src)
			} else {
				ext, err = h.loadIsolated("slow.ts", src, 0)
			}
			if err != nil {
				t.Fatal(err)
			}
			bus := hooks.New()
			var reported []hooks.ExtensionError
			bus.OnError = func(e hooks.ExtensionError) { reported = append(reported, e) }
			bus.Add(timeoutSub{ext, 300 * time.Millisecond})
			d := bus.ToolCall(context.Background(), hooks.ToolCallEvent{ToolName: "bash", Input: map[string]any{}})
			if d.Block || len(reported) != 0 {
				t.Fatalf("decision %+v, errors %+v", d, reported)
			}
		})
	}
}

// What an isolated script registers after loading (a tool and a command
// from session_start, as pi's dynamic-tools example does) reaches the
// agent, and the agent's calls reach them (found by test/parity: they
// stayed in the child).
func TestIsolatedScriptRegistersAfterLoading(t *testing.T) {
	h := newHarness(t)
	ext, err := h.loadIsolated("late.ts", `export default function (pi: any) {
  pi.on("session_start", () => {
    pi.registerTool({ name: "late_echo", description: "echo", parameters: { type: "object", properties: { text: { type: "string" } } },
      async execute(_id: string, p: any) { return { content: [{ type: "text", text: "late " + p.text }] }; } });
    pi.registerCommand("late", { description: "late command", handler: async () => { pi.appendEntry("late", {}); } });
  });
}`, 0)
	if err != nil {
		t.Fatalf("load: %v\n%s", err, h.logs)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if len(ext.Tools()) != 0 || len(ext.Commands()) != 0 {
		t.Fatalf("registered before session_start: %v %v", ext.Tools(), ext.Commands())
	}
	if _, err := ext.Handle(ctx, hooksEvent("session_start", map[string]any{"reason": "startup"})); err != nil {
		t.Fatal(err)
	}
	if tools, cmds := ext.Tools(), ext.Commands(); len(tools) != 1 || tools[0].Name != "late_echo" || len(cmds) != 1 || cmds[0].Name != "late" {
		t.Fatalf("the agent sees tools %v, commands %v", tools, cmds)
	}
	res, err := ext.ExecuteTool(ctx, "late_echo", "c1", map[string]any{"text": "hi"}, nil)
	if err != nil || res.ResultText() != "late hi" {
		t.Fatalf("tool: %+v %v", res, err)
	}
	if err := ext.RunCommand(ctx, "late", ""); err != nil {
		t.Fatal(err)
	}
}
