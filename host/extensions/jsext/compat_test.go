package jsext

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestNodeStyleModulesRunInGoja covers the goja gaps that real published
// extensions hit: dynamic import(), import.meta, an ES module declaring
// its own __filename, the renamed pi packages (also when npm installed the
// real package as a peer), pi-tui's key helpers, node:url, node:module and
// node:readline.
func TestNodeStyleModulesRunInGoja(t *testing.T) {
	h := newHarness(t)
	h.write("node_modules/@earendil-works/pi-tui/package.json", `{"name":"@earendil-works/pi-tui","main":"dist/index.js","type":"module"}`)
	h.write("node_modules/@earendil-works/pi-tui/dist/index.js", `const __filename = 1; export const real = true;`)
	h.write("node_modules/helper/package.json", `{"name":"helper","main":"index.js"}`)
	h.write("node_modules/helper/index.js", `module.exports = require("@earendil-works/pi-tui/dist/index.js");`)
	h.write("lib.ts", `export const answer = 42;`)
	out := evalScript(t, h, "compat.ts", `import { fileURLToPath, pathToFileURL } from "node:url";
import { dirname } from "node:path";
import { createRequire } from "node:module";
import { createInterface } from "node:readline";
import { Key } from "@earendil-works/pi-tui";
import { Type } from "@earendil-works/pi-ai";
import { getMarkdownTheme } from "@earendil-works/pi-coding-agent";
import * as core from "@earendil-works/pi-agent-core";
const helper = require("helper");
const __filename = fileURLToPath(import.meta.url);
const __dirname = dirname(__filename);
export default async function (pi: any) {
  const lib = await import("./lib");
  const path = await import("node:path");
  const req = createRequire(import.meta.url);
  const lines: string[] = [];
  const rl = createInterface({ input: "one\ntwo\r\nthree" });
  rl.on("line", (l: string) => lines.push(l));
  await new Promise((r) => rl.on("close", r));
  pi.registerShortcut(Key.ctrlShift("p"), { handler() {} });
  pi.registerFlag("out", { type: "string", default: JSON.stringify({
    answer: lib.answer, join: path.join("a", "b"), file: __filename.endsWith("/compat.ts"), dir: __dirname === import.meta.dirname,
    url: import.meta.url.startsWith("file:///"), round: fileURLToPath(pathToFileURL("/a b/c")),
    req: req("./lib").answer, keys: [Key.ctrlShift("p"), Key.ctrlAlt("x"), Key.shiftSuper("k"), Key.ctrlShiftAlt("z"), Key.escape, Key.pageUp],
    type: typeof Type.Object, theme: typeof getMarkdownTheme, core: typeof core, peer: helper.Key === Key, lines,
  }) });
}`)
	var got map[string]any
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err, out)
	}
	want := `{"answer":42,"core":"object","dir":true,"file":true,"join":"a/b","keys":["ctrl+shift+p","ctrl+alt+x","shift+super+k","ctrl+shift+alt+z","escape","pageUp"],"lines":["one","two","three"],"peer":true,"req":42,"round":"/a b/c","theme":"function","type":"function","url":true}`
	if b, _ := json.Marshal(got); string(b) != want {
		t.Fatalf("got\n%s\nwant\n%s", b, want)
	}
}

func TestProvidesModule(t *testing.T) {
	for _, name := range []string{"node:path", "path", "fs", "node:fs/promises", "@mariozechner/pi-tui", "@earendil-works/pi-coding-agent", "typebox", "@sinclair/typebox", "node:url", "node:buffer", "node:readline", "node:module", "crypto", "child_process"} {
		if !ProvidesModule(name) {
			t.Errorf("%s: not provided", name)
		}
	}
	for _, name := range []string{"node:http", "node:worker_threads", "express", "./x", "node:@mariozechner/pi-tui"} {
		if ProvidesModule(name) {
			t.Errorf("%s: provided", name)
		}
	}
	// Every name it accepts really loads.
	h := newHarness(t)
	var b strings.Builder
	b.WriteString("export default function (pi: any) {\n")
	for _, name := range providedModules() {
		b.WriteString("  require(" + strconvQuote(name) + ");\n")
	}
	b.WriteString("}\n")
	h.mustLoad("all.ts", b.String())
}

func strconvQuote(s string) string { b, _ := json.Marshal(s); return string(b) }
