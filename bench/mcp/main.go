// Command mcp measures the MCP client through the agent: the round trip of
// an MCP tool call (stdio, the reference server-everything's echo, from
// tool_execution_start to tool_execution_end as an RPC client sees them)
// and start-up to the first get_state with 0 and 5 configured servers. It
// prints a Markdown table for BENCHMARKS.md.
//
//	go run ./bench/mcp
//	go run ./bench/mcp -runs 20 -calls 500
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/atomic-go/atomic/bench/internal/benchkit"
	"github.com/atomic-go/atomic/internal/npmpkg"
)

const everythingVersion = "2026.8.31"

func main() {
	runs := flag.Int("runs", 15, "repetitions of each start-up measurement")
	calls := flag.Int("calls", 300, "MCP tool calls to time")
	startupOnly := flag.Bool("startup", false, "only the start-up scenarios")
	flag.Parse()

	tmp, err := os.MkdirTemp("", "atomic-bench-mcp-")
	benchkit.Check(err)
	defer os.RemoveAll(tmp)
	bin, err := benchkit.BuildAtomic(tmp)
	benchkit.Check(err)
	server := filepath.Join(tmp, "mcptestserver")
	benchkit.Check(benchkit.Build(server, "./internal/mcptest/mcptestserver"))
	inst, err := npmpkg.Ensure(context.Background(), "@modelcontextprotocol/server-everything", everythingVersion)
	benchkit.Check(err)
	everything := filepath.Join(inst.PackageDir(), "dist", "index.js")

	fmt.Println("| scenario | result |")
	fmt.Println("|---|---|")
	five, idle, disabled := map[string]any{}, map[string]any{}, map[string]any{}
	for i := range 5 {
		name := fmt.Sprintf("s%d", i)
		five[name] = map[string]any{"command": server}
		// Servers that take no CPU while they start (they never answer):
		// the agent's own cost of reading the file and launching 5
		// processes.
		idle[name] = map[string]any{"command": server, "env": map[string]string{"MCP_TEST_NEVER_START": "1"}}
		disabled[name] = map[string]any{"command": server, "enabled": false}
	}
	// The scenarios take turns, run by run, so that a change of the
	// machine's load during the benchmark falls on all of them alike.
	t := startup(tmp, bin, []map[string]any{nil, five, idle, disabled}, *runs)
	none := t[0]
	row(fmt.Sprintf("start-up to first `get_state`, no MCP servers (median of %d)", *runs), none, none)
	row("start-up to first `get_state`, 5 configured stdio servers (Go SDK test server)", t[1], none)
	row("start-up to first `get_state`, 5 configured servers that stay silent", t[2], none)
	row("start-up to first `get_state`, 5 configured servers, all disabled (the configuration alone)", t[3], none)
	if *startupOnly {
		return
	}
	p50, p90 := roundTrip(tmp, bin, "node", []string{everything, "stdio"}, *calls)
	fmt.Printf("| MCP tool call round trip, server-everything `echo` over stdio, p50 (%d calls) | %s |\n", *calls, benchkit.MS(p50))
	fmt.Printf("| same, p90 | %s |\n", benchkit.MS(p90))
	p50, p90 = roundTrip(tmp, bin, server, nil, *calls)
	fmt.Printf("| MCP tool call round trip, Go SDK test server `echo` over stdio, p50 | %s |\n", benchkit.MS(p50))
	fmt.Printf("| same, p90 | %s |\n", benchkit.MS(p90))
}

func writeConfig(root string, servers map[string]any) {
	dir := filepath.Join(root, "home", ".atomic", "agent")
	benchkit.Check(os.MkdirAll(dir, 0o755))
	b, _ := json.Marshal(map[string]any{"mcpServers": servers})
	benchkit.Check(os.WriteFile(filepath.Join(dir, "mcp.json"), b, 0o644))
}

// startupTimes are medians of the start-up runs: the wall time to the
// first get_state response and the process's CPU time up to it.
type startupTimes struct{ wall, cpu time.Duration }

// startup times the first get_state response after the launch, for each
// configuration (nil: no mcp.json), the configurations taking turns.
func startup(tmp, bin string, configs []map[string]any, runs int) []startupTimes {
	wall := make([][]time.Duration, len(configs))
	cpu := make([][]time.Duration, len(configs))
	for i := 0; i < runs+1; i++ {
		for c, servers := range configs {
			root, err := os.MkdirTemp(tmp, "run-")
			benchkit.Check(err)
			if servers != nil {
				writeConfig(root, servers)
			}
			began := time.Now()
			p := benchkit.StartAtomic(root, bin, nil)
			p.Send(`{"id":"s","type":"get_state"}`)
			p.WaitFor(`"id":"s"`)
			took := time.Since(began)
			used, err := benchkit.CPUTime(p.Cmd.Process.Pid)
			benchkit.Check(err)
			if i > 0 { // the first round warms the caches
				wall[c], cpu[c] = append(wall[c], took), append(cpu[c], used)
			}
			p.Stop()
		}
	}
	out := make([]startupTimes, len(configs))
	for c := range configs {
		out[c] = startupTimes{benchkit.Median(wall[c]), benchkit.Median(cpu[c])}
	}
	return out
}

// row prints a start-up scenario and its difference from the one without
// servers.
func row(what string, t, none startupTimes) {
	fmt.Printf("| %s | %s (CPU %s) |\n", what, benchkit.MS(t.wall), benchkit.MS(t.cpu))
	if t != none {
		fmt.Printf("| difference | %+.1f ms (CPU %+.2f ms) |\n",
			float64((t.wall-none.wall).Microseconds())/1000, float64((t.cpu-none.cpu).Microseconds())/1000)
	}
}

// roundTrip runs one prompt whose faux script calls echo n times (after
// 10 warm-up calls) and returns the p50 and p90 of start-to-end.
func roundTrip(tmp, bin, command string, args []string, n int) (p50, p90 time.Duration) {
	root, err := os.MkdirTemp(tmp, "rt-")
	benchkit.Check(err)
	writeConfig(root, map[string]any{"e": map[string]any{"command": command, "args": args, "exposure": "direct"}})
	const warm = 10
	var script strings.Builder
	for i := 0; i < n+warm; i++ {
		b, _ := json.Marshal(map[string]any{"toolCalls": []map[string]any{{"id": fmt.Sprintf("c%d", i), "name": "mcp__e__echo", "arguments": map[string]any{"message": "ping"}}}})
		script.Write(b)
		script.WriteByte('\n')
	}
	script.WriteString(`{"text":"done"}` + "\n")
	path := filepath.Join(root, "script.jsonl")
	benchkit.Check(os.WriteFile(path, []byte(script.String()), 0o644))
	p := benchkit.StartAtomic(root, bin, nil, "ATOMIC_FAUX_SCRIPT="+path)
	defer p.Stop()
	// Wait until the server is connected (node may take seconds to start
	// on a busy machine; the first prompt waits at most 10 s).
	for i := 0; ; i++ {
		p.Send(fmt.Sprintf(`{"id":"m%d","type":"get_mcp_servers"}`, i))
		if strings.Contains(p.WaitFor(fmt.Sprintf(`"id":"m%d"`, i)), `"state":"connected"`) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	p.Send(`{"id":"p","type":"prompt","message":"go"}`)
	var ds []time.Duration
	for i := 0; i < n+warm; i++ {
		p.WaitFor(`"type":"tool_execution_start"`)
		began := time.Now()
		line := p.WaitFor(`"type":"tool_execution_end"`)
		if strings.Contains(line, `"isError":true`) {
			benchkit.Fail("the echo call failed: %s", line)
		}
		if i >= warm {
			ds = append(ds, time.Since(began))
		}
	}
	p.WaitFor(`"type":"agent_settled"`)
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	return ds[len(ds)/2], ds[len(ds)*9/10]
}
