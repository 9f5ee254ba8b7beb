package jsext

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// TestTopLevelAwait: modules with top-level await (the entry and a module
// it imports) run their awaits before the factory, their exports are
// ready when it runs, and an error after an await still names its line.
func TestTopLevelAwait(t *testing.T) {
	h := newHarness(t)
	h.write("config.ts", `import { join } from "node:path";
const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));
await wait(10);
export const dir: string = join("a", "b");
export let count = 1;
count = await Promise.resolve(2);
export default "config";
`)
	out := evalScript(t, h, "tla.ts", `import cfg, { dir, count } from "./config";
import * as path from "node:path";
const data = await Promise.resolve({ n: 3 });
export const late = await import("./config");
const label = () => "tla";
export default function (pi: any) {
  pi.registerFlag("out", { type: "string", default: [cfg, dir, count, data.n, late.count, path.sep, label()].join(",") });
}
`)
	if out != "config,a/b,2,3,2,/,tla" {
		t.Fatalf("got %q", out)
	}
	_, err := h.load("bad.ts", `await Promise.resolve();
const x: any = null;
export default function (pi: any) {
  x.boom();
}
`)
	if err == nil || !strings.Contains(err.Error(), "bad.ts:4:") {
		t.Fatalf("error = %v", err)
	}
	_, err = h.load("reject.ts", `await Promise.reject(new Error("no config"));
export default function (pi: any) {}
`)
	if err == nil || !strings.Contains(err.Error(), "no config") {
		t.Fatalf("error = %v", err)
	}
}

// A dynamic import() in a function that declares its own require (as
// emscripten's modules do: web-tree-sitter in @gotgenes/pi-permission-system,
// found by test/parity, where esbuild keeps the local name and its lowered
// import() called the local require before it was set) imports through
// the module's require.
func TestDynamicImportBesideALocalRequire(t *testing.T) {
	code, _, err := (&Transformer{}).Transform("/x/lowered.js", []byte(`export async function f() { return import("node:path"); }`))
	if err != nil || !strings.Contains(code, `__atomic_require("node:path")`) {
		t.Fatalf("the lowered import() does not call the module's require:\n%s %v", code, err)
	}
	h := newHarness(t)
	s := h.mustLoad("emscripten.js", `async function load() {
  if (typeof process == "object") {
    const { createRequire } = await import("module");
    var require = createRequire(import.meta.url);
  }
  return typeof require("node:path").join;
}
export default function (pi) {
  pi.registerCommand("t", { handler: async () => { pi.appendEntry("r", { got: await load() }); } });
}`)
	if err := s.RunCommand(context.Background(), "t", ""); err != nil {
		t.Fatal(err)
	}
	h.waitFake(func() bool { return len(h.fake.Entries) > 0 })
	var got struct{ Got string }
	h.fake.Locked(func() { b, _ := json.Marshal(h.fake.Entries[0].Data); _ = json.Unmarshal(b, &got) })
	if got.Got != "function" {
		t.Fatalf("got %q", got.Got)
	}
}
