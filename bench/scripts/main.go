// Command scripts measures the script extension runtime (jsext): start-up
// of the agent with 30 TypeScript extensions, with a cold and a warm
// transform cache, to the first get_state response and until every
// extension is ready; and the latency of a tool_call handler in a script
// (in process and with process isolation). It prints a Markdown table for
// BENCHMARKS.md.
//
//	go run ./bench/scripts               # all scenarios
//	go run ./bench/scripts -runs 20      # more repetitions
//	go run ./bench/scripts -latency -runtime node   # the tool_call latency only
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/atomic-go/atomic/bench/internal/benchkit"
)

// runtime is the script runtime measured (-runtime).
var runtime = "goja"

func main() {
	runs := flag.Int("runs", 10, "repetitions of each start-up measurement")
	calls := flag.Int("calls", 20000, "handler calls to time")
	n := flag.Int("n", 30, "extensions for the start-up scenarios")
	flag.StringVar(&runtime, "runtime", "goja", "script runtime: goja or node (the extensionRuntime setting)")
	latencyOnly := flag.Bool("latency", false, "only the tool_call handler latency (no start-up scenarios)")
	flag.Parse()

	tmp, err := os.MkdirTemp("", "atomic-bench-scripts-")
	benchkit.Check(err)
	defer os.RemoveAll(tmp)
	atomicBin, err := benchkit.BuildAtomic(tmp)
	benchkit.Check(err)

	fmt.Printf("runtime: %s\n\n", runtime)
	fmt.Println("| scenario | result |")
	fmt.Println("|---|---|")
	if *latencyOnly {
		exts := writeExtensions(filepath.Join(tmp, "exts"), 1)
		p50, p99 := handlerLatency(exts[0], "", atomicBin, *calls)
		fmt.Printf("| `tool_call` handler in a script, in process, p50 / p99 | %.1f µs / %.1f µs |\n", p50, p99)
		return
	}
	none := filepath.Join(tmp, "none")
	benchkit.Check(os.MkdirAll(none, 0o755))
	s0, r0 := startup(tmp, atomicBin, nil, *runs, true)
	fmt.Printf("| start-up to first `get_state`, no extensions (median of %d) | %s |\n", *runs, benchkit.MS(s0))
	fmt.Printf("| start-up until ready (`get_extensions`), no extensions | %s |\n", benchkit.MS(r0))
	exts := writeExtensions(filepath.Join(tmp, "exts"), *n)
	sc, rc := startup(tmp, atomicBin, exts, *runs, true)
	fmt.Printf("| start-up to first `get_state`, %d TypeScript extensions, cold transform cache | %s |\n", *n, benchkit.MS(sc))
	fmt.Printf("| start-up until all %d are ready, cold cache | %s |\n", *n, benchkit.MS(rc))
	sw, rw := startup(tmp, atomicBin, exts, *runs, false)
	fmt.Printf("| start-up to first `get_state`, %d TypeScript extensions, warm cache | %s |\n", *n, benchkit.MS(sw))
	fmt.Printf("| start-up until all %d are ready, warm cache | %s |\n", *n, benchkit.MS(rw))
	fmt.Printf("| extensions' own start-up (ready minus ready without extensions), cold / warm | %s / %s |\n", benchkit.MS(rc-r0), benchkit.MS(rw-r0))

	p50, p99 := handlerLatency(exts[0], "", atomicBin, *calls)
	fmt.Printf("| `tool_call` handler in a script, in process, p50 / p99 | %.1f µs / %.1f µs |\n", p50, p99)
	p50, p99 = handlerLatency(exts[0], "process", atomicBin, *calls/4)
	fmt.Printf("| `tool_call` handler in a script, isolation \"process\", p50 / p99 | %.0f µs / %.0f µs |\n", p50, p99)
}

// writeExtensions writes n distinct TypeScript extensions in the
// reference style (type imports, TypeBox, a tool, a command, handlers).
func writeExtensions(dir string, n int) []string {
	benchkit.Check(os.MkdirAll(dir, 0o755))
	var out []string
	for i := 0; i < n; i++ {
		p := filepath.Join(dir, fmt.Sprintf("ext%02d.ts", i))
		src := strings.ReplaceAll(extensionTemplate, "NN", fmt.Sprintf("%02d", i))
		benchkit.Check(os.WriteFile(p, []byte(src), 0o644))
		out = append(out, p)
	}
	return out
}

const extensionTemplate = `import type { ExtensionAPI, ExtensionContext, ToolCallEvent } from "@mariozechner/pi-coding-agent";
import { Type, type Static } from "@sinclair/typebox";
import { StringEnum } from "@mariozechner/pi-ai";

const Params = Type.Object({
  text: Type.String({ description: "input text" }),
  mode: Type.Optional(StringEnum(["upper", "lower"] as const)),
  count: Type.Optional(Type.Integer({ minimum: 1, maximum: 10 })),
});
type Input = Static<typeof Params>;

interface Stats { calls: number; blocked: number }

const patterns: RegExp[] = [/rm -rf \//, /mkfs/, /:\(\)\{ :\|:& \};:/];

export default function (pi: ExtensionAPI) {
  const stats: Stats = { calls: 0, blocked: 0 };

  pi.on("tool_call", async (event: ToolCallEvent, ctx: ExtensionContext) => {
    stats.calls++;
    if (event.toolName !== "bash") return undefined;
    const command = String(event.input.command ?? "");
    if (patterns.some((p) => p.test(command))) {
      stats.blocked++;
      return { block: true, reason: "ext NN: blocked" };
    }
    return undefined;
  });

  pi.on("session_start", async (_event, ctx) => {
    ctx.ui.setStatus("extNN", "ready");
  });

  pi.registerTool({
    name: "tool_NN",
    label: "Tool NN",
    description: "Transforms text (extension NN)",
    parameters: Params,
    async execute(_id: string, params: Input) {
      const t = params.mode === "lower" ? params.text.toLowerCase() : params.text.toUpperCase();
      return { content: [{ type: "text", text: t.repeat(params.count ?? 1) }], details: { ...stats } };
    },
  });

  pi.registerCommand("cmdNN", {
    description: "Stats of extension NN",
    handler: async (_args: string, ctx) => {
      ctx.ui.notify("calls=" + stats.calls + " blocked=" + stats.blocked, "info");
    },
  });
}
`

// startAgent starts atomic --mode rpc with the extensions and a transform
// cache, in a home under root.
func startAgent(root, bin, cache string, exts []string) *benchkit.Proc {
	agentDir := filepath.Join(root, "home", ".atomic", "agent")
	benchkit.Check(os.MkdirAll(agentDir, 0o755))
	benchkit.Check(os.WriteFile(filepath.Join(agentDir, "settings.json"), []byte(`{"extensionRuntime":"`+runtime+`"}`), 0o644))
	// The Node runtime keeps its transformed files in the user cache:
	// a cold run gets its own.
	return benchkit.StartAtomic(root, bin, exts, "ATOMIC_JSEXT_CACHE="+cache, "XDG_CACHE_HOME="+cache)
}

// startup times the first get_state response and the get_extensions
// response (which waits until every extension has loaded). cold gives
// every run an empty transform cache; otherwise one unmeasured run fills
// it first.
func startup(tmp, bin string, exts []string, runs int, cold bool) (time.Duration, time.Duration) {
	root, err := os.MkdirTemp(tmp, "startup-")
	benchkit.Check(err)
	cache := filepath.Join(root, "cache")
	if !cold {
		a := startAgent(root, bin, cache, exts)
		a.Send(`{"id":"e","type":"get_extensions"}`)
		a.WaitFor(`"id":"e"`)
		a.Stop()
	}
	var state, ready []time.Duration
	for i := 0; i < runs; i++ {
		if cold {
			cache = filepath.Join(root, fmt.Sprintf("cache-%d", i))
		}
		start := time.Now()
		a := startAgent(root, bin, cache, exts)
		a.Send(`{"id":"s","type":"get_state"}`)
		a.WaitFor(`"id":"s"`)
		state = append(state, time.Since(start))
		a.Send(`{"id":"e","type":"get_extensions"}`)
		line := a.WaitFor(`"id":"e"`)
		ready = append(ready, time.Since(start))
		if n := strings.Count(line, `"state":"loaded"`); n != len(exts) {
			benchkit.Check(fmt.Errorf("%d of %d extensions loaded: %s", n, len(exts), line))
		}
		a.Stop()
	}
	return benchkit.Median(state), benchkit.Median(ready)
}

// handlerLatency times bus.ToolCall into one script's async tool_call
// handler.
func handlerLatency(path, isolation, atomicBin string, calls int) (p50, p99 float64) {
	bus, closeExt := benchkit.LoadScript(runtime, path, isolation, atomicBin)
	defer closeExt()
	return benchkit.ToolCallLatency(bus, 1000, calls)
}
