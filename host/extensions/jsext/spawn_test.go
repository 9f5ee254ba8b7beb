package jsext

import (
	"encoding/json"
	"testing"
	"time"
)

// TestStreamingSpawn: child_process.spawn streams stdout and stderr,
// takes standard input, reports exit and close with the code or signal,
// can be killed, and reports a missing program as an "error" event.
func TestStreamingSpawn(t *testing.T) {
	h := newHarness(t)
	s := h.mustLoad("spawn.ts", `import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
const run = (cmd: string, args: string[], input?: string) => new Promise((resolve) => {
  const cp = spawn(cmd, args);
  const out: any = { stdout: "", stderr: "", events: [] as string[] };
  cp.stdout.setEncoding("utf8");
  cp.stdout.on("data", (d: string) => { out.stdout += d; });
  cp.stderr.on("data", (d: any) => { out.stderr += d.toString(); });
  cp.on("spawn", () => out.events.push("spawn"));
  cp.on("error", (e: any) => { out.events.push("error " + e.code); resolve(out); });
  cp.on("exit", (code: any, sig: any) => out.events.push("exit " + code + " " + sig));
  cp.on("close", (code: any) => { out.events.push("close " + code); resolve(out); });
  if (input !== undefined) { cp.stdin.write(input); cp.stdin.end(); }
  if (cmd === "sleep") setTimeout(() => cp.kill(), 50);
});
export default function (pi: any) {
  pi.on("tool_call", async () => {
    const lines: string[] = [];
    const cp = spawn("sh", ["-c", "echo a; echo b; echo c"]);
    createInterface({ input: cp.stdout }).on("line", (l: string) => lines.push(l));
    await new Promise((r) => cp.on("close", r));
    return { block: true, reason: JSON.stringify({
      sh: await run("sh", ["-c", "echo out; echo err >&2; exit 3"]),
      cat: await run("cat", [], "piped"),
      sleep: await run("sleep", ["30"]),
      missing: await run("/nonexistent/program", []),
      lines,
    }) };
  });
}`)
	res, err := handle(t, s, "tool_call", map[string]any{"toolName": "x", "input": map[string]any{}}, 20*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	var r struct{ Reason string }
	_ = json.Unmarshal([]byte(res), &r)
	var got any
	_ = json.Unmarshal([]byte(r.Reason), &got)
	b, _ := json.Marshal(got)
	want := `{"cat":{"events":["spawn","exit 0 null","close 0"],"stderr":"","stdout":"piped"},"lines":["a","b","c"],"missing":{"events":["error ENOENT"],"stderr":"","stdout":""},"sh":{"events":["spawn","exit 3 null","close 3"],"stderr":"err\n","stdout":"out\n"},"sleep":{"events":["spawn","exit null SIGTERM","close null"],"stderr":"","stdout":""}}`
	if string(b) != want {
		t.Fatalf("got\n%s\nwant\n%s", b, want)
	}
}
