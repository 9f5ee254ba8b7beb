package jsext

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// run loads a script whose factory stores a value with
// pi.registerFlag("out", {default: JSON.stringify(value)}), and returns it.
func evalScript(t *testing.T, h *harness, name, body string) string {
	t.Helper()
	s := h.mustLoad(name, body+"\n")
	for _, f := range s.Flags() {
		if f.Name == "out" {
			return f.Default
		}
	}
	t.Fatalf("the script registered no out flag")
	return ""
}

func TestTypeBoxSchemas(t *testing.T) {
	h := newHarness(t)
	out := evalScript(t, h, "tb.ts", `import { Type } from "@sinclair/typebox";
import { StringEnum, Type as T2 } from "@mariozechner/pi-ai";
enum Color { Red = "red", Green = "green" }
enum Num { A, B }
const schema = Type.Object({
  s: Type.String({ description: "a string", minLength: 1 }),
  n: Type.Number(),
  i: Type.Optional(Type.Integer({ minimum: 0 })),
  b: Type.Boolean(),
  a: Type.Array(Type.String(), { maxItems: 3 }),
  u: Type.Union([Type.Literal("x"), Type.Literal(2)]),
  e: Type.Enum(Color),
  en: Type.Enum(Num),
  se: StringEnum(["low", "high"] as const, { description: "level" }),
  r: Type.Record(Type.String(), Type.Number()),
  nul: Type.Null(),
  any: Type.Any(),
});
const partial = Type.Partial(Type.Object({ x: Type.String(), y: Type.Number() }));
const picked = Type.Pick(schema, ["s", "n"]);
export default function (pi: any) {
  pi.registerFlag("out", { type: "string", default: JSON.stringify({ schema, partial, picked, same: T2 === Type }) });
}`)
	var got map[string]any
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err, out)
	}
	want := `{"partial":{"properties":{"x":{"type":"string"},"y":{"type":"number"}},"type":"object"},"picked":{"properties":{"n":{"type":"number"},"s":{"description":"a string","minLength":1,"type":"string"}},"required":["s","n"],"type":"object"},"same":true,"schema":{"properties":{"a":{"items":{"type":"string"},"maxItems":3,"type":"array"},"any":{},"b":{"type":"boolean"},"e":{"anyOf":[{"const":"red","type":"string"},{"const":"green","type":"string"}]},"en":{"anyOf":[{"const":0,"type":"number"},{"const":1,"type":"number"}]},"i":{"minimum":0,"type":"integer"},"n":{"type":"number"},"nul":{"type":"null"},"r":{"patternProperties":{"^(.*)$":{"type":"number"}},"type":"object"},"s":{"description":"a string","minLength":1,"type":"string"},"se":{"description":"level","enum":["low","high"],"type":"string"},"u":{"anyOf":[{"const":"x","type":"string"},{"const":2,"type":"number"}]}},"required":["s","n","b","a","u","e","en","se","r","nul","any"],"type":"object"}}`
	b, _ := json.Marshal(got)
	if string(b) != want {
		t.Fatalf("got\n%s\nwant\n%s", b, want)
	}
}

func TestRelativeImportsAndPackages(t *testing.T) {
	h := newHarness(t)
	h.write("lib/util.ts", "export const twice = (n: number): number => n * 2;\nexport default 'lib-default';\n")
	h.write("lib/esm-style.ts", "import { twice } from './util.js';\nexport const four = twice(2);\n")
	h.write("data.json", `{"k": [1, 2]}`)
	h.write("node_modules/leftpad/package.json", `{"name": "leftpad", "main": "main.js"}`)
	h.write("node_modules/leftpad/main.js", "module.exports = (s, n) => ' '.repeat(n - s.length) + s;\n")
	h.write("dir/index.ts", "export const fromIndex = true;\n")
	out := evalScript(t, h, "main.ts", `import { twice } from "./lib/util";
import libDefault from "./lib/util";
import { four } from "./lib/esm-style";
import data from "./data.json";
import leftpad from "leftpad";
import * as dir from "./dir";
const cjs = require("./lib/util");
export default function (pi: any) {
  pi.registerFlag("out", { type: "string", default: JSON.stringify([twice(21), libDefault, four, data.k, leftpad("x", 3), dir.fromIndex, cjs.twice(1)]) });
}`)
	if out != `[42,"lib-default",4,[1,2],"  x",true,2]` {
		t.Fatalf("out = %s", out)
	}
}

func TestNodeModules(t *testing.T) {
	h := newHarness(t)
	h.write("in.txt", "hello\nworld\n")
	out := evalScript(t, h, "node.ts", `import * as path from "node:path";
import os from "os";
import fs from "node:fs";
import { readFileSync, existsSync } from "fs";
import { EventEmitter } from "node:events";
import { promisify, format } from "node:util";
import { createHash, randomUUID } from "node:crypto";
import proc from "node:process";
const dir = __dirname;
fs.writeFileSync(path.join(dir, "out.txt"), "written");
fs.mkdirSync(path.join(dir, "a/b/c"), { recursive: true });
let err = "";
try { readFileSync(path.join(dir, "missing.txt")); } catch (e: any) { err = e.code; }
const em = new EventEmitter();
let got = 0;
em.on("x", (n: number) => { got += n; });
em.emit("x", 5);
const st = fs.statSync(path.join(dir, "in.txt"));
export default function (pi: any) {
  pi.registerFlag("out", { type: "string", default: JSON.stringify({
    join: path.join("a", "b", "../c.ts"), ext: path.extname("x/y.test.ts"), base: path.basename("/x/y.ts", ".ts"),
    rel: path.relative("/a/b", "/a/c/d"), abs: path.isAbsolute("/x"), dirname: path.dirname("/a/b/c"),
    parse: path.parse("/home/u/file.txt"),
    home: os.homedir() === process.env.HOME, eol: os.EOL, platform: os.platform() === process.platform,
    read: readFileSync(path.join(dir, "in.txt"), "utf8").split("\n")[1],
    buf: readFileSync(path.join(dir, "in.txt")).length,
    exists: existsSync(path.join(dir, "a/b/c")), written: fs.readFileSync(path.join(dir, "out.txt"), { encoding: "utf8" }),
    err, got, size: st.size, isFile: st.isFile(), list: fs.readdirSync(dir).includes("in.txt"),
    hash: createHash("sha256").update("abc").digest("hex").slice(0, 8), uuid: randomUUID().length,
    fmt: format("%s=%d", "x", 3), promisify: typeof promisify(setTimeout),
    process: proc === process && require("process") === process,
  }) });
}`)
	var got map[string]any
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err, out)
	}
	want := map[string]any{
		"join": "a/c.ts", "ext": ".ts", "base": "y", "rel": "../c/d", "abs": true, "dirname": "/a/b",
		"parse": map[string]any{"root": "/", "dir": "/home/u", "base": "file.txt", "ext": ".txt", "name": "file"},
		"home":  true, "eol": "\n", "platform": true, "read": "world", "buf": float64(12),
		"exists": true, "written": "written", "err": "ENOENT", "got": float64(5), "size": float64(12), "isFile": true, "list": true,
		"hash": "ba7816bf", "uuid": float64(36), "fmt": "x=3", "promisify": "function",
		"process": true,
	}
	for k, v := range want {
		gb, _ := json.Marshal(got[k])
		wb, _ := json.Marshal(v)
		if string(gb) != string(wb) {
			t.Errorf("%s = %s, want %s", k, gb, wb)
		}
	}
}

func TestFsPromisesAndChildProcess(t *testing.T) {
	h := newHarness(t)
	s := h.mustLoad("async.ts", `import { readFile, writeFile } from "node:fs/promises";
import { execSync, exec } from "node:child_process";
import { promisify } from "node:util";
export default function (pi: any) {
  pi.on("input", async (e: any) => {
    await writeFile(__dirname + "/p.txt", e.text);
    const back = await readFile(__dirname + "/p.txt", "utf8");
    const sync = execSync("echo sync", { encoding: "utf8" }).trim();
    const { stdout } = await promisify(exec)("echo async");
    const r = await pi.exec("sh", ["-c", "echo $0-$1", "a", "b"]);
    return { action: "transform", text: [back, sync, stdout.trim(), r.stdout.trim(), r.code].join(" ") };
  });
}`)
	res, err := handle(t, s, "input", map[string]any{"text": "hey"}, 10*time.Second)
	if err != nil || res != `{"action":"transform","text":"hey sync async a-b 0"}` {
		t.Fatalf("%s %v", res, err)
	}
}

func TestTransformCache(t *testing.T) {
	dir := t.TempDir()
	tr := &Transformer{Dir: dir}
	src := []byte("const x: number = 1;\nexport default x;\n")
	code, cached, err := tr.Transform("/x/a.ts", src)
	if err != nil || cached {
		t.Fatalf("first: cached=%v err=%v", cached, err)
	}
	if strings.Contains(code, ": number") || !strings.Contains(code, "sourceMappingURL=data:application/json") {
		t.Fatalf("code:\n%s", code)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.js"))
	if len(files) != 1 {
		t.Fatalf("cache files: %v", files)
	}
	// A new transformer (a second start) reads the disk cache.
	tr2 := &Transformer{Dir: dir}
	code2, cached, err := tr2.Transform("/x/a.ts", src)
	if err != nil || !cached || code2 != code {
		t.Fatalf("second: cached=%v err=%v", cached, err)
	}
	// Changed content or another path is transformed again.
	if _, cached, _ := tr2.Transform("/x/a.ts", append(src, ' ')); cached {
		t.Fatal("changed source served from the cache")
	}
	if _, cached, _ := tr2.Transform("/x/b.ts", src); cached {
		t.Fatal("other path served from the cache")
	}
	// No temporary files are left behind.
	all, _ := os.ReadDir(dir)
	for _, e := range all {
		if strings.Contains(e.Name(), ".tmp") {
			t.Fatalf("left %s", e.Name())
		}
	}
	// Errors are not cached and name the position.
	_, _, err = tr2.Transform("/x/bad.ts", []byte("let = ;"))
	var te *TransformError
	if err == nil || !asTransformError(err, &te) || te.Line != 1 {
		t.Fatalf("err = %v", err)
	}
}

func asTransformError(err error, te **TransformError) bool {
	e, ok := err.(*TransformError)
	*te = e
	return ok
}

func TestSourceMappedPositionsInNestedFiles(t *testing.T) {
	h := newHarness(t)
	h.write("helpers/fail.ts", `interface Opts {
  reason: string;
}

export function fail(o: Opts): never {
  throw new RangeError("bad: " + o.reason);
}
`)
	s := h.mustLoad("entry.ts", `import { fail } from "./helpers/fail";
type X = string;
export default function (pi: any) {
  pi.on("input", async (e: { text: X }) => {
    fail({ reason: e.text });
  });
}`)
	_, err := handle(t, s, "input", map[string]any{"text": "nope"}, 5*time.Second)
	if err == nil || err.Error() != "RangeError: bad: nope (helpers/fail.ts:6:9)" {
		t.Fatalf("err = %v", err)
	}
}
