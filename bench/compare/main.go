// Command compare measures atomic and the reference agent side by side,
// in one run, against the same local OpenAI-compatible server configured
// through models.json in an isolated agent directory:
//
//   - cold start: process start to the first get_state response (median);
//   - peak RSS (VmHWM of the process tree) after one prompt round trip;
//   - a prompt streaming 2,000 deltas, from sending it to agent_end
//     (median), and the stdout bytes it produced;
//   - 1,000 sequential get_state round trips on one process.
//
// The reference agent is pi (npm @mariozechner/pi-coding-agent, pinned),
// started with node; it is installed once into the user cache. Atomic's
// own package (@bastani/atomic) is not on the npm registry reachable from
// the project machine, so pi is the reference that can be measured.
//
//	go run ./bench/compare                 # builds ./cmd/atomic first
//	go run ./bench/compare -bin ./atomic -cold 10 -stream 5
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
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
	"github.com/atomic-go/atomic/internal/npmpkg"
)

const (
	piPackage = "@mariozechner/pi-coding-agent"
	piVersion = "0.73.1"
	modelID   = "bench-model"
)

type config struct {
	cold, stream, roundTrips, deltas int
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
	StreamBytes     int64 // median stdout bytes of one streaming prompt
	RoundTrips      time.Duration
	UpdatesPerReply int
}

func main() {
	bin := flag.String("bin", "", "atomic binary (default: build ./cmd/atomic)")
	cold := flag.Int("cold", 10, "cold start samples")
	stream := flag.Int("stream", 5, "streaming prompt samples (after one warm-up)")
	roundTrips := flag.Int("roundtrips", 1000, "sequential get_state round trips")
	deltas := flag.Int("deltas", 2000, "deltas of the streaming reply")
	only := flag.String("only", "", "measure only this agent: atomic or pi")
	asJSON := flag.Bool("json", false, "print the figures as JSON")
	var extraEnv envList
	flag.Var(&extraEnv, "env", "KEY=VALUE added to atomic's environment (repeatable; e.g. ATOMIC_CPUPROFILE with a -tags pprof build)")
	flag.Parse()
	benchkit.Name = "compare"
	cfg := config{cold: *cold, stream: *stream, roundTrips: *roundTrips, deltas: *deltas}

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
	models := fmt.Sprintf(`{"providers": {"local": {"baseUrl": %q, "api": "openai-completions", "apiKey": "bench-key",
	  "models": [{"id": %q, "name": "Bench Model", "reasoning": false, "input": ["text"], "contextWindow": 128000, "maxTokens": 16384,
	    "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0}}]}}}`, srv.URL+"/v1", modelID)

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
	if *only != "pi" {
		targets = append(targets, atomicT)
	}
	if *only != "atomic" {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		inst, err := npmpkg.Ensure(ctx, piPackage, piVersion)
		cancel()
		if errors.Is(err, npmpkg.ErrUnreachable) {
			benchkit.Fail("cannot install the reference agent: %v", err)
		}
		benchkit.Check(err)
		node, _ := exec.Command("node", "--version").Output()
		targets = append(targets, target{
			Name: "pi", Version: piVersion + " (node " + strings.TrimSpace(string(node)) + ")", agentIn: "agent",
			argv: append([]string{"node", filepath.Join(inst.PackageDir(), "dist", "cli.js")}, common...),
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
	for i := 0; i <= cfg.stream; i++ {
		if err := p.request("n"+strconv.Itoa(i), `{"type":"new_session"}`); err != nil {
			return f, err
		}
		before, updates := p.bytes, p.updates
		t0 := time.Now()
		if err := p.send(`{"id":"sp` + strconv.Itoa(i) + `","type":"prompt","message":"stream please"}`); err != nil {
			return f, err
		}
		if err := p.waitFor(`{"type":"agent_end"`); err != nil {
			return f, err
		}
		d := time.Since(t0)
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
	}
	p.close()
	f.Stream = benchkit.Median(f.Streams)
	f.StreamBytes = benchkit.Median(sizes)

	// Sequential round trips on one process, after a warm-up command.
	p, err = tg.start(work, models)
	if err != nil {
		return f, err
	}
	if err := p.request("w", `{"type":"get_state"}`); err != nil {
		return f, err
	}
	t0 := time.Now()
	for i := 0; i < cfg.roundTrips; i++ {
		if err := p.request("r"+strconv.Itoa(i), `{"type":"get_state"}`); err != nil {
			return f, err
		}
	}
	f.RoundTrips = time.Since(t0)
	p.close()
	return f, nil
}

func printTable(targets []target, all []figures, cfg config) {
	fmt.Printf("machine: %s\n", machine())
	for _, tg := range targets {
		fmt.Printf("%s: %s\n", tg.Name, tg.Version)
	}
	fmt.Println()
	if len(all) != 2 {
		for _, f := range all {
			fmt.Printf("%s: cold start %s, peak RSS %.1f MB (anon %.1f, file %.1f), %d-delta prompt %s (%d bytes), %d round trips %s\n",
				f.Agent, ms(f.ColdStart), mb(f.PeakRSSKiB), mb(f.RSSAnonKiB), mb(f.RSSFileKiB), cfg.deltas, ms(f.Stream), f.StreamBytes, cfg.roundTrips, ms(f.RoundTrips))
		}
		return
	}
	a, r := all[0], all[1]
	fmt.Printf("| measure | atomic | pi | atomic / pi | target | met |\n|---|---|---|---|---|---|\n")
	row := func(name string, av, rv float64, unit string, target float64) {
		ratio := av / rv
		met := "yes"
		if ratio > target {
			met = "**no**"
		}
		fmt.Printf("| %s | %s | %s | 1/%.0f (%.3f) | ≤ 1/%.0f | %s |\n", name, unit2(av, unit), unit2(rv, unit), 1/ratio, ratio, 1/target, met)
	}
	row(fmt.Sprintf("cold start to the first `get_state` response (median of %d)", cfg.cold),
		float64(a.ColdStart)/1e6, float64(r.ColdStart)/1e6, "ms", 1.0/50)
	row("peak RSS after one prompt round trip (VmHWM, process tree)", mb(a.PeakRSSKiB), mb(r.PeakRSSKiB), "MB", 1.0/5)
	fmt.Printf("| of which, at that moment: anonymous / file-backed (the executable's pages) | %.1f / %.1f MB | %.1f / %.1f MB | | | |\n",
		mb(a.RSSAnonKiB), mb(a.RSSFileKiB), mb(r.RSSAnonKiB), mb(r.RSSFileKiB))
	row(fmt.Sprintf("%d-delta prompt, send to `agent_end` (median of %d)", cfg.deltas, cfg.stream),
		float64(a.Stream)/1e6, float64(r.Stream)/1e6, "ms", 1.0/5)
	fmt.Printf("| stdout bytes of that prompt | %s | %s | 1/%.0f | | |\n", kb(a.StreamBytes), kb(r.StreamBytes), float64(r.StreamBytes)/float64(a.StreamBytes))
	row(fmt.Sprintf("%d sequential `get_state` round trips", cfg.roundTrips),
		float64(a.RoundTrips)/1e6, float64(r.RoundTrips)/1e6, "ms", 1.0/3)
	fmt.Println()
	fmt.Printf("samples (ms): atomic cold %s; pi cold %s; atomic stream %s; pi stream %s\n",
		list(a.ColdStarts), list(r.ColdStarts), list(a.Streams), list(r.Streams))
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

// ms keeps this program's format, rounded from nanoseconds (benchkit.MS
// truncates to whole microseconds first).
func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d)/1e6) }
func mb(kib int64) float64      { return float64(kib) / 1024 }
func kb(b int64) string         { return fmt.Sprintf("%.0f KB", float64(b)/1000) }

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
