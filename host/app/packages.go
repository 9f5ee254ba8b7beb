package app

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/atomic-go/atomic/host/extensions"
	"github.com/atomic-go/atomic/host/packages"
	"github.com/atomic-go/atomic/host/resources"
)

// pkgState holds the latest package resolution (host/packages): which
// packages are configured, installed, and what they contribute. One
// resolution serves the resource discovery and the extension discovery
// of a start or a reload; it runs in the background (installing missing
// packages can take a while) and both wait for it.
type pkgState struct {
	mu  sync.Mutex
	cur *pkgRun
}

type pkgRun struct {
	done chan struct{}
	res  packages.Resolved
}

// startPackages starts a resolution for the current working directory.
// trusted decides whether the project's packages are read (and installed
// when missing): an untrusted project installs nothing.
func (rt *Runtime) startPackages(trusted bool) *pkgRun {
	run := &pkgRun{done: make(chan struct{})}
	rt.pkgs.mu.Lock()
	rt.pkgs.cur = run
	rt.pkgs.mu.Unlock()
	go func() {
		defer close(run.done)
		run.res = rt.resolvePackages(rt.baseCtx, trusted)
	}()
	return run
}

// packagesNow waits for the latest resolution and returns it.
func (rt *Runtime) packagesNow() packages.Resolved {
	rt.pkgs.mu.Lock()
	run := rt.pkgs.cur
	rt.pkgs.mu.Unlock()
	if run == nil {
		return packages.Resolved{}
	}
	<-run.done
	return run.res
}

// cliExtensions are the -e values in order, a local directory by its
// absolute path (as pi names such a package), and those that are
// packages: npm and git sources, and local directories. A directory is
// read as a local package in the settings is (the same resolution: its
// package.json "pi" manifest or its conventional directories give
// extensions, skills, prompts and themes; a directory with neither is
// one extension), as pi's -e reads it. A file is one extension, left to
// the extension discovery.
func (rt *Runtime) cliExtensions() (all, pkgs []string) {
	for _, e := range rt.opts.Extensions {
		switch {
		case packages.IsPackageSource(e):
			pkgs = append(pkgs, e)
		default:
			if dir, ok := localPackageDir(e, rt.Cwd()); ok {
				e = dir
				pkgs = append(pkgs, e)
			}
		}
		all = append(all, e)
	}
	return all, pkgs
}

// localPackageDir returns the absolute path of the directory the -e
// value e names, if it names one.
func localPackageDir(e, cwd string) (string, bool) {
	src, err := packages.ParseSource(e)
	if err != nil || src.Kind != packages.KindLocal {
		return "", false
	}
	dir := src.Resolve(packages.BaseDir("", cwd, packages.ScopeTemporary))
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return "", false
	}
	if a, err := filepath.Abs(dir); err == nil {
		dir = a
	}
	return dir, true
}

func (rt *Runtime) resolvePackages(ctx context.Context, trusted bool) packages.Resolved {
	agentDir := rt.agentDir()
	out := &logWriter{log: rt.log}
	defer out.Close()
	_, cliPkgs := rt.cliExtensions()
	res := packages.Resolve(ctx, packages.Options{
		AgentDir: agentDir, Cwd: rt.Cwd(), ProjectTrusted: trusted, CLI: cliPkgs,
		Install: true, Offline: rt.offline(),
		Installer: &packages.Installer{AgentDir: agentDir, Cwd: rt.Cwd(), NpmCommand: rt.settings.NpmCommand, Output: out},
	})
	// Reported once per resolution; the resource diagnostics keep them
	// until the next one.
	for _, p := range res.Problems {
		rt.log.Warn("package problem; its resources are skipped (tried again at the next start or reload)",
			"source", p.Source, "scope", p.Scope, "path", p.Path, "problem", p.Message)
	}
	return res
}

// offline reports whether the agent runs offline: --offline, or
// ATOMIC_OFFLINE=1 or PI_OFFLINE=1 in the environment.
func (rt *Runtime) offline() bool {
	return rt.opts.Offline || envOn("ATOMIC_OFFLINE") || envOn("PI_OFFLINE")
}

func envOn(name string) bool {
	switch strings.ToLower(os.Getenv(name)) {
	case "1", "true", "yes":
		return true
	}
	return false
}

// packageInfo is the source info of a package's resources.
func packageInfo(r packages.Ref) resources.SourceInfo {
	return resources.SourceInfo{Source: r.Source, Scope: r.Scope, Origin: resources.OriginPackage, BaseDir: r.Root}
}

// addPackageResources adds the packages' skills and templates to a
// resource discovery.
func addPackageResources(opts *resources.Options, res packages.Resolved) {
	for _, r := range res.Skills {
		info := packageInfo(r.Ref)
		if r.Ref.Scope == packages.ScopeTemporary {
			// As pi 1.6 names them: the skills (and extensions) of a -e
			// package are the command line's own (its prompts and
			// themes keep the package).
			info = resources.SourceInfo{Source: resources.SourceCLI, Scope: resources.ScopeTemporary, Origin: resources.OriginTopLevel}
		}
		opts.PackageSkills = append(opts.PackageSkills, resources.PackageEntry{Path: r.Path, Info: info})
	}
	for _, r := range res.Prompts {
		opts.PackageTemplates = append(opts.PackageTemplates, resources.PackageEntry{Path: r.Path, Info: packageInfo(r.Ref)})
	}
}

// packageDiagnostics are the resolution's problems as resource
// diagnostics (get_resource_diagnostics).
func packageDiagnostics(res packages.Resolved) []resources.Diagnostic {
	var out []resources.Diagnostic
	for _, p := range res.Problems {
		msg := p.Message
		path := p.Source
		if path == "" {
			path = p.Path
		} else if p.Scope != "" {
			msg = "package " + p.Source + " (" + p.Scope + "): " + msg
		}
		out = append(out, resources.Diagnostic{Type: resources.DiagError, ResourceType: resources.KindPackage, Message: msg, Path: path})
	}
	return out
}

// packageExtensions are the packages' extension paths for the extension
// discovery.
func packageExtensions(res packages.Resolved) (cli map[string][]extensions.PackageEntry, list []extensions.PackageEntry) {
	conv := func(rs []packages.Resource) []extensions.PackageEntry {
		out := []extensions.PackageEntry{}
		for _, r := range rs {
			out = append(out, extensions.PackageEntry{Path: r.Path, Package: extensions.PackageRef{Source: r.Ref.Source, Scope: r.Ref.Scope, Root: r.Ref.Root}})
		}
		return out
	}
	cli = map[string][]extensions.PackageEntry{}
	for src, rs := range res.CLI {
		cli[src] = conv(rs)
	}
	var settings []packages.Resource
	for _, r := range res.Extensions {
		if r.Ref.Scope != packages.ScopeTemporary {
			settings = append(settings, r)
		}
	}
	return cli, conv(settings)
}

// logWriter logs a child's output line by line (debug level): npm's and
// git's output never reaches the protocol stream.
type logWriter struct {
	log interface{ Debug(string, ...any) }
	mu  sync.Mutex
	buf []byte
}

func (l *logWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf = append(l.buf, p...)
	for {
		i := bytes.IndexByte(l.buf, '\n')
		if i < 0 {
			break
		}
		l.line(l.buf[:i])
		l.buf = l.buf[i+1:]
	}
	if len(l.buf) > 64<<10 {
		l.line(l.buf)
		l.buf = nil
	}
	return len(p), nil
}

func (l *logWriter) line(b []byte) {
	if line := strings.TrimSpace(string(b)); line != "" {
		l.log.Debug("package install output", "line", line)
	}
}

// Close logs the last line.
func (l *logWriter) Close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.line(l.buf)
	l.buf = nil
}
