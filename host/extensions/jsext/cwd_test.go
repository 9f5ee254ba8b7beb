package jsext

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// A script in process works in the session's directory, as an isolated
// child and Node's process (they start there) do, though the agent runs
// elsewhere: process.cwd(), relative fs paths, path.resolve and the
// programs it spawns (found by test/parity: pi's provider-payload and
// titlebar-spinner examples read process.cwd()).
func TestScriptWorksInTheSessionsDirectory(t *testing.T) {
	h := newHarness(t)
	if own, _ := os.Getwd(); own == h.dir {
		t.Fatal("the test runs in the session's directory")
	}
	s := h.mustLoad("cwd.ts", `import * as fs from "node:fs";
import * as path from "node:path";
import { execFileSync, spawn } from "node:child_process";
export default function (pi: any) {
  pi.registerCommand("where", { handler: async () => {
    fs.mkdirSync("sub", { recursive: true });
    fs.writeFileSync("sub/rel.txt", "x");
    const spawned = await new Promise((resolve) => {
      let out = "";
      const c = spawn("pwd", []);
      c.stdout.on("data", (d: any) => (out += d));
      c.on("close", () => resolve(out.trim()));
    });
    pi.appendEntry("where", { cwd: process.cwd(), resolved: path.resolve("a"), relative: path.relative("sub", "b"),
      read: fs.readFileSync("sub/rel.txt", "utf8"), spawned });
  } });
}`)
	if err := s.RunCommand(context.Background(), "where", ""); err != nil {
		t.Fatal(err)
	}
	h.waitFake(func() bool { return len(h.fake.Entries) > 0 })
	var got map[string]any
	h.fake.Locked(func() { b, _ := json.Marshal(h.fake.Entries[0].Data); _ = json.Unmarshal(b, &got) })
	want := map[string]any{"cwd": h.dir, "resolved": filepath.Join(h.dir, "a"), "relative": "../b", "read": "x", "spawned": h.dir}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %v, want %v", k, got[k], v)
		}
	}
	if _, err := os.Stat(filepath.Join(h.dir, "sub", "rel.txt")); err != nil {
		t.Errorf("the relative path was not the session's: %v", err)
	}
}
