// Package parity checks that the three engines of script extensions —
// goja in process, goja isolated in a child process, and Node — run the
// same extensions the same way: the same host calls with the same
// arguments, and the same handler results for the same events, over one
// scripted scenario (scenario_test.go) and one recording host
// (host_test.go). See docs/extensions.md.
package parity

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/atomic-go/atomic/host/extensions"
	"github.com/atomic-go/atomic/host/extensions/grpcext"
	"github.com/atomic-go/atomic/host/extensions/jsext"
	"github.com/atomic-go/atomic/host/extensions/nodeext"
	"github.com/atomic-go/atomic/host/hooks"
	"github.com/atomic-go/atomic/test/compat"
)

// TestMain lets the test binary serve isolated scripts, as the atomic
// binary does with its hidden command.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == jsext.ServeCommand {
		os.Exit(jsext.ServeChild(os.Args[2:]))
	}
	os.Exit(m.Run())
}

var (
	only    = flag.String("parity-only", "", "run only the corpus items whose name contains this")
	show    = flag.String("parity-show", "", "log the records of the items whose name contains this")
	showLog = flag.Bool("parity-log", false, "log what the runtimes log")
)

// item is one extension of the corpus.
type item struct {
	name string
	spec extensions.Spec
}

// engine makes one engine's runtime and the spec it loads an extension
// with.
type engine struct {
	name    string
	runtime func(agentDir string) extensions.Runtime
	spec    func(extensions.Spec) extensions.Spec
}

func same(s extensions.Spec) extensions.Spec { return s }

func engines(node string, log *slog.Logger) []engine {
	plugins := func() *grpcext.Runtime { return &grpcext.Runtime{Log: log, HostVersion: hostVersion} }
	return []engine{
		{"goja", func(agentDir string) extensions.Runtime {
			return &jsext.Runtime{Log: log, HostVersion: hostVersion, AgentDir: agentDir}
		}, same},
		{"goja-isolated", func(agentDir string) extensions.Runtime {
			return &jsext.Runtime{Log: log, HostVersion: hostVersion, AgentDir: agentDir, Process: plugins()}
		}, func(s extensions.Spec) extensions.Spec { s.Options.Isolation = "process"; return s }},
		{"node", func(agentDir string) extensions.Runtime {
			return &nodeext.Runtime{Log: log, HostVersion: hostVersion, AgentDir: agentDir, Plugins: plugins(), Node: node}
		}, same},
	}
}

const hostVersion = "parity"

// workers is how many extensions of the corpus one engine runs at once.
const workers = 4

// inherent are the differences between engines that cannot be removed:
// corpus item → engine → why. The item is still run in that engine;
// its record is not compared.
var inherent = map[string]map[string]string{
	// What goja lacks and Node has: the extension does not load in goja
	// (both goja engines agree), and extensionRuntime "auto" runs it in
	// Node (nodeext/fallback.go).
	"@agentuity/pi":                                       {"node": "goja lacks the global Blob"},
	"@juicesharp/rpiv-advisor/index.ts":                   {"node": `goja lacks the module "typebox/value"`},
	"@juicesharp/rpiv-web-tools/index.ts":                 {"node": `goja lacks the module "typebox/value"`},
	"pi-mcp-adapter/index.ts":                             {"node": `goja lacks the module "typebox/value"`},
	"@juicesharp/rpiv-ask-user-question/index.ts":         {"node": "goja's transform refuses this package's top-level await"},
	"@juicesharp/rpiv-todo/index.ts":                      {"node": "goja's transform refuses this package's top-level await"},
	"@samfp/pi-memory/dist/index.js":                      {"node": "goja lacks node:sqlite"},
	"pi-chrome/extensions/chrome-profile-bridge/index.ts": {"node": "goja lacks node:http"},
	"pi-lens/dist/index.js":                               {"node": "goja lacks node:https"},
	"pi-markdown-preview/index.ts":                        {"node": `goja's regular expressions lack \P{ASCII}`},
	"pi-subagents/index.ts":                               {"node": "goja lacks node:worker_threads"},
	"pi-web-access/index.ts":                              {"node": "goja lacks node:async_hooks"},
	"@gotgenes/pi-permission-system/src/index.ts":         {"node": "goja lacks WebAssembly (web-tree-sitter parses the bash command): the gate fails closed"},
	"file-trigger.ts":                                     {"node": "goja lacks fs.watch (its session_start handler fails in goja, Node's watch fails on a missing file)"},
	// Both fail; each engine's module resolver words it its own way.
	"sandbox/index.ts": {"node": "@anthropic-ai/sandbox-runtime is not installed: goja's and Node's resolvers word the failure differently"},
}

// loadsNowhere are the extensions of the corpus no engine loads, and why.
var loadsNowhere = map[string]string{
	"sandbox/index.ts": "it needs @anthropic-ai/sandbox-runtime, which pi's examples do not install (pi does not load it either)",
}

// chance are the differences that come from randomness or timing inside
// the extension, the same form: they may or may not show in a run.
var chance = map[string]map[string]string{
	"@baochunli/pi-collaborating-agents/extensions/collaborating-agents/index.ts": {
		"goja-isolated": "the agent's name is random", "node": "the agent's name is random",
	},
	"@tintinweb/pi-subagents/src/index.ts": {
		"goja-isolated": "the nested run's durations, random ids and spinner frames of its timers",
		"node":          "the nested run's durations, random ids and spinner frames of its timers",
	},
	"@gotgenes/pi-permission-system/src/index.ts": {
		"goja-isolated": "the gate fails when its parser's asynchronous load does: how often it read the session by then is timing",
	},
	// The test runs the whole corpus in one shared Node process, whose
	// extensions share pi.events: whether the package's core extension,
	// loaded for its own corpus item, is there to answer the dock's config
	// request depends on the order of the runs (alone, the dock gets no
	// answer, as in goja).
	"@aliou/pi-processes/extensions/processes-dock/index.ts": {
		"node": "another corpus item's core extension may answer its request over the shared Node process's pi.events",
	},
}

func TestParity(t *testing.T) {
	node := compat.NextNode(t)
	items := corpus(t)
	root := t.TempDir()
	// One project directory and one agent directory, the same paths in
	// every engine (so no path needs normalising), emptied before each
	// engine runs the corpus (so no engine sees what another left).
	cwd, agentDir := filepath.Join(root, "project"), filepath.Join(root, "agent")
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	if *showLog {
		log = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	var prompt []*hooks.Event
	began := time.Now()
	records := map[string]map[string][]string{}
	var mu sync.Mutex
	engs := engines(node, log)
	for _, e := range engs {
		for _, d := range []string{cwd, agentDir} {
			if err := os.RemoveAll(d); err != nil {
				t.Fatal(err)
			}
			if err := os.MkdirAll(d, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		// A project as pi's examples expect one (they write into .pi).
		if err := os.MkdirAll(filepath.Join(cwd, ".pi"), 0o755); err != nil {
			t.Fatal(err)
		}
		prompt = promptEvents(cwd)
		rt := e.runtime(agentDir)
		start := time.Now()
		work := make(chan item)
		var wg sync.WaitGroup
		for range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for it := range work {
					rec := newRecorder(cwd)
					scenario(rec, func(ctx context.Context) (extensions.Extension, error) {
						return rt.Load(ctx, e.spec(it.spec), rec)
					}, prompt)
					mu.Lock()
					if records[it.name] == nil {
						records[it.name] = map[string][]string{}
					}
					records[it.name][e.name] = rec.lines()
					mu.Unlock()
				}
			}()
		}
		for _, it := range items {
			work <- it
		}
		close(work)
		wg.Wait()
		t.Logf("%s: %d extensions in %v", e.name, len(items), time.Since(start).Round(time.Millisecond))
	}
	if len(items) < 90 && *only == "" {
		t.Errorf("the corpus has %d extensions: some were not found", len(items))
	}
	for _, it := range items {
		failed := 0
		for _, e := range engs {
			for _, l := range records[it.name][e.name] {
				if strings.HasPrefix(l, "load -> error") {
					failed++
				}
			}
		}
		// An extension no engine loads says nothing about parity.
		if why, ok := loadsNowhere[it.name]; ok != (failed == len(engs)) {
			t.Errorf("%s: loaded in %d of %d engines (expected to load nowhere: %v %s)", it.name, len(engs)-failed, len(engs), ok, why)
		}
		want := normalise(it.name, engs[0].name, records[it.name][engs[0].name], began, time.Now())
		for _, e := range engs[1:] {
			got := normalise(it.name, e.name, records[it.name][e.name], began, time.Now())
			why := inherent[it.name][e.name]
			d := diff(want, got)
			if luck := chance[it.name][e.name]; luck != "" {
				if d != "" {
					t.Logf("%s: %s differs (by chance: %s)", it.name, e.name, luck)
				}
				continue
			}
			switch {
			case d == "" && why != "":
				t.Errorf("%s: %s now behaves as %s: remove it from the inherent differences (%s)", it.name, e.name, engs[0].name, why)
			case d != "" && why != "":
				t.Logf("%s: %s differs (inherent: %s)", it.name, e.name, why)
			case d != "":
				t.Errorf("%s: %s differs from %s:\n%s", it.name, e.name, engs[0].name, d)
			}
		}
		if *show != "" && strings.Contains(it.name, *show) {
			for _, e := range engs {
				t.Logf("%s in %s:\n%s", it.name, e.name, strings.Join(records[it.name][e.name], "\n"))
			}
		}
	}
}

// The normalisations: what is inherently different between engines, and
// why. There are six.
//
//  1. Host calls the API makes asynchronously (host_test.go, asyncMethods)
//     are compared as a set: when one reaches the host is the transport's
//     doing (a goroutine in process, another connection than the
//     handler's result from a child or Node), not the extension's.
//  2. The clock: a time stamp an extension takes (Date.now()) within the
//     run is "<now>"; the engines do not run at the same moment.
//  3. goja's child_process runs programs through the host's Exec (the
//     agent's bounds), Node's child_process runs them itself: the goja
//     Exec calls of the items in childProcess are child_process's, and
//     are left out of the goja records.
//  4. The items in unordered call the host from timers or from the
//     continuation of an asynchronous call, whose turn on the event loop
//     depends on when that call was answered: their synchronous host
//     calls are compared as a set too.
//  5. A tool's partial results (onUpdate) follow its output as it is
//     read: a repeat of the same partial result is one.
//  6. An error's position names the line and column of the failing call:
//     goja's column is the call's argument list, V8's the callee, so the
//     column is left out ("(file.ts:9)").

// childProcess: item → the command line its child_process runs.
var childProcess = map[string]string{
	"mac-system-theme.ts": "osascript", // the macOS appearance, read with child_process.exec
	"truncated-tool.ts":   "rg ",       // ripgrep, through child_process.exec
}

// unordered: item → where its host calls come from.
var unordered = map[string]string{
	"trigger-compact.ts": "ctx.compact's onComplete/onError notify when the compaction's answer comes",
}

// stampRE matches a time stamp in milliseconds (13 digits).
var stampRE = regexp.MustCompile(`\b1[0-9]{12}\b`)

// positionRE matches the position an error names: (file:line:column).
var positionRE = regexp.MustCompile(`(\([^()\s]+:\d+):\d+\)`)

func normalise(item, engine string, lines []string, from, to time.Time) []string {
	var out, hosts []string
	for _, l := range lines {
		l = stampRE.ReplaceAllStringFunc(l, func(m string) string {
			ms, _ := strconv.ParseInt(m, 10, 64)
			if t := time.UnixMilli(ms); !t.Before(from.Add(-time.Minute)) && !t.After(to.Add(time.Minute)) {
				return "<now>"
			}
			return m
		})
		l = positionRE.ReplaceAllString(l, "$1)")
		if strings.HasPrefix(l, "tool update ") && len(out) > 0 && out[len(out)-1] == l {
			continue
		}
		if c, ok := childProcess[item]; ok && strings.HasPrefix(engine, "goja") && strings.HasPrefix(l, "host Exec(") && strings.Contains(l, c) {
			continue
		}
		if _, ok := unordered[item]; ok && strings.HasPrefix(l, "host ") {
			hosts = append(hosts, l)
			continue
		}
		out = append(out, l)
	}
	sort.Strings(hosts)
	return append(out, hosts...)
}

// diff shows the first difference of two records with some context, or
// "" when they are equal.
func diff(want, got []string) string {
	n := min(len(want), len(got))
	i := 0
	for i < n && want[i] == got[i] {
		i++
	}
	if i == n && len(want) == len(got) {
		return ""
	}
	var b strings.Builder
	for j := max(0, i-3); j < i; j++ {
		fmt.Fprintf(&b, "    %s\n", want[j])
	}
	for j := i; j < min(len(want), i+4); j++ {
		fmt.Fprintf(&b, "  - %s\n", want[j])
	}
	for j := i; j < min(len(got), i+4); j++ {
		fmt.Fprintf(&b, "  + %s\n", got[j])
	}
	return b.String()
}

// corpus lists the extensions: pi's example extensions (of the pi release
// test/compat records its examples with), the published packages of
// test/compat (installed once into the user cache by npmpkg, as
// test/compat does), and our own script extensions (examples/; the
// first-party extensions of extensions/ are Go plugins, which no script
// engine runs).
func corpus(t *testing.T) []item {
	pi := compat.Ensure(t, "@mariozechner/pi-coding-agent", compat.PiVersion)
	var paths []string
	dir := filepath.Join(pi.PackageDir(), "examples", "extensions")
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		p := filepath.Join(dir, e.Name())
		if e.IsDir() && isFile(filepath.Join(p, "index.ts")) || !e.IsDir() && strings.HasSuffix(e.Name(), ".ts") {
			paths = append(paths, p)
		}
	}
	for _, p := range compat.Packages {
		paths = append(paths, compat.Ensure(t, p.Name, p.Version).PackageDir())
	}
	repo, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	paths = append(paths, filepath.Join(repo, "examples", "js-guard", "guard.js"), filepath.Join(repo, "examples", "ts-todo"))
	d := extensions.Discover(extensions.DiscoverOptions{CLI: paths, NoExtensions: true, Cwd: repo})
	for _, p := range d.Problems {
		t.Errorf("%s: %s", p.Path, p.Message)
	}
	var out []item
	for _, s := range d.Specs {
		if s.Kind != extensions.KindScript {
			continue
		}
		name := s.Path
		if i := strings.LastIndex(name, "/node_modules/"); i >= 0 {
			name = name[i+len("/node_modules/"):] // a package's: <package>/<path>
		}
		for _, base := range []string{dir, repo} {
			if rel, err := filepath.Rel(base, s.Path); err == nil && !strings.HasPrefix(rel, "..") {
				name = rel
				break
			}
		}
		out = append(out, item{name: name, spec: s})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	if pat := *only; pat != "" {
		var some []item
		for _, it := range out {
			if strings.Contains(it.name, pat) {
				some = append(some, it)
			}
		}
		out = some
	}
	return out
}

func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}
