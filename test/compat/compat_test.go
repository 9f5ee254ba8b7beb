package compat

// The compatibility suite: published pi extension packages (Packages) and
// every example extension of @mariozechner/pi-coding-agent@PiVersion, each
// loaded by pi and by atomic with the same local model server, compared on
// what they register (commands, tools with their schemas) and on one
// command and one tool call.
//
// pi's results are recorded once into testdata/pi-<version>/<case>.json:
//
//	go test ./test/compat -run TestCompat -record -record-node /path/to/node22 -timeout 30m
//
// (it installs pi and the packages with npm into the user cache, like the
// test itself; pi 0.73.1 runs on the node on PATH, the renamed pi of the
// packages written for it (PiNextVersion) on the -record-node binary, 22.19
// or newer). Without -record the test runs atomic only and compares it
// with the fixtures. It skips when npm cannot reach its registry.

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/atomic-go/atomic/host/llm/llmtest"
	"github.com/atomic-go/atomic/internal/e2e"
	"github.com/atomic-go/atomic/internal/npmpkg"
	"github.com/atomic-go/atomic/internal/testreq"
)

var (
	record   = flag.Bool("record", false, "record pi's results into testdata (needs npm)")
	examples = flag.Bool("examples-only", false, "only pi's examples (no package installs)")
	only     = flag.String("record-only", "", "with -record: only the cases whose name contains one of these (separated by commas)")
	nodeNext = flag.String("record-node", "", "with -record: the node binary (22.19 or newer) that runs pi "+PiNextVersion+" (default: "+NodeNextPackage+"@"+NodeNextVersion+" from npm)")
)

// Observation is what one agent did with one extension.
type Observation struct {
	Loaded     bool      `json:"loaded"`
	LoadError  string    `json:"loadError,omitempty"`
	Commands   []Command `json:"commands"`
	Tools      []Tool    `json:"tools"`
	CommandRun *Run      `json:"commandRun,omitempty"`
	ToolRun    *Run      `json:"toolRun,omitempty"`
	// Runtime is the script runtime atomic ran the extension in (from
	// get_extensions; not recorded for pi).
	Runtime string `json:"-"`
}

// Command is a registered command.
type Command struct {
	Name        string `json:"name"`
	Description string `json:"description"`
}

// Tool is a tool as the model sees it.
type Tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

// Run is the visible outcome of a command or a tool call.
type Run struct {
	Name   string   `json:"name"`
	Args   string   `json:"args"`
	Output []string `json:"output"`
	// Model is what the model answers while the command runs (a command
	// that asks the model, in a nested session or directly), one text a
	// request.
	Model []string `json:"model,omitempty"`
}

// Case is one extension of the suite.
type Case struct {
	Name string // package name or examples/<file>
	Path string // what -e is given
	Pi   string // the pi version of its fixture
}

// startTimeout bounds an agent's start with its extension (pi needs
// seconds to start; much more on a busy machine).
var startTimeout = 5 * time.Minute

var builtinTools = map[string]bool{"read": true, "bash": true, "edit": true, "write": true, "grep": true, "find": true, "ls": true}

// agentProc is an agent in --mode rpc driven over pipes.
type agentProc struct {
	t     *testing.T
	cmd   *exec.Cmd
	stdin interface{ Write([]byte) (int, error) }
	mu    sync.Mutex
	cond  *sync.Cond
	recs  []map[string]any
	eof   bool
	n     int
}

func startAgent(t *testing.T, argv, env []string, dir string) *agentProc {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = env
	cmd.Dir = dir
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = nil
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	a := &agentProc{t: t, cmd: cmd, stdin: in}
	a.cond = sync.NewCond(&a.mu)
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			var r map[string]any
			if json.Unmarshal(sc.Bytes(), &r) != nil {
				continue
			}
			if r["type"] == "extension_ui_request" {
				switch r["method"] {
				case "select", "confirm", "input", "editor":
					a.send(map[string]any{"type": "extension_ui_response", "id": r["id"], "cancelled": true})
				}
			}
			a.mu.Lock()
			a.recs = append(a.recs, r)
			a.cond.Broadcast()
			a.mu.Unlock()
		}
		a.mu.Lock()
		a.eof = true
		a.cond.Broadcast()
		a.mu.Unlock()
	}()
	t.Cleanup(func() {
		in.Close()
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	})
	return a
}

func (a *agentProc) send(cmd map[string]any) {
	b, _ := json.Marshal(cmd)
	a.stdin.Write(append(b, '\n'))
}

// request sends a command and waits for its response; it returns the
// index of the response and the response.
func (a *agentProc) request(cmd map[string]any, timeout time.Duration) (int, map[string]any, error) {
	a.mu.Lock()
	a.n++
	id := fmt.Sprintf("compat-%d", a.n)
	a.mu.Unlock()
	cmd["id"] = id
	a.send(cmd)
	i, r := a.wait(0, timeout, func(r map[string]any) bool { return r["type"] == "response" && r["id"] == id })
	if r == nil {
		return i, nil, fmt.Errorf("no response to %v", cmd["type"])
	}
	return i, r, nil
}

func (a *agentProc) wait(from int, timeout time.Duration, match func(map[string]any) bool) (int, map[string]any) {
	deadline := time.Now().Add(timeout)
	timer := time.AfterFunc(timeout, func() { a.mu.Lock(); a.cond.Broadcast(); a.mu.Unlock() })
	defer timer.Stop()
	a.mu.Lock()
	defer a.mu.Unlock()
	for i := from; ; {
		for ; i < len(a.recs); i++ {
			if match(a.recs[i]) {
				return i, a.recs[i]
			}
		}
		if a.eof || time.Now().After(deadline) {
			return i, nil
		}
		a.cond.Wait()
	}
}

// settle returns once no record has arrived for quiet (at most after max).
func (a *agentProc) settle(quiet, max time.Duration) {
	deadline := time.Now().Add(max)
	for time.Now().Before(deadline) {
		if _, r := a.wait(a.count(), quiet, func(map[string]any) bool { return true }); r == nil {
			return
		}
	}
}

func (a *agentProc) count() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.recs)
}

func (a *agentProc) since(i int) []map[string]any {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]map[string]any(nil), a.recs[min(i, len(a.recs)):]...)
}

const modelsJSON = `{"providers": {"local": {"baseUrl": %q, "api": "openai-completions", "apiKey": "compat-key",
  "models": [{"id": "local-model", "name": "Local Model", "contextWindow": 200000, "maxTokens": 1024}]}}}`

// observe runs one agent on one extension. plan chooses the command and
// tool to run from what was registered (nil: none).
func observe(t *testing.T, argv []string, envFor func(home string) []string, c Case, plan func(Observation) (cmd *Run, tool *Run)) Observation {
	home, cwd := t.TempDir(), t.TempDir()
	obs := observeIn(t, home, cwd, argv, envFor, c, plan)
	// Paths of this machine and run become placeholders, so fixtures
	// recorded elsewhere compare equal.
	b, err := json.Marshal(obs)
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	pairs := []string{home, "<home>", cwd, "<cwd>"}
	if root, err := npmpkg.CacheRoot(); err == nil {
		pairs = append(pairs, root, "<npm>")
	}
	text = strings.NewReplacer(pairs...).Replace(text)
	var out Observation
	if err := json.Unmarshal([]byte(text), &out); err != nil {
		t.Fatal(err)
	}
	out.Runtime = obs.Runtime
	return out
}

func observeIn(t *testing.T, home, cwd string, argv []string, envFor func(home string) []string, c Case, plan func(Observation) (cmd *Run, tool *Run)) Observation {
	srv := llmtest.Start(t)
	agentDir := filepath.Join(home, "agent")
	os.MkdirAll(agentDir, 0o700)
	os.WriteFile(filepath.Join(agentDir, "models.json"), []byte(fmt.Sprintf(modelsJSON, srv.URL+"/v1")), 0o600)
	os.WriteFile(filepath.Join(agentDir, "settings.json"), []byte(`{"defaultProjectTrust":"always"}`), 0o600)
	full := append(append([]string(nil), argv...), "--mode", "rpc", "--no-session", "--no-extensions", "--provider", "local", "--model", "local-model", "-e", c.Path)
	a := startAgent(t, full, envFor(home), cwd)
	var obs Observation
	_, resp, err := a.request(map[string]any{"type": "get_commands"}, startTimeout)
	if err != nil {
		obs.LoadError = err.Error()
		return obs
	}
	obs.Loaded = true
	// A load failure may be reported after get_commands answered (an
	// agent that stopped waiting for a slow extension): looked for again
	// after the first prompt.
	loadFailures := func() {
		for _, r := range a.since(0) {
			if r["type"] == "extension_error" && r["event"] == "load" {
				obs.Loaded = false
				obs.LoadError, _ = r["error"].(string)
			}
		}
	}
	loadFailures()
	if data, _ := resp["data"].(map[string]any); data != nil {
		list, _ := data["commands"].([]any)
		for _, x := range list {
			m, _ := x.(map[string]any)
			if m["source"] != "extension" {
				continue
			}
			// pi 1.x's own built-in extensions (builtin:llama.cpp, …).
			if si, _ := m["sourceInfo"].(map[string]any); si != nil && si["source"] == "builtin" {
				continue
			}
			name, _ := m["name"].(string)
			desc, _ := m["description"].(string)
			obs.Commands = append(obs.Commands, Command{Name: name, Description: desc})
		}
	}
	sort.Slice(obs.Commands, func(i, j int) bool { return obs.Commands[i].Name < obs.Commands[j].Name })
	if _, ext, err := a.request(map[string]any{"type": "get_extensions"}, 30*time.Second); err == nil {
		data, _ := ext["data"].(map[string]any)
		list, _ := data["extensions"].([]any)
		seen := map[string]bool{}
		var rts []string
		for _, x := range list {
			m, _ := x.(map[string]any)
			if r, _ := m["runtime"].(string); r != "" && !seen[r] {
				seen[r] = true
				rts = append(rts, r)
			}
		}
		obs.Runtime = strings.Join(rts, "+")
	}
	// The tools the model is offered: from the first model request.
	srv.Enqueue(llmtest.OpenAIChat(llmtest.Turn{Text: "ok"}))
	from, _, err := a.request(map[string]any{"type": "prompt", "message": "hello"}, 30*time.Second)
	if err == nil {
		a.wait(from, 60*time.Second, func(r map[string]any) bool { return r["type"] == "agent_end" })
	}
	if reqs := srv.Requests(); len(reqs) > 0 {
		var body struct {
			Tools []struct {
				Function Tool `json:"function"`
			} `json:"tools"`
		}
		json.Unmarshal(reqs[0].Body, &body)
		for _, tl := range body.Tools {
			if builtinTools[tl.Function.Name] {
				continue
			}
			tl.Function.Parameters = normJSON(tl.Function.Parameters)
			obs.Tools = append(obs.Tools, tl.Function)
		}
	}
	sort.Slice(obs.Tools, func(i, j int) bool { return obs.Tools[i].Name < obs.Tools[j].Name })
	loadFailures()
	if plan == nil {
		return obs
	}
	cmdRun, toolRun := plan(obs)
	if cmdRun != nil {
		// pi answers the prompt when the command has finished, atomic at
		// once (the command runs in the background): what the command
		// showed from the request to a round trip after the response is
		// its output. What the previous turn's notifications still bring
		// (a turn_end handler's status, sent after agent_end) goes first.
		a.settle(2*time.Second, 15*time.Second)
		for _, text := range cmdRun.Model {
			srv.Enqueue(llmtest.OpenAIChat(llmtest.Turn{Text: text}))
		}
		from := a.count()
		_, _, err := a.request(map[string]any{"type": "prompt", "message": "/" + cmdRun.Name + " " + cmdRun.Args}, 30*time.Second)
		if err == nil {
			a.request(map[string]any{"type": "get_state"}, 30*time.Second)
			// Neither agent signals a command's end (atomic's runs in the
			// background): the output is complete once the agent has been
			// quiet for a while.
			// (3 s: a command in the Node runtime on a loaded CI machine
			// can be silent for more than a second before it shows
			// anything.)
			a.settle(3*time.Second, 20*time.Second)
			cmdRun.Output = visible(a.since(from))
		}
		obs.CommandRun = cmdRun
	}
	if toolRun != nil {
		srv.Enqueue(
			llmtest.OpenAIChat(llmtest.Turn{ToolCalls: []llmtest.Call{{ID: "call_compat_1", Name: toolRun.Name, Args: toolRun.Args}}}),
			llmtest.OpenAIChat(llmtest.Turn{Text: "done"}),
		)
		from, _, err := a.request(map[string]any{"type": "prompt", "message": "use the tool"}, 30*time.Second)
		if err == nil {
			a.wait(from, 60*time.Second, func(r map[string]any) bool { return r["type"] == "agent_end" })
			for _, r := range a.since(from) {
				if r["type"] == "tool_execution_end" {
					toolRun.Output = append(toolRun.Output, fmt.Sprintf("isError=%v %s", r["isError"], resultText(r["result"])))
				}
			}
		}
		obs.ToolRun = toolRun
	}
	return obs
}

func resultText(v any) string {
	m, _ := v.(map[string]any)
	blocks, _ := m["content"].([]any)
	var sb strings.Builder
	for _, b := range blocks {
		if bm, ok := b.(map[string]any); ok {
			s, _ := bm["text"].(string)
			sb.WriteString(s)
		}
	}
	return sb.String()
}

// visible is what a user sees of a command: notifications, dialogs and
// status lines, and the custom messages it sends.
func visible(recs []map[string]any) []string {
	var out []string
	for _, r := range recs {
		switch r["type"] {
		case "extension_ui_request":
			var parts []string
			for _, k := range []string{"method", "title", "message", "notifyType", "statusKey", "statusText", "text"} {
				if v, ok := r[k]; ok {
					parts = append(parts, fmt.Sprintf("%s=%v", k, v))
				}
			}
			out = append(out, "ui "+strings.Join(parts, " "))
		case "message_end":
			m, _ := r["message"].(map[string]any)
			if m["role"] == "custom" {
				b, _ := json.Marshal(m["content"])
				out = append(out, fmt.Sprintf("message %v %s", m["customType"], b))
			}
		}
	}
	return out
}

func normJSON(raw json.RawMessage) json.RawMessage {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return raw
	}
	b, _ := json.Marshal(v)
	return b
}

// prefetch installs the suite's npm packages four at a time (an install
// mostly waits for the registry), so a clean machine does not install
// them one after the other; problems are reported by the ensure that
// follows for each.
func prefetch() {
	var wg sync.WaitGroup
	sem := make(chan struct{}, 4)
	get := func(name, version string) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
			defer cancel()
			npmpkg.Ensure(ctx, name, version)
		}()
	}
	get("@mariozechner/pi-coding-agent", PiVersion)
	if nodeNextPackaged() {
		get(NodeNextPackage, NodeNextVersion)
	}
	if *record {
		get("@earendil-works/pi-coding-agent", PiNextVersion)
	}
	for _, p := range Packages {
		if !*examples {
			get(p.Name, p.Version)
		}
	}
	wg.Wait()
}

// cases lists the suite: the packages, then pi's examples.
func cases(t *testing.T, pi npmpkg.Install) []Case {
	var out []Case
	for _, p := range Packages {
		if *examples {
			break
		}
		c := Case{Name: p.Name, Pi: p.Pi}
		if c.Pi == "" {
			c.Pi = PiVersion
		}
		if _, err := os.Stat(fixtureFile(c)); err != nil && !*record {
			// Not recorded: the test would skip it anyway; spare the install.
			out = append(out, c)
			continue
		}
		c.Path = Ensure(t, p.Name, p.Version).PackageDir()
		out = append(out, c)
	}
	dir := filepath.Join(pi.PackageDir(), "examples", "extensions")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		name := e.Name()
		if !e.IsDir() && !strings.HasSuffix(name, ".ts") {
			continue
		}
		out = append(out, Case{Name: "examples/" + name, Path: filepath.Join(dir, name), Pi: PiVersion})
	}
	return out
}

// plans are the command and tool call run for a case (from what pi
// registered, so both agents run the same).
var plans = map[string]func(Observation) (*Run, *Run){
	// A side question: a nested session that asks the model.
	"pi-btw": func(o Observation) (*Run, *Run) {
		return &Run{Name: "btw", Args: "what does compat mean?", Model: []string{"It means compatible."}}, nil
	},
}

func defaultPlan(o Observation) (*Run, *Run) {
	var cmd, tool *Run
	if len(o.Commands) > 0 {
		cmd = &Run{Name: o.Commands[0].Name}
	}
	if len(o.Tools) > 0 {
		b, _ := json.Marshal(Sample(o.Tools[0].Parameters))
		tool = &Run{Name: o.Tools[0].Name, Args: string(b)}
	}
	return cmd, tool
}

func fixtureDir(pi string) string { return filepath.Join("testdata", "pi-"+pi) }

// fixtureFile is where pi's observation of one case is kept.
func fixtureFile(c Case) string {
	return filepath.Join(fixtureDir(c.Pi), strings.NewReplacer("/", "__", "@", "").Replace(c.Name)+".json")
}

func TestCompat(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		testreq.Missing(t, "node", "node is not on PATH (.ci/run installs Debian's nodejs)")
	}
	prefetch()
	pi := Ensure(t, "@mariozechner/pi-coding-agent", PiVersion)
	all := cases(t, pi)
	if *record {
		clis := map[string][]string{PiVersion: {"node", filepath.Join(pi.PackageDir(), "dist", "cli.js")}}
		t.Run("record", func(t *testing.T) {
			for _, c := range all {
				if !selected(c.Name) {
					continue
				}
				argv, ok := clis[c.Pi]
				if !ok && c.Pi == PiNextVersion {
					next := Ensure(t, "@earendil-works/pi-coding-agent", PiNextVersion)
					node := *nodeNext
					if node == "" {
						node = NextNode(t)
					}
					argv = []string{node, filepath.Join(next.PackageDir(), "dist", "cli.js")}
					clis[c.Pi] = argv
				}
				t.Run(c.Name, func(t *testing.T) {
					t.Parallel()
					o := observe(t, argv, func(home string) []string {
						return append(cleanEnv(), "HOME="+home, "PI_CODING_AGENT_DIR="+filepath.Join(home, "agent"), "PI_OFFLINE=1", "PI_SKIP_VERSION_CHECK=1")
					}, c, planFor(c))
					b, _ := json.MarshalIndent(o, "", "  ")
					if err := os.MkdirAll(fixtureDir(c.Pi), 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(fixtureFile(c), append(b, '\n'), 0o644); err != nil {
						t.Fatal(err)
					}
				})
			}
		})
		return
	}
	bin := e2e.Binary(t)
	for _, c := range all {
		t.Run(c.Name, func(t *testing.T) {
			t.Parallel()
			b, err := os.ReadFile(fixtureFile(c))
			if err != nil {
				// A case of the suite without its fixture is a gap of the
				// suite, not of this machine: where npm is required (CI)
				// it fails.
				testreq.Missing(t, "npm", "pi's behaviour with %s is not recorded (%v): record it with -record", c.Name, err)
			}
			var want Observation
			if err := json.Unmarshal(b, &want); err != nil {
				t.Fatal(err)
			}
			env := cleanEnv()
			if c.Pi == PiNextVersion {
				// Packages written for pi 1.x may use what its Node (22.19
				// or newer) has and Node 20 lacks (node:sqlite): atomic's
				// Node runtime gets the same Node as pi had.
				env = withPath(env, filepath.Dir(NextNode(t)))
			}
			got := observe(t, []string{bin}, func(home string) []string {
				return append(env, "HOME="+home, "ATOMIC_CODING_AGENT_DIR="+filepath.Join(home, "agent"))
			}, c, func(Observation) (*Run, *Run) { return copyRun(want.CommandRun), copyRun(want.ToolRun) })
			compare(t, c, want, got)
		})
	}
}

// selected says whether -record-only selects the case.
func selected(name string) bool {
	if *only == "" {
		return true
	}
	for _, s := range strings.Split(*only, ",") {
		if s = strings.TrimSpace(s); s != "" && strings.Contains(name, s) {
			return true
		}
	}
	return false
}

func planFor(c Case) func(Observation) (*Run, *Run) {
	if p, ok := plans[c.Name]; ok {
		return p
	}
	return defaultPlan
}

func copyRun(r *Run) *Run {
	if r == nil {
		return nil
	}
	return &Run{Name: r.Name, Args: r.Args, Model: r.Model}
}

// withPath puts dir first on the PATH of env.
func withPath(env []string, dir string) []string {
	out := append([]string(nil), env...)
	for i, kv := range out {
		if strings.HasPrefix(kv, "PATH=") {
			out[i] = "PATH=" + dir + string(os.PathListSeparator) + kv[len("PATH="):]
			return out
		}
	}
	return append(out, "PATH="+dir)
}

func cleanEnv() []string {
	var out []string
	for _, kv := range os.Environ() {
		k := kv[:strings.IndexByte(kv, '=')]
		if strings.HasSuffix(k, "_API_KEY") || strings.HasPrefix(k, "ATOMIC_") || strings.HasPrefix(k, "PI_") || k == "HOME" {
			continue
		}
		out = append(out, kv)
	}
	return out
}

// accepted are differences from pi that are meant or meaningless (case →
// aspect → why), and gaps are differences still to fix (the same form):
// both are still compared and reported in the row (docs/compat.md), but
// do not fail.
var accepted = map[string]map[string]string{
	"examples/bookmark.ts":               {"command run": "the label holds the time"},
	"@baochunli/pi-collaborating-agents": {"tool run": "a random agent name", "command run": "a random agent name; pi colours the status with its theme"},
	"examples/plan-mode":                 {"command run": "pi colours the status with its terminal theme; atomic sends plain text"},
	"examples/qna.ts":                    {"command run": "setEditorText(undefined): atomic sends an empty text, pi no text field"},
	"examples/summarize.ts":              {"command run": "the message of the model registry for a model that is not configured"},
	"pi-markdown-preview":                {"commands": "the extension names its cache directory from PI_CODING_AGENT_DIR, which atomic does not set"},
	"examples/trigger-compact.ts":        {"command run": "atomic reports the compaction failing (too small a session) to the extension's onError; pi reports nothing by then"},
	"@tintinweb/pi-subagents":            {"tool run": "the text holds the nested run's duration (\"Agent completed in 0.1s\")"},
}

var gaps = map[string]map[string]string{}

// compare fails the test on each difference from pi (except the accepted
// ones) and logs the case's row of the results table (docs/compat.md).
func compare(t *testing.T, c Case, want, got Observation) {
	t.Helper()
	j := func(v any) string { b, _ := json.MarshalIndent(v, "", " "); return string(b) }
	cells := []string{}
	check := func(aspect string, present bool, w, g any) {
		switch {
		case !present:
			cells = append(cells, "–")
		case j(w) == j(g):
			cells = append(cells, "same")
		case accepted[c.Name][aspect] != "":
			cells = append(cells, "differs: "+accepted[c.Name][aspect])
			t.Logf("%s differs (accepted: %s)\npi: %s\natomic: %s", aspect, accepted[c.Name][aspect], j(w), j(g))
		case gaps[c.Name][aspect] != "":
			cells = append(cells, "DIFFERS ("+gaps[c.Name][aspect]+")")
			t.Logf("%s differs (known %s)\npi: %s\natomic: %s", aspect, gaps[c.Name][aspect], j(w), j(g))
		default:
			cells = append(cells, "DIFFERS")
			t.Errorf("%s differs\npi: %s\natomic: %s", aspect, j(w), j(g))
		}
	}
	loaded := func(o Observation) string {
		if o.Loaded {
			return "loads"
		}
		return "does not load"
	}
	if want.Loaded == got.Loaded {
		cells = append(cells, loaded(want))
	} else {
		cells = append(cells, fmt.Sprintf("DIFFERS: pi %s, atomic %s", loaded(want), loaded(got)))
		t.Errorf("loaded: pi %v (%s), atomic %v (%s)", want.Loaded, want.LoadError, got.Loaded, got.LoadError)
	}
	check("commands", want.Loaded, want.Commands, got.Commands)
	check("tools", want.Loaded, want.Tools, got.Tools)
	check("command run", want.CommandRun != nil, want.CommandRun, got.CommandRun)
	check("tool run", want.ToolRun != nil, want.ToolRun, got.ToolRun)
	runtime := got.Runtime
	if runtime == "" {
		runtime = "–"
	}
	t.Logf("COMPAT-ROW|%s|%s|%s|%s", c.Name, c.Pi, runtime, strings.Join(cells, "|"))
}
