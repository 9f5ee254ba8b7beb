// Command extensions measures the extension host: start-up with 0, 1 and
// 30 plugins, the round trip of a tool_call hook to a plugin, and the
// overhead per turn with 10 subscribed plugins. It prints a Markdown
// table for BENCHMARKS.md.
//
//	go run ./bench/extensions            # all scenarios
//	go run ./bench/extensions -runs 20   # more repetitions
//
// For the per-turn scenario, BENCH_OBSERVE (comma-separated events) changes
// what the 10 plugins subscribe to, and BENCH_NOSYNC=1 drops their
// tool_call and tool_result hooks (to separate the cost of notifications
// from that of intercepting hooks).
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/atomic-go/atomic/bench/internal/benchkit"
	"github.com/atomic-go/atomic/host/extensions"
	"github.com/atomic-go/atomic/host/extensions/grpcext"
	"github.com/atomic-go/atomic/host/hooks"
)

func main() {
	runs := flag.Int("runs", 10, "repetitions of each start-up measurement")
	calls := flag.Int("calls", 20000, "hook round trips to time")
	prompts := flag.Int("prompts", 30, "prompts (of two turns each) per turn-overhead measurement")
	flag.Parse()

	tmp, err := os.MkdirTemp("", "atomic-bench-")
	benchkit.Check(err)
	defer os.RemoveAll(tmp)
	atomicBin := build(tmp, "./cmd/atomic", "atomic")
	pluginBin := build(tmp, "./internal/testplugin", "testplugin")

	fmt.Println("| scenario | result |")
	fmt.Println("|---|---|")
	for _, n := range []int{0, 1, 30} {
		state, ready := startup(tmp, atomicBin, pluginBin, n, *runs)
		fmt.Printf("| start-up to first `get_state`, %d plugins (median of %d) | %s |\n", n, *runs, benchkit.MS(state))
		fmt.Printf("| start-up until all %d plugins are ready (`get_extensions`) | %s |\n", n, benchkit.MS(ready))
	}
	p50, p99 := roundTrip(pluginBin, *calls)
	fmt.Printf("| `tool_call` hook round trip to one plugin, p50 | %.0f µs |\n", p50)
	fmt.Printf("| `tool_call` hook round trip to one plugin, p99 | %.0f µs |\n", p99)
	base := turns(tmp, atomicBin, pluginBin, 0, *prompts)
	with := turns(tmp, atomicBin, pluginBin, 10, *prompts)
	fmt.Printf("| time per turn, no plugins | %.2f ms |\n", base)
	fmt.Printf("| time per turn, 10 plugins subscribed to every event | %.2f ms |\n", with)
	fmt.Printf("| overhead per turn with 10 subscribed plugins | %.2f ms |\n", with-base)
}

func build(dir, pkg, name string) string {
	out := filepath.Join(dir, name)
	benchkit.Check(benchkit.Build(out, pkg))
	return out
}

func pluginDirs(root, bin string, n int, args ...string) []string {
	var out []string
	for i := 0; i < n; i++ {
		d := filepath.Join(root, fmt.Sprintf("plugin-%02d", i))
		benchkit.Check(os.MkdirAll(d, 0o755))
		b, _ := json.Marshal(map[string]any{"command": append([]string{bin}, args...)})
		benchkit.Check(os.WriteFile(filepath.Join(d, extensions.ManifestFile), b, 0o644))
		out = append(out, d)
	}
	return out
}

// startAgent starts atomic --mode rpc with the plugins in a home under
// root, on the faux script when one is given.
func startAgent(root, bin string, plugins []string, script string) *benchkit.Proc {
	var env []string
	if script != "" {
		env = append(env, "ATOMIC_FAUX_SCRIPT="+script)
	}
	return benchkit.StartAtomic(root, bin, plugins, env...)
}

// startup measures the time to the first get_state response and to the
// moment every plugin has started (get_extensions waits for that).
func startup(tmp, atomicBin, pluginBin string, n, runs int) (time.Duration, time.Duration) {
	root, err := os.MkdirTemp(tmp, "startup-")
	benchkit.Check(err)
	plugins := pluginDirs(root, pluginBin, n, "--block-bash", "never-matches", "--observe", "turn_end")
	var state, ready []time.Duration
	for i := 0; i < runs; i++ {
		start := time.Now()
		a := startAgent(root, atomicBin, plugins, "")
		a.Send(`{"id":"s","type":"get_state"}`)
		a.WaitFor(`"id":"s"`)
		state = append(state, time.Since(start))
		a.Send(`{"id":"e","type":"get_extensions"}`)
		a.WaitFor(`"id":"e"`)
		ready = append(ready, time.Since(start))
		a.Stop()
	}
	return benchkit.Median(state), benchkit.Median(ready)
}

// roundTrip times bus.ToolCall against one real plugin process.
func roundTrip(pluginBin string, calls int) (p50, p99 float64) {
	rt := &grpcext.Runtime{Log: slog.New(slog.DiscardHandler)}
	spec := extensions.Spec{Path: "bench", Kind: extensions.KindPlugin, Command: []string{pluginBin, "--block-bash", "never-matches"}, Dir: os.TempDir()}
	ext, err := rt.Load(context.Background(), spec, benchkit.FakeHost{})
	benchkit.Check(err)
	defer ext.Close()
	bus := hooks.New()
	bus.Add(ext)
	return benchkit.ToolCallLatency(bus, 500, calls)
}

// turns measures the average time of one turn (prompts of two turns each:
// a bash tool call, then an answer) with n plugins subscribed to every
// event of the loop.
func turns(tmp, atomicBin, pluginBin string, n, prompts int) float64 {
	root, err := os.MkdirTemp(tmp, "turns-")
	benchkit.Check(err)
	every := "agent_start,agent_end,turn_start,turn_end,message_start,message_update,message_end,tool_execution_start,tool_execution_update,tool_execution_end,context,before_agent_start"
	if v := os.Getenv("BENCH_OBSERVE"); v != "" {
		every = v
	}
	syncArgs := []string{"--block-bash", "never-matches", "--patch-result", "none"}
	if os.Getenv("BENCH_NOSYNC") != "" {
		syncArgs = nil
	}
	plugins := pluginDirs(root, pluginBin, n, append(syncArgs, "--observe", every)...)
	var script strings.Builder
	for i := 0; i < prompts+1; i++ {
		script.WriteString(`{"toolCalls":[{"name":"bash","arguments":{"command":"true"}}]}` + "\n")
		script.WriteString(`{"text":"done with this step","chunks":8}` + "\n")
	}
	scriptFile := filepath.Join(root, "script.jsonl")
	benchkit.Check(os.WriteFile(scriptFile, []byte(script.String()), 0o644))
	a := startAgent(root, atomicBin, plugins, scriptFile)
	defer a.Stop()
	run := func(i int) {
		a.Send(fmt.Sprintf(`{"id":"p%d","type":"prompt","message":"step %d"}`, i, i))
		a.WaitFor(`"type":"agent_end"`)
	}
	run(0) // warm up (plugins started, caches filled)
	start := time.Now()
	for i := 1; i <= prompts; i++ {
		run(i)
	}
	return float64(time.Since(start).Microseconds()) / 1000 / float64(prompts*2)
}
