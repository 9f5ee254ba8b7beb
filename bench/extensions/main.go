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
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

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
	check(err)
	defer os.RemoveAll(tmp)
	atomicBin := build(tmp, "./cmd/atomic", "atomic")
	pluginBin := build(tmp, "./internal/testplugin", "testplugin")

	fmt.Println("| scenario | result |")
	fmt.Println("|---|---|")
	for _, n := range []int{0, 1, 30} {
		state, ready := startup(tmp, atomicBin, pluginBin, n, *runs)
		fmt.Printf("| start-up to first `get_state`, %d plugins (median of %d) | %s |\n", n, *runs, ms(state))
		fmt.Printf("| start-up until all %d plugins are ready (`get_extensions`) | %s |\n", n, ms(ready))
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

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000) }

func build(dir, pkg, name string) string {
	out := filepath.Join(dir, name)
	cmd := exec.Command("go", "build", "-o", out, pkg)
	cmd.Stderr = os.Stderr
	check(cmd.Run())
	return out
}

func pluginDirs(root, bin string, n int, args ...string) []string {
	var out []string
	for i := 0; i < n; i++ {
		d := filepath.Join(root, fmt.Sprintf("plugin-%02d", i))
		check(os.MkdirAll(d, 0o755))
		b, _ := json.Marshal(map[string]any{"command": append([]string{bin}, args...)})
		check(os.WriteFile(filepath.Join(d, extensions.ManifestFile), b, 0o644))
		out = append(out, d)
	}
	return out
}

// agent is a running atomic --mode rpc process.
type agent struct {
	cmd   *exec.Cmd
	in    io.WriteCloser
	lines *bufio.Scanner
}

func startAgent(root, bin string, plugins []string, script string) *agent {
	home := filepath.Join(root, "home")
	check(os.MkdirAll(filepath.Join(home, ".atomic", "agent"), 0o755))
	args := []string{"--mode", "rpc"}
	for _, p := range plugins {
		args = append(args, "-e", p)
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "HOME="+home, "ATOMIC_CODING_AGENT_DIR="+filepath.Join(home, ".atomic", "agent"))
	if script != "" {
		cmd.Env = append(cmd.Env, "ATOMIC_FAUX_SCRIPT="+script)
	}
	in, err := cmd.StdinPipe()
	check(err)
	out, err := cmd.StdoutPipe()
	check(err)
	check(cmd.Start())
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	return &agent{cmd: cmd, in: in, lines: sc}
}

func (a *agent) send(line string) { _, _ = io.WriteString(a.in, line+"\n") }

// waitFor reads records until one contains all the fragments.
func (a *agent) waitFor(fragments ...string) {
	for a.lines.Scan() {
		line := a.lines.Text()
		ok := true
		for _, f := range fragments {
			if !strings.Contains(line, f) {
				ok = false
				break
			}
		}
		if ok {
			return
		}
	}
	check(fmt.Errorf("agent closed its output while waiting for %v", fragments))
}

func (a *agent) stop() {
	a.in.Close()
	done := make(chan struct{})
	go func() { _ = a.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		_ = a.cmd.Process.Kill()
		<-done
	}
}

func median(ds []time.Duration) time.Duration {
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	return ds[len(ds)/2]
}

// startup measures the time to the first get_state response and to the
// moment every plugin has started (get_extensions waits for that).
func startup(tmp, atomicBin, pluginBin string, n, runs int) (time.Duration, time.Duration) {
	root, err := os.MkdirTemp(tmp, "startup-")
	check(err)
	plugins := pluginDirs(root, pluginBin, n, "--block-bash", "never-matches", "--observe", "turn_end")
	var state, ready []time.Duration
	for i := 0; i < runs; i++ {
		start := time.Now()
		a := startAgent(root, atomicBin, plugins, "")
		a.send(`{"id":"s","type":"get_state"}`)
		a.waitFor(`"id":"s"`)
		state = append(state, time.Since(start))
		a.send(`{"id":"e","type":"get_extensions"}`)
		a.waitFor(`"id":"e"`)
		ready = append(ready, time.Since(start))
		a.stop()
	}
	return median(state), median(ready)
}

// fakeHost is enough host for a plugin that only answers hooks.
type fakeHost struct{ extensions.Host }

func (fakeHost) HandlerContext() extensions.HandlerContext {
	return extensions.HandlerContext{Cwd: "/", Mode: "rpc", HasUI: true, SessionID: "bench"}
}

// roundTrip times bus.ToolCall against one real plugin process.
func roundTrip(pluginBin string, calls int) (p50, p99 float64) {
	rt := &grpcext.Runtime{Log: slog.New(slog.DiscardHandler)}
	spec := extensions.Spec{Path: "bench", Kind: extensions.KindPlugin, Command: []string{pluginBin, "--block-bash", "never-matches"}, Dir: os.TempDir()}
	ext, err := rt.Load(context.Background(), spec, fakeHost{})
	check(err)
	defer ext.Close()
	bus := hooks.New()
	bus.Add(ext)
	ev := hooks.ToolCallEvent{ToolCallID: "call_1", ToolName: "bash", Input: map[string]any{"command": "ls -la"}}
	for i := 0; i < 500; i++ { // warm up
		bus.ToolCall(context.Background(), ev)
	}
	ds := make([]time.Duration, calls)
	for i := range ds {
		start := time.Now()
		d := bus.ToolCall(context.Background(), ev)
		ds[i] = time.Since(start)
		if d.Block {
			check(fmt.Errorf("unexpected block: %s", d.Reason))
		}
	}
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	us := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1000 }
	return us(ds[len(ds)/2]), us(ds[len(ds)*99/100])
}

// turns measures the average time of one turn (prompts of two turns each:
// a bash tool call, then an answer) with n plugins subscribed to every
// event of the loop.
func turns(tmp, atomicBin, pluginBin string, n, prompts int) float64 {
	root, err := os.MkdirTemp(tmp, "turns-")
	check(err)
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
	check(os.WriteFile(scriptFile, []byte(script.String()), 0o644))
	a := startAgent(root, atomicBin, plugins, scriptFile)
	defer a.stop()
	run := func(i int) {
		a.send(fmt.Sprintf(`{"id":"p%d","type":"prompt","message":"step %d"}`, i, i))
		a.waitFor(`"type":"agent_end"`)
	}
	run(0) // warm up (plugins started, caches filled)
	start := time.Now()
	for i := 1; i <= prompts; i++ {
		run(i)
	}
	return float64(time.Since(start).Microseconds()) / 1000 / float64(prompts*2)
}
