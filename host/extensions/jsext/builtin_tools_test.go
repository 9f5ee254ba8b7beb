package jsext

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// pi's built-in tool factories run the agent's built-in tools: a bash
// tool made with a spawnHook runs the changed command with the changed
// environment, and a read tool reads relative to its cwd.
func TestBuiltinToolFactories(t *testing.T) {
	h := newHarness(t)
	if err := os.WriteFile(filepath.Join(h.dir, "note.txt"), []byte("hello from a file\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := h.mustLoad("factories.ts", `
import { createBashTool, createReadTool, createCodingTools } from "@mariozechner/pi-coding-agent";
export default function (pi) {
  const bash = createBashTool(process.cwd(), {
    commandPrefix: "PREFIX=yes",
    spawnHook: ({ command, cwd, env }) => ({ command: "echo hooked; " + command, cwd, env: { ...env, COMPAT_HOOK: "1" } }),
  });
  pi.registerTool({ ...bash, name: "my_bash", execute: (id, p, signal, onUpdate) => bash.execute(id, p, signal, onUpdate) });
  const read = createReadTool(`+strconv.Quote(h.dir)+`);
  pi.registerTool({ ...read, name: "my_read" });
  const names = createCodingTools("/").map((t) => t.name).join(",");
  pi.registerCommand("names", { description: names, handler: async () => {} });
}
`)
	tools := s.Tools()
	if len(tools) != 2 || !strings.Contains(string(tools[0].Parameters), `"command"`) || tools[0].Description == "" {
		t.Fatalf("tools %+v", tools)
	}
	if cmds := s.Commands(); len(cmds) != 1 || cmds[0].Description != "read,bash,edit,write" {
		t.Fatalf("commands %+v", cmds)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := s.ExecuteTool(ctx, "my_bash", "c1", map[string]any{"command": `echo "$PREFIX $COMPAT_HOOK"`}, nil)
	if err != nil || strings.TrimSpace(res.ResultText()) != "hooked\nyes 1" {
		t.Fatalf("bash: %q %v", res.ResultText(), err)
	}
	res, err = s.ExecuteTool(ctx, "my_read", "c2", map[string]any{"path": "note.txt"}, nil)
	if err != nil || !strings.Contains(res.ResultText(), "hello from a file") {
		t.Fatalf("read: %q %v", res.ResultText(), err)
	}
	_, err = s.ExecuteTool(ctx, "my_read", "c3", map[string]any{"path": "missing.txt"}, nil)
	if err == nil {
		t.Fatal("reading a missing file did not fail")
	}
}

func TestAtobBtoa(t *testing.T) {
	h := newHarness(t)
	s := h.mustLoad("b64.js", `
module.exports = function (pi) {
  let bad = "";
  try { btoa("\u0100"); } catch (e) { bad = String(e.message); }
  const bytes = String.fromCharCode(0, 200, 255);
  pi.registerCommand("b64", { description: [btoa("hello"), atob("aGVsbG8"), atob(" aGV sbG8= "), btoa(bytes), atob(btoa(bytes)) === bytes, bad.includes("Latin1")].join("|"), handler: async () => {} });
};
`)
	if got := s.Commands()[0].Description; got != "aGVsbG8=|hello|hello|AMj/|true|true" {
		t.Fatalf("got %q", got)
	}
}

// SharedArrayBuffer and Atomics exist (a script's sleepSync helper of
// Atomics.wait on a shared Int32Array works; nothing can notify).
func TestSharedArrayBufferAndAtomics(t *testing.T) {
	h := newHarness(t)
	s := h.mustLoad("atomics.ts", `
const buf = new SharedArrayBuffer(8);
const arr = new Int32Array(buf);
export default function (pi) {
  const t0 = Date.now();
  const waited = Atomics.wait(arr, 0, 0, 30);
  const slept = Date.now() - t0 >= 25;
  Atomics.store(arr, 1, 5);
  const old = Atomics.add(arr, 1, 2);
  let forever = "";
  try { Atomics.wait(arr, 0, 0); } catch (e) { forever = "throws"; }
  pi.registerCommand("a", { description: [waited, slept, old, Atomics.load(arr, 1), Atomics.wait(arr, 1, 0, 10), Atomics.compareExchange(arr, 1, 7, 1), arr[1], forever, buf instanceof SharedArrayBuffer, Object.prototype.toString.call(buf)].join("|"), handler: async () => {} });
}
`)
	if got := s.Commands()[0].Description; got != "timed-out|true|5|7|not-equal|7|1|throws|true|[object SharedArrayBuffer]" {
		t.Fatalf("got %q", got)
	}
}

// As pi: notify without a type sends no notifyType, and setEditorText of
// nothing sends an empty text (not "undefined").
func TestNotifyWithoutTypeAndEmptyEditorText(t *testing.T) {
	h := newHarness(t)
	s := h.mustLoad("ui.js", `
module.exports = function (pi) {
  pi.registerCommand("u", { handler: async (args, ctx) => { ctx.ui.notify("plain"); ctx.ui.setEditorText(undefined); } });
};
`)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.RunCommand(ctx, "u", ""); err != nil {
		t.Fatal(err)
	}
	h.waitFake(func() bool {
		for _, r := range h.fake.UIRequests {
			if r.Method == "set_editor_text" {
				return true
			}
		}
		return false
	})
	n := h.fake.Requests("notify")
	if len(n) != 1 || n[0].Params["message"] != "plain" {
		t.Fatalf("notify %+v", n)
	}
	if _, ok := n[0].Params["notifyType"]; ok {
		t.Fatalf("notifyType sent: %+v", n[0].Params)
	}
	if e := h.fake.Requests("set_editor_text"); len(e) != 1 || e[0].Params["text"] != "" {
		t.Fatalf("set_editor_text %+v", e)
	}
}

// pi-ai's /compat entry point is the same stand-in; complete is a
// function that goes through the agent (models_e2e_test.go calls it).
func TestPiAICompat(t *testing.T) {
	h := newHarness(t)
	s := h.mustLoad("compat.ts", `
import { StringEnum, complete } from "@earendil-works/pi-ai/compat";
import { clampThinkingLevel } from "@earendil-works/pi-ai";
export default function (pi) {
  pi.registerCommand("c", { description: [StringEnum(["a"]).enum[0], clampThinkingLevel("xhigh", ["off", "low", "high"]), typeof complete === "function"].join("|"), handler: async () => {} });
}
`)
	if got := s.Commands()[0].Description; got != "a|high|true" {
		t.Fatalf("got %q", got)
	}
}

// withFileMutationQueue runs mutations of one file one at a time, in order.
func TestWithFileMutationQueue(t *testing.T) {
	h := newHarness(t)
	s := h.mustLoad("queue.ts", `
import { withFileMutationQueue, keyText, getLanguageFromPath } from "@earendil-works/pi-coding-agent";
import { Agent } from "@earendil-works/pi-agent-core";
export default async function (pi) {
  const log = [];
  const slow = withFileMutationQueue("/f", () => new Promise((r) => setTimeout(() => { log.push("a"); r(1); }, 30)));
  const fast = withFileMutationQueue("/f", async () => { log.push("b"); return 2; });
  const other = withFileMutationQueue("/g", async () => { log.push("c"); });
  await Promise.all([slow, fast, other]);
  const agentErr = new Agent().state.isStreaming === false;
  pi.registerCommand("q", { description: [log.join(""), keyText("ctrl+x"), getLanguageFromPath("a/b.ts"), agentErr].join("|"), handler: async () => {} });
}
`)
	if got := s.Commands()[0].Description; got != "cab|ctrl+x|typescript|true" {
		t.Fatalf("got %q", got)
	}
}
