// Package nodeext runs script extensions in Node.js: real Node (>= 20.6)
// started by the agent, out of process like any plugin, speaking the
// plugin protocol (proto/atomic/plugin/v1) through grpcext, so that its
// calls have the hook bus's deadlines and its process grpcext's crash
// rules. The Node side is a host program of ours (node/, bundled into
// dist/ by `go generate` with the npm modules it needs and embedded here):
// it loads extension files unchanged (TypeScript transformed by esbuild
// here, ESM kept as ESM, every Node built-in available because it is
// Node), provides the virtual modules (the pi packages under their
// @mariozechner, @earendil-works and Atomic names, TypeBox) and implements
// the pi extension API by calling the HostService.
//
// One Node process serves every extension this runtime loads (each in its
// own module scope, with its own HostService connection; calls name the
// extension with gRPC metadata); "isolation": "process" gives an extension
// a process of its own. When a process dies every extension it hosted is
// reported (extension_error) and the process is started again. Bounds:
// the hook bus's deadlines per call, --max-old-space-size, a watchdog
// that kills a process whose event loop stops answering, and one that
// kills a process whose resident set (Buffers included) passes its limit.
package nodeext

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc/metadata"

	"github.com/atomic-go/atomic/host/extensions"
	"github.com/atomic-go/atomic/host/extensions/grpcext"
	"github.com/atomic-go/atomic/host/extensions/jsext"
	"github.com/atomic-go/atomic/host/hooks"
	"github.com/atomic-go/atomic/host/llm"
	"github.com/atomic-go/atomic/host/tools"
	"github.com/atomic-go/atomic/internal/fsutil"
)

// Metadata keys of the calls to the Node host.
const (
	ExtensionIDMetadata = "atomic-extension-id"
	ManifestMetadata    = "atomic-extension-manifest"
)

// Version changes when the transform's output changes (cache key).
const Version = "1"

// DefaultMemoryLimitMB is the V8 heap limit of a Node host process.
const DefaultMemoryLimitMB = 1024

// MinNode is the oldest Node this runtime runs on (module.register).
var MinNode = [3]int{20, 6, 0}

// RSSInterval is how often a Node process's resident set is read: memory
// outside the V8 heap (Buffers, native modules) is not bounded by
// --max-old-space-size, so a process past its RSS limit is killed.
var RSSInterval = 200 * time.Millisecond

// Watchdog timing: a process whose event loop does not answer a health
// check for WatchdogTimeout is killed (and restarted by the crash rules).
var (
	WatchdogInterval = 2 * time.Second
	WatchdogTimeout  = 30 * time.Second
)

// Runtime loads script extensions into Node.
type Runtime struct {
	Log         *slog.Logger
	HostVersion string
	AgentDir    string
	// Plugins starts the processes (crash rules, HostService).
	Plugins *grpcext.Runtime
	// OnError reports a process's death for each extension it hosted.
	OnError func(hooks.ExtensionError)
	// Offline gives the extensions extensions.OfflineEnv in their
	// environment (the agent runs offline, as pi's --offline).
	Offline bool
	// MemoryLimitMB bounds each Node process's heap (0: the default).
	MemoryLimitMB int64
	// RSSLimitMB bounds each Node process's resident set, Buffers and
	// native memory included (0: twice the heap limit).
	RSSLimitMB int64
	// Node is the node program; "" looks "node" up on PATH.
	Node string
	// CacheDir holds the host program and transformed files; "" is the
	// user cache directory.
	CacheDir string

	mu      sync.Mutex
	shared  *process
	nextID  atomic.Uint64
	nodeErr error
	nodeBin string
	nodeVer [3]int
	checked bool
	progDir string
	// noHostLane starts processes without a host lane, as on a system
	// that cannot make one (tests of the worker thread that then makes
	// the synchronous calls).
	noHostLane bool
}

// process is one Node host process and the extensions it serves.
type process struct {
	rt    *Runtime
	proc  *grpcext.Process
	mu    sync.Mutex
	exts  map[*extension]bool
	stop  chan struct{}
	once  sync.Once
	alone bool
	// answered is the pid of the process instance that last answered
	// (a health check, or an extension loaded): the watchdog's clock runs
	// only for it.
	answered atomic.Int64
	// killedWhy is why the agent killed the process (the RSS watchdog),
	// reported with the crash instead of the exit status.
	killedWhy atomic.Pointer[string]
}

// Accepts implements extensions.Runtime.
func (rt *Runtime) Accepts(s *extensions.Spec) bool { return s.Kind == extensions.KindScript }

// Available reports whether Node can run extensions here (and why not).
func (rt *Runtime) Available() error {
	_, err := rt.node()
	return err
}

// node finds node and checks its version once.
func (rt *Runtime) node() (string, error) {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if rt.checked {
		return rt.nodeBin, rt.nodeErr
	}
	rt.checked = true
	bin := rt.Node
	if bin == "" {
		bin = "node"
	}
	path, err := exec.LookPath(bin)
	if err != nil {
		rt.nodeErr = fmt.Errorf("Node.js %d.%d or newer is needed and %q is not on PATH", MinNode[0], MinNode[1], bin)
		return "", rt.nodeErr
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, path, "--version").Output()
	if err != nil {
		rt.nodeErr = fmt.Errorf("cannot run %s --version: %w", path, err)
		return "", rt.nodeErr
	}
	v, ok := parseVersion(string(out))
	if !ok || versionLess(v, MinNode) {
		rt.nodeErr = fmt.Errorf("Node.js %d.%d or newer is needed; %s is %s", MinNode[0], MinNode[1], path, strings.TrimSpace(string(out)))
		return "", rt.nodeErr
	}
	rt.nodeBin, rt.nodeVer = path, v
	return path, nil
}

func parseVersion(s string) ([3]int, bool) {
	var v [3]int
	parts := strings.SplitN(strings.TrimPrefix(strings.TrimSpace(s), "v"), ".", 3)
	if len(parts) < 2 {
		return v, false
	}
	for i, p := range parts {
		n, err := strconv.Atoi(strings.TrimFunc(p, func(r rune) bool { return r < '0' || r > '9' }))
		if err != nil {
			return v, false
		}
		v[i] = n
	}
	return v, true
}

func versionLess(a, b [3]int) bool {
	for i := range a {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return false
}

func (rt *Runtime) logger() *slog.Logger {
	if rt.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return rt.Log
}

func (rt *Runtime) cacheDir() string {
	if rt.CacheDir != "" {
		return rt.CacheDir
	}
	d, err := os.UserCacheDir()
	if err != nil {
		d = os.TempDir()
	}
	return filepath.Join(d, "atomic", "nodeext")
}

// programDir writes the host program, its module hooks and the stand-ins
// into a directory named by their hash (once).
func (rt *Runtime) programDir() (string, error) {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if rt.progDir != "" {
		return rt.progDir, nil
	}
	modules, sources := jsext.StandIns()
	shared := jsext.SharedSources()
	standins, err := json.Marshal(map[string]any{"modules": modules, "files": sources, "shared": shared,
		"staleMessage": extensions.StaleContextMessage, "builtinTools": tools.BuiltinFactoryInfos()})
	if err != nil {
		return "", err
	}
	h := sha256.New()
	for _, b := range [][]byte{hostProgram, loaderProgram, standins} {
		h.Write(b)
		h.Write([]byte{0})
	}
	dir := filepath.Join(rt.cacheDir(), "host-"+hex.EncodeToString(h.Sum(nil))[:16])
	for name, data := range map[string][]byte{"host.mjs": hostProgram, "loader.mjs": loaderProgram, "standins.json": standins} {
		p := filepath.Join(dir, name)
		if old, err := os.ReadFile(p); err == nil && bytes.Equal(old, data) {
			continue
		}
		if err := fsutil.WriteBytes(p, data, fsutil.Options{Perm: 0o600, DirPerm: 0o700}); err != nil {
			return "", fmt.Errorf("cannot write the Node extension host: %w", err)
		}
	}
	rt.progDir = dir
	pruneCompileCache(filepath.Join(rt.cacheDir(), "v8"), maxCompileCache)
	return dir, nil
}

// maxCompileCache bounds V8's code cache of the Node host (NODE_COMPILE_CACHE):
// Node adds to it and never removes, so past this size it starts again.
const maxCompileCache = 256 << 20

func pruneCompileCache(dir string, limit int64) {
	var sum int64
	_ = filepath.WalkDir(dir, func(_ string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if info, err := d.Info(); err == nil {
				sum += info.Size()
			}
		}
		return nil
	})
	if sum > limit {
		_ = os.RemoveAll(dir)
	}
}

// Provides reports whether the Node host provides a bare module name
// without a file (the virtual modules; Node's built-ins are Node's).
func Provides(name string) bool {
	switch name {
	case "typebox", "typebox/compile", "typebox/value", "@sinclair/typebox", "@sinclair/typebox/compile", "@sinclair/typebox/value":
		return true
	}
	modules := standInModules()
	if _, ok := modules[name]; ok {
		return true
	}
	if rest, ok := strings.CutPrefix(name, "@earendil-works/"); ok {
		_, ok := modules["@mariozechner/"+rest]
		return ok
	}
	return false
}

// standInModules are the module names of jsext's stand-ins (read once:
// StandIns copies their sources).
var standInModules = sync.OnceValue(func() map[string]string {
	modules, _ := jsext.StandIns()
	return modules
})

func (rt *Runtime) command(node, dir string, heapMB int64) []string {
	limit := heapMB
	if limit <= 0 {
		limit = rt.heapLimitMB()
	}
	// import.meta.resolve with a parent: a bundled file's resolves from
	// where the file is (bundle.go). No --enable-source-maps: the host
	// program maps stack traces itself, reading a bundle's map only when a
	// trace passes through it (Node reads every map at load: about a
	// fifth of the start-up's CPU time with a large package).
	cmd := []string{node, fmt.Sprintf("--max-old-space-size=%d", limit), "--experimental-import-meta-resolve"}
	rt.mu.Lock()
	v := rt.nodeVer
	rt.mu.Unlock()
	// ESM syntax in .js files is detected by default from Node 22.7.
	if !versionLess(v, [3]int{20, 10, 0}) && versionLess(v, [3]int{22, 7, 0}) {
		cmd = append(cmd, "--experimental-detect-module")
	}
	return append(cmd, filepath.Join(dir, "host.mjs"))
}

// Load implements extensions.Runtime.
//
// The extension is loaded as one file (bundle.go) when it can be; else
// (or when its bundle fails to load) file by file from its import graph.
func (rt *Runtime) Load(ctx context.Context, spec extensions.Spec, host extensions.Host) (extensions.Extension, error) {
	return rt.load(ctx, spec, host, nil)
}

// LoadGraph loads an extension whose import graph was read already (the
// graph is used when the extension is not bundled).
func (rt *Runtime) LoadGraph(ctx context.Context, spec extensions.Spec, host extensions.Host, g Graph) (extensions.Extension, error) {
	return rt.load(ctx, spec, host, &g)
}

func (rt *Runtime) load(ctx context.Context, spec extensions.Spec, host extensions.Host, g *Graph) (extensions.Extension, error) {
	node, err := rt.node()
	if err != nil {
		return nil, err
	}
	if rt.Plugins == nil {
		return nil, errors.New("the Node runtime needs the plugin runtime")
	}
	dir, err := rt.programDir()
	if err != nil {
		return nil, err
	}
	if g != nil && g.Problem != "" {
		return nil, errors.New(g.Problem)
	}
	entry := spec.Entry()
	if g != nil {
		entry = g.Entry
	}
	name := scriptName(entry)
	if b := rt.bundle(dir, entry); b.Path != "" {
		man, err := storeManifest(rt.cacheDir(), manifest{Entry: entry, Name: name, Bundle: b.Path, Hooks: b.Hooks})
		if err == nil {
			ext, err := rt.attach(ctx, spec, host, node, dir, man)
			if err == nil || !bundleFailure().MatchString(err.Error()) || ctx.Err() != nil {
				return ext, err
			}
		}
		// A bundle Node could not link or parse: what worked file by file
		// still does.
		rt.logger().Info("Node extension bundle not used: loading it file by file", "extension", entry, "err", err)
	}
	if g == nil {
		a := rt.analyze(entry, Provides)
		g = &a
		if g.Problem != "" {
			return nil, errors.New(g.Problem)
		}
	}
	man, err := writeManifest(rt.cacheDir(), *g, name)
	if err != nil {
		return nil, err
	}
	return rt.attach(ctx, spec, host, node, dir, man)
}

// bundleFailure is a load error that a bundle, not the extension, may
// have caused (a module Node could not parse, find or link).
var bundleFailure = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`SyntaxError|ERR_MODULE_NOT_FOUND|Cannot find module|ERR_REQUIRE_ESM|ERR_UNSUPPORTED|Dynamic require of|does not provide an export named`)
})

// attach starts the extension from its manifest in its Node process.
func (rt *Runtime) attach(ctx context.Context, spec extensions.Spec, host extensions.Host, node, dir, man string) (extensions.Extension, error) {
	alone := false
	switch spec.Options.Isolation {
	case "process":
		alone = true
	case "", "none", "inprocess", "in-process":
	default:
		return nil, fmt.Errorf("unknown isolation %q (use \"process\" or leave it out)", spec.Options.Isolation)
	}
	// The start budget (extensions.StartTimeout) is for the Node process
	// and the extension's own loading: reading its import graph, done
	// before (seconds for a package with hundreds of files on a busy
	// machine), is the agent's own bounded work and does not eat into it.
	// A cancelled load (not a missed deadline) still stops the start.
	parent := ctx
	ctx, cancel := context.WithTimeout(context.WithoutCancel(parent), extensions.StartTimeout)
	defer cancel()
	defer context.AfterFunc(parent, func() {
		if !errors.Is(parent.Err(), context.DeadlineExceeded) {
			cancel()
		}
	})()
	e := &extension{rt: rt, id: strconv.FormatUint(rt.nextID.Add(1), 10), spec: spec}
	// "memoryLimitMB" of an isolated extension bounds its own process (heap,
	// and twice that resident).
	heapMB := rt.heapLimitMB()
	rssLimit := rt.rssLimit()
	if alone && spec.Options.MemoryLimitMB > 0 {
		heapMB, rssLimit = spec.Options.MemoryLimitMB, 2*spec.Options.MemoryLimitMB<<20
	}
	p := rt.processFor(rt.command(node, dir, heapMB), host, alone, e, rssLimit)
	id := e.id
	pl, err := rt.Plugins.Attach(ctx, p.proc, spec, host, map[string]string{ExtensionIDMetadata: id, ManifestMetadata: man})
	if err != nil {
		started := p.proc.Started()
		p.remove(e)
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil, loadDeadlineError(spec.Path, started, extensions.StartTimeout)
		}
		return nil, err
	}
	e.Plugin = pl
	p.answered.Store(int64(p.proc.Pid()))
	return e, nil
}

// loadDeadlineError names the extension, the phase it was in and the
// deadline it missed.
func loadDeadlineError(path string, started bool, deadline time.Duration) error {
	phase := "starting the Node extension host"
	if started {
		phase = "loading the extension (its module and its factory function)"
	}
	return fmt.Errorf("Node extension %s did not load within %v: it was still %s", path, deadline, phase)
}

func scriptName(entry string) string {
	base := filepath.Base(entry)
	name := strings.TrimSuffix(base, filepath.Ext(base))
	if name == "index" {
		return filepath.Base(filepath.Dir(entry))
	}
	return name
}

// packageDir is the agent's install directory (the running executable's),
// what getPackageDir() of the pi package stand-in gives in Node as in goja.
func packageDir() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	return filepath.Dir(exe)
}

// processFor returns the process e runs in (the shared one, or a new one
// for an isolated extension) with e added to it.
func (rt *Runtime) processFor(cmd []string, host extensions.Host, alone bool, e *extension, rssLimit int64) *process {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	p := rt.shared
	if alone || p == nil {
		p = &process{rt: rt, exts: map[*extension]bool{}, stop: make(chan struct{}), alone: alone}
		env := []string{"ATOMIC_AGENT_DIR=" + rt.AgentDir, "ATOMIC_HOST_VERSION=" + rt.HostVersion, "ATOMIC_PACKAGE_DIR=" + packageDir(),
			// Node 22.1 and newer keep V8's compiled code of the host
			// program and the bundles here (older ones ignore it).
			"NODE_COMPILE_CACHE=" + filepath.Join(rt.cacheDir(), "v8")}
		if rt.Offline {
			env = append(env, extensions.OfflineEnv()...)
		}
		p.proc = rt.Plugins.NewProcess(cmd, host.HandlerContext().Cwd, env, true, p.crashed)
		// Hook calls take the event lane (the host program lists
		// events.lane): a frame each way instead of an HTTP/2 stream.
		p.proc.EventLane = true
		p.proc.HostLane = !rt.noHostLane
		go p.every(WatchdogInterval, p.watchdogCheck(WatchdogInterval, WatchdogTimeout))
		go p.every(RSSInterval, p.rssCheck(rssLimit))
		if !alone {
			rt.shared = p
		}
	}
	p.mu.Lock()
	p.exts[e] = true
	p.mu.Unlock()
	e.p = p
	return p
}

// remove forgets an extension; the last one ends the process (a new one
// starts with the next load).
func (p *process) remove(e *extension) {
	rt := p.rt
	rt.mu.Lock()
	defer rt.mu.Unlock()
	p.mu.Lock()
	delete(p.exts, e)
	last := len(p.exts) == 0
	p.mu.Unlock()
	if !last {
		return
	}
	p.once.Do(func() { close(p.stop) })
	if rt.shared == p {
		rt.shared = nil
	}
}

func (p *process) extensions() []*extension {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]*extension, 0, len(p.exts))
	for e := range p.exts {
		if e.Plugin != nil {
			out = append(out, e)
		}
	}
	return out
}

func (p *process) crashed(why string) {
	if w := p.killedWhy.Swap(nil); w != nil {
		why = *w
	}
	exts := p.extensions()
	// In a shared process, an extension whose handler was running when
	// the process died (process.exit, an RSS kill…) is the likely cause:
	// it is disabled and its neighbours restart without it (as the goja
	// runtime disables a repeat offender), so that it cannot take them
	// down with it again and again.
	var innocent, offenders []*extension
	for _, e := range exts {
		if !p.alone && e.Plugin.BusyAtLastExit() {
			offenders = append(offenders, e)
		} else {
			innocent = append(innocent, e)
		}
	}
	if len(innocent) == 0 {
		innocent, offenders = offenders, nil
	}
	for _, e := range offenders {
		err := fmt.Errorf("extension disabled: the shared Node extension process died while its handler ran (%s); the other extensions run on without it; restart the agent to try again", why)
		p.remove(e)
		e.Plugin.Disable(err)
		if p.rt.OnError != nil {
			p.rt.OnError(hooks.ExtensionError{ExtensionPath: e.spec.Path, Event: "crash", Error: err.Error()})
		}
	}
	exts = innocent
	for _, e := range exts {
		if p.rt.OnError != nil {
			p.rt.OnError(hooks.ExtensionError{ExtensionPath: e.spec.Path, Event: "crash",
				Error: "the Node extension process died (" + why + "); it is restarted"})
		}
	}
	go func() {
		for _, e := range exts {
			ctx, cancel := context.WithTimeout(context.Background(), extensions.StartTimeout)
			if err := e.Plugin.Restart(ctx); err != nil && p.rt.Log != nil {
				p.rt.Log.Warn("Node extension did not restart", "extension", e.spec.Path, "err", err)
			}
			cancel()
		}
	}()
}

// extension is one extension served by a Node process: the plugin, with
// the extension's id on every call.
type extension struct {
	*grpcext.Plugin
	rt   *Runtime
	p    *process
	id   string
	spec extensions.Spec
	// reason is why it runs in Node (get_extensions).
	reason string
}

func (e *extension) with(ctx context.Context) context.Context {
	md, _ := metadata.FromOutgoingContext(ctx)
	md = md.Copy()
	md.Set(ExtensionIDMetadata, e.id)
	return metadata.NewOutgoingContext(ctx, md)
}

// RuntimeName implements extensions.RuntimeNamer.
func (e *extension) RuntimeName() string { return extensions.RuntimeNode }

// RuntimeReason implements extensions.RuntimeReasoner.
func (e *extension) RuntimeReason() string { return e.reason }

// Handle implements hooks.Subscriber.
func (e *extension) Handle(ctx context.Context, ev *hooks.Event) (json.RawMessage, error) {
	return e.Plugin.Handle(e.with(ctx), ev)
}

// HandleOne implements hooks.HandlerSet (the Node host lists
// events.per_handler: the bus composes the results of its handlers).
func (e *extension) HandleOne(ctx context.Context, ev *hooks.Event, i int) (json.RawMessage, error) {
	return e.Plugin.HandleOne(e.with(ctx), ev, i)
}

// HandleBatch implements hooks.BatchSubscriber.
func (e *extension) HandleBatch(ctx context.Context, evs []*hooks.Event) []error {
	return e.Plugin.HandleBatch(e.with(ctx), evs)
}

// RunCommand implements extensions.Extension.
func (e *extension) RunCommand(ctx context.Context, name, args string) error {
	return e.Plugin.RunCommand(e.with(ctx), name, args)
}

// RunShortcut implements extensions.ShortcutRunner.
func (e *extension) RunShortcut(ctx context.Context, key string) error {
	return e.Plugin.RunShortcut(e.with(ctx), key)
}

// Complete implements extensions.Extension.
func (e *extension) Complete(ctx context.Context, name, prefix string) ([]extensions.Completion, bool, error) {
	return e.Plugin.Complete(e.with(ctx), name, prefix)
}

// ExecuteTool implements extensions.Extension.
func (e *extension) ExecuteTool(ctx context.Context, name, callID string, args map[string]any, update func(llm.ToolResult)) (llm.ToolResult, error) {
	return e.Plugin.ExecuteTool(e.with(ctx), name, callID, args, update)
}

// StreamProvider implements extensions.ProviderStreamer.
func (e *extension) StreamProvider(ctx context.Context, provider string, request map[string]any, update func(llm.ToolResult)) (llm.ToolResult, error) {
	return e.Plugin.StreamProvider(e.with(ctx), provider, request, update)
}

// Close implements extensions.Extension.
func (e *extension) Close() error {
	err := e.Plugin.Close()
	e.p.remove(e)
	return err
}
