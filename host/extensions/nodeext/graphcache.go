package nodeext

// The graph cache: Analyze's result for an entry, kept on disk with the
// state of every path the result depends on, and used at the next start
// when none of them changed (esbuild parses hundreds of files of a package
// in seconds; the stats to check them take milliseconds).
//
// The transform caches (jsext's and transformTS) are keyed by a hash of
// the file's content, which they read anyway. That does not fit here: the
// point is not to read the files, and the result depends on files that
// are not there (a probe that found nothing) as much as on those that
// are. So an entry records paths and what lstat says of them, and is
// valid while they all say the same. Three kinds of record:
//
//   - in full (mode, size, modification and change time in ns, inode,
//     device): every file of the graph and the entry; every path esbuild
//     was asked to resolve (a relative import's path; a bare import's
//     path in the package found under node_modules, with its package.json)
//     and the paths the "main" and "module" fields of an imported
//     directory's package.json name (esbuild falls back from one to the
//     next); and the directory each such path is in (or the nearest one
//     above that exists): a directory's times change when an entry is
//     added, removed or renamed in it, so a file created where a probe
//     looked (helper.ts next to helper.js, a file a missing import names)
//     shows;
//   - as the same file or directory (mode, inode, device): every directory
//     above those, and node_modules/<package> in each directory from the
//     importer's up (a package installed closer would be used). Only
//     these names matter there, not the rest of the list: /tmp or the home
//     directory change all the time;
//   - as absent: every such name that does not exist.
//
// In every directory recorded, the names esbuild looks up in each
// directory it visits are recorded too (package.json, tsconfig.json,
// jsconfig.json, Yarn's PnP manifests in full, node_modules), and so are
// the answers of provided for every bare name asked and the version of
// the analysis (analyzerVersion, esbuild's version, the build).
//
// What cannot be checked this way is not cached: a result with an esbuild
// error, a failed lookup of a package that exists (its package.json names
// a file that is missing) or of a "#" import, a tsconfig.json outside
// node_modules with "extends" (it names another file) or with "paths" or
// "baseUrl" when a bare import reached esbuild, a PnP manifest, a
// recorded path changed within racyWindow before the analysis began or
// while it ran (times have a granularity: a second change in the same
// tick would not show; and what esbuild saw before a change is not what
// is recorded after it), and any system without inodes.

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/atomic-go/atomic/internal/fsutil"
)

// analyzerVersion changes whenever analyze's result can change for the
// same files (cache key).
const analyzerVersion = "graph-2"

// Bounds of the cache: entries kept and their total size (the least
// recently used removed first), and the size of one entry (a graph of
// 330 files takes about 240 KB).
const (
	maxGraphEntries = 256
	maxGraphTotal   = 64 << 20
	maxGraphBytes   = 8 << 20
)

// racyWindow: a path whose modification or change time is this close to
// (or after) the start of the analysis is not trusted to show a later
// change; the result is not cached.
var racyWindow = 2 * time.Second

// graphClock is the time the racy rule compares with (tests move it).
var graphClock = time.Now

// fileStat is the part of a path's lstat the cache compares.
type fileStat struct {
	Mode  uint32 `json:"m"`
	Size  int64  `json:"s"`
	Mtime int64  `json:"t"`
	Ctime int64  `json:"c"`
	Ino   uint64 `json:"i"`
	Dev   uint64 `json:"d"`
}

// dep is one path the graph depends on: its lstat, and for a symbolic
// link also the stat of what it points to.
type dep struct {
	Path   string    `json:"p"`
	Kind   string    `json:"k"`
	Stat   fileStat  `json:"l"`
	Target *fileStat `json:"f,omitempty"`
}

// graphEntry is one cache file.
type graphEntry struct {
	Version  string          `json:"version"`
	Entry    string          `json:"entry"`
	Provided map[string]bool `json:"provided"`
	Deps     []dep           `json:"deps"`
	Graph    Graph           `json:"graph"`
	// Bundle is the bundle made with the graph (bundle.go; bundles/graphs only).
	Bundle *bundleRef `json:"bundle,omitempty"`
}

// lookup is one import esbuild's resolver was asked for.
type lookup struct {
	spec, dir string
	failed    bool
}

// lookups records, during an analysis, the imports resolved and the
// bare names provided was asked about (callbacks run concurrently).
type lookups struct {
	mu       sync.Mutex
	list     []lookup
	provided map[string]bool
}

func (l *lookups) add(x lookup) {
	l.mu.Lock()
	l.list = append(l.list, x)
	l.mu.Unlock()
}

func (l *lookups) provides(name string, provided func(string) bool) bool {
	ok := provided(name)
	l.mu.Lock()
	l.provided[name] = ok
	l.mu.Unlock()
	return ok
}

// graphVersion is the analysis's version: ours, esbuild's, the build's.
var graphVersion = sync.OnceValue(func() string {
	v := analyzerVersion + ";" + Version
	if bi, ok := debug.ReadBuildInfo(); ok {
		v += ";" + bi.Main.Version
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" || s.Key == "vcs.modified" {
				v += ";" + s.Value
			}
		}
		for _, m := range bi.Deps {
			if m.Path == "github.com/evanw/esbuild" {
				v += ";esbuild-" + m.Version
			}
		}
	}
	return v
})

// analyze is Analyze through the graph cache in the runtime's cache
// directory.
func (rt *Runtime) analyze(entry string, provided func(string) bool) Graph {
	g, _ := cachedAnalyze(filepath.Join(rt.cacheDir(), "graphs"), entry, provided)
	return g
}

// cachedAnalyze returns the cached graph of entry when it is still valid,
// else analyzes and caches the result when it can be checked next time.
// hit reports a cache hit. A cache file that cannot be read or parsed is
// a miss (and is replaced).
func cachedAnalyze(dir, entry string, provided func(string) bool) (g Graph, hit bool) {
	g, _, hit = cachedBuild(graphCache{dir: dir, version: graphVersion(), build: func(entry string, provided func(string) bool) (Graph, *lookups, *bundleRef) {
		g, rec := analyze(entry, provided)
		return g, rec, nil
	}}, entry, provided)
	return g, hit
}

// graphCache is one directory of cached builds: the import graph alone
// (graphs/) or the bundles' (bundles/graphs/, with the bundle made).
type graphCache struct {
	dir, version string
	build        func(entry string, provided func(string) bool) (Graph, *lookups, *bundleRef)
	// valid, when set, checks more of a cache entry than its paths.
	valid func(*graphEntry) bool
}

// cachedBuild is cachedAnalyze for any graphCache.
func cachedBuild(c graphCache, entry string, provided func(string) bool) (Graph, *bundleRef, bool) {
	sum := sha256.Sum256([]byte(entry))
	file := filepath.Join(c.dir, hex.EncodeToString(sum[:12])+".json")
	if e, ok := readEntry(file, c.version, entry, provided); ok && (c.valid == nil || c.valid(&e)) {
		now := time.Now()
		_ = os.Chtimes(file, now, now) // recently used: kept by prune
		return e.Graph, e.Bundle, true
	}
	start := graphClock()
	g, rec, ref := c.build(entry, provided)
	if rec == nil || g.Problem != "" {
		return g, ref, false
	}
	deps, ok := graphDeps(g, rec, start.Add(-racyWindow).UnixNano())
	if !ok {
		return g, ref, false
	}
	b, err := json.Marshal(graphEntry{Version: c.version, Entry: entry, Provided: rec.provided, Deps: deps, Graph: g, Bundle: ref})
	if err != nil || len(b) > maxGraphBytes {
		return g, ref, false
	}
	// A failed write only costs an analysis next time.
	if fsutil.WriteBytes(file, b, fsutil.Options{Perm: 0o600, DirPerm: 0o700}) == nil {
		pruneGraphs(c.dir, maxGraphEntries, maxGraphTotal)
	}
	return g, ref, false
}

// readEntry reads a cache file and checks it; ok only when every recorded
// path and answer is still the same.
func readEntry(file, version, entry string, provided func(string) bool) (graphEntry, bool) {
	b, err := fsutil.ReadRegular(file, maxGraphBytes)
	if err != nil {
		return graphEntry{}, false
	}
	var e graphEntry
	if json.Unmarshal(b, &e) != nil || e.Version != version || e.Entry != entry || len(e.Deps) == 0 {
		return graphEntry{}, false
	}
	for name, ok := range e.Provided {
		if provided(name) != ok {
			return graphEntry{}, false
		}
	}
	for _, d := range e.Deps {
		if !d.holds() {
			return graphEntry{}, false
		}
	}
	if e.Graph.Resolved == nil {
		e.Graph.Resolved = map[string]map[string]string{}
	}
	return e, true
}

// holds reports whether the path is still as recorded.
func (d dep) holds() bool {
	st, ok, err := statPath(d.Path, false)
	if err != nil || ok != (d.Kind != depAbsent) {
		return false
	}
	if !ok {
		return true
	}
	var t fileStat
	if st.isSymlink() {
		// A dangling link reads as the zero stat, as record() keeps it.
		if t, _, err = statPath(d.Path, true); err != nil {
			return false
		}
	}
	switch d.Kind {
	case depNode:
		st, t = st.identity(), t.identity()
	case depFull:
	default:
		return false
	}
	if d.Target == nil {
		return !st.isSymlink() && st == d.Stat
	}
	return st == d.Stat && t == *d.Target
}

// dirFiles are the names esbuild looks up in every directory it visits
// (and in each directory above it).
var dirFiles = []string{"package.json", "tsconfig.json", "jsconfig.json", ".pnp.data.json", ".pnp.cjs", ".pnp.js", "node_modules"}

// Kinds of dep: what must stay the same of a path.
const (
	depAbsent = "a" // it does not exist
	depNode   = "n" // the same file or directory (mode, inode, device)
	depFull   = "f" // and the same size and times (a file's content, a directory's list)
)

// depSet collects the deps of a graph.
type depSet struct {
	deps   map[string]dep
	cutoff int64
	bad    bool // cannot be checked: do not cache
	queue  []string
}

// record notes that p must keep its state: kind depFull or depNode when
// it exists (depFull wins), depAbsent when it does not. Every directory
// above it is recorded as depNode with the names esbuild looks up there.
func (s *depSet) record(p, kind string) (exists bool) {
	if p == "" || !filepath.IsAbs(p) {
		s.bad = true
		return false
	}
	p = filepath.Clean(p)
	if d, ok := s.deps[p]; ok && (d.Kind == kind || d.Kind == depFull || d.Kind == depAbsent) {
		return d.Kind != depAbsent
	}
	st, ok, err := statPath(p, false)
	if err != nil {
		s.bad = true
		return false
	}
	if !ok {
		s.deps[p] = dep{Path: p, Kind: depAbsent}
		s.parents(p)
		return false
	}
	d := dep{Path: p, Kind: kind, Stat: st}
	if st.isSymlink() {
		t, ok, err := statPath(p, true)
		if err != nil {
			s.bad = true
			return false
		}
		if !ok {
			t = fileStat{} // dangling: recorded as such
		}
		d.Target = &t
	}
	// Changed too recently to trust the times (or, for a directory kept as
	// the same one, created or changed while esbuild was reading).
	if d.Stat.Mtime > s.cutoff || d.Stat.Ctime > s.cutoff || (d.Target != nil && (d.Target.Mtime > s.cutoff || d.Target.Ctime > s.cutoff)) {
		s.bad = true
	}
	if kind == depNode {
		d.Stat = d.Stat.identity()
		if d.Target != nil {
			t := d.Target.identity()
			d.Target = &t
		}
	}
	_, seen := s.deps[p]
	s.deps[p] = d
	if !seen {
		s.queue = append(s.queue, p)
		s.parents(p)
	}
	return true
}

// parents records the directories above p.
func (s *depSet) parents(p string) {
	if a := filepath.Dir(p); a != p {
		s.record(a, depNode)
	}
}

// probe records a path esbuild tried: the path itself in full (a
// directory's list decides its index file), and the list of the directory
// it is (or would be) in: the nearest one that exists.
func (s *depSet) probe(p string) {
	if s.record(p, depFull) && s.isDir(p) {
		// A directory imported: its package.json's main fields.
		s.pkgJSON(filepath.Join(p, "package.json"))
	}
	for a := filepath.Dir(p); ; a = filepath.Dir(a) {
		if s.record(a, depFull) || a == filepath.Dir(a) {
			return
		}
	}
}

// pkgJSON records a package's package.json and probes what its "main"
// and "module" fields name (esbuild falls back from one to the next and
// then to index files when a file is missing).
func (s *depSet) pkgJSON(p string) {
	if !s.record(p, depFull) {
		return
	}
	for _, m := range mainFields(p) {
		s.probe(filepath.Join(filepath.Dir(p), m))
	}
}

func (s *depSet) isDir(p string) bool {
	d := s.deps[filepath.Clean(p)]
	return d.Kind != depAbsent && (d.Stat.isDir() || (d.Target != nil && d.Target.isDir()))
}

// identity is the part of a stat that names the file (not its content).
func (f fileStat) identity() fileStat { return fileStat{Mode: f.Mode, Ino: f.Ino, Dev: f.Dev} }

// graphDeps lists the paths the graph depends on with their state; ok is
// false when the result cannot be checked by them (see the top of the
// file). cutoff is the racy limit (ns).
func graphDeps(g Graph, rec *lookups, cutoff int64) ([]dep, bool) {
	s := &depSet{deps: map[string]dep{}, cutoff: cutoff}
	// The files read must still be there (one removed while esbuild read
	// the rest would otherwise be recorded as absent).
	if !s.record(g.Entry, depFull) {
		return nil, false
	}
	for _, f := range g.Files {
		if !s.record(f, depFull) {
			return nil, false
		}
	}
	// A "#" import's file: the list of its directory (a file added there
	// may be the one the mapping then names).
	for _, m := range g.Resolved {
		for spec, target := range m {
			if strings.HasPrefix(spec, "#") {
				s.probe(filepath.Dir(target))
			}
		}
	}
	bare := false
	for _, l := range rec.list {
		if !filepath.IsAbs(l.dir) {
			return nil, false
		}
		s.record(l.dir, depNode)
		switch {
		case strings.HasPrefix(l.spec, "#"):
			if l.failed {
				return nil, false
			}
		case filepath.IsAbs(l.spec):
			s.probe(l.spec)
		case isRelative(l.spec):
			s.probe(filepath.Join(l.dir, l.spec))
		default:
			// node_modules/<package> in every directory up from the
			// importer's (a new one below the one found would be used).
			bare = true
			pkg := packageName(l.spec)
			for d := l.dir; ; d = filepath.Dir(d) {
				if filepath.Base(d) != "node_modules" {
					nm := filepath.Join(d, "node_modules")
					if s.record(nm, depNode) && s.record(filepath.Join(nm, pkg), depNode) {
						if l.failed {
							return nil, false // a package that exists but does not resolve
						}
						s.pkgJSON(filepath.Join(nm, pkg, "package.json"))
						s.probe(filepath.Join(nm, l.spec))
					}
				}
				if d == filepath.Dir(d) {
					break
				}
			}
		}
	}
	// The names esbuild looks up in every directory it visits.
	for len(s.queue) > 0 && !s.bad {
		p := s.queue[0]
		s.queue = s.queue[1:]
		if !s.isDir(p) {
			continue
		}
		for _, f := range dirFiles {
			kind := depFull
			if f == "node_modules" {
				kind = depNode
			}
			q := filepath.Join(p, f)
			if !s.record(q, kind) || f == "node_modules" || f == "package.json" {
				continue
			}
			if strings.HasPrefix(f, ".pnp") {
				return nil, false
			}
			if !insideNodeModules(q) && tsconfigMatters(q, bare) {
				return nil, false
			}
		}
	}
	if s.bad {
		return nil, false
	}
	deps := make([]dep, 0, len(s.deps))
	for _, d := range s.deps {
		deps = append(deps, d)
	}
	slices.SortFunc(deps, func(a, b dep) int { return strings.Compare(a.Path, b.Path) })
	return deps, true
}

// packageName is the package part of a bare import ("@scope/name/x" →
// "@scope/name", "name/x" → "name").
func packageName(spec string) string {
	parts := strings.SplitN(spec, "/", 3)
	if strings.HasPrefix(spec, "@") && len(parts) > 1 {
		return parts[0] + "/" + parts[1]
	}
	return parts[0]
}

func insideNodeModules(p string) bool {
	return slices.Contains(strings.Split(filepath.ToSlash(p), "/"), "node_modules")
}

// tsconfigMatters reports whether a tsconfig.json (which esbuild reads
// outside node_modules) makes the result depend on more than its own
// content: "extends" names another file; "paths" and "baseUrl" send bare
// imports elsewhere. Read as text: comments that mention them count too.
func tsconfigMatters(p string, bare bool) bool {
	b, err := fsutil.ReadRegular(p, maxGraphBytes)
	if err != nil {
		return true
	}
	s := string(b)
	if strings.Contains(s, `"extends"`) {
		return true
	}
	return bare && (strings.Contains(s, `"paths"`) || strings.Contains(s, `"baseUrl"`))
}

// mainFields are the "main" and "module" paths of a package.json (none
// when it does not parse: esbuild then ignores it, and its state is
// recorded anyway).
func mainFields(p string) []string {
	b, err := fsutil.ReadRegular(p, maxGraphBytes)
	if err != nil {
		return nil
	}
	var pkg struct {
		Main   any `json:"main"`
		Module any `json:"module"`
	}
	if json.Unmarshal(b, &pkg) != nil {
		return nil
	}
	var out []string
	for _, v := range []any{pkg.Main, pkg.Module} {
		if s, ok := v.(string); ok && s != "" && !filepath.IsAbs(s) {
			out = append(out, filepath.FromSlash(s))
		}
	}
	return out
}

// pruneGraphs keeps the most recently used entries of dir, at most max
// of them and total bytes.
func pruneGraphs(dir string, max int, total int64) { pruneOldest(dir, ".json", "", max, total) }

// pruneOldest keeps the most recently used files of dir whose names end
// in suffix, at most max of them and total bytes, each counted and removed
// with its companion (its name followed by companion) when there is one.
func pruneOldest(dir, suffix, companion string, max int, total int64) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	type aged struct {
		name string
		t    time.Time
		size int64
	}
	var files []aged
	var sum int64
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), suffix) {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue
		}
		size := info.Size()
		if companion != "" {
			if c, err := os.Stat(filepath.Join(dir, e.Name()+companion)); err == nil {
				size += c.Size()
			}
		}
		files = append(files, aged{e.Name(), info.ModTime(), size})
		sum += size
	}
	if len(files) <= max && sum <= total {
		return
	}
	sort.Slice(files, func(i, j int) bool { return files[i].t.After(files[j].t) })
	sum = 0
	for i, f := range files {
		sum += f.size
		if i >= max || sum > total {
			_ = os.Remove(filepath.Join(dir, f.name))
			if companion != "" {
				_ = os.Remove(filepath.Join(dir, f.name+companion))
			}
		}
	}
}
