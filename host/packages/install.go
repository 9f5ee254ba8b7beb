package packages

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/atomic-go/atomic/host/config"
	"github.com/atomic-go/atomic/internal/fsutil"
	"github.com/atomic-go/atomic/internal/proc"
)

// Installer installs, updates and removes npm and git packages with the
// real npm and git clients. Where things go:
//
//	user       <agentDir>/npm/node_modules/<name>     <agentDir>/git/<host>/<path>
//	project    <cwd>/.atomic/npm/node_modules/<name>  <cwd>/.atomic/git/<host>/<path>
//	temporary  <agentDir>/tmp/extensions/npm/…        <agentDir>/tmp/extensions/git/<host>/<path>[@<ref hash>]
//
// Each npm directory is a private npm project (package.json
// "atomic-packages"); nothing goes into global npm. Operations on one
// directory are serialised across processes by a lock file beside it.
// The children's output (stdout included) goes to Output, never to the
// process's stdout, which may be the protocol.
type Installer struct {
	AgentDir string
	Cwd      string
	// NpmCommand is the argv of npm ("npmCommand" setting); nil: npm.
	NpmCommand []string
	// Output receives npm's and git's output (nil: discarded).
	Output io.Writer
	// LockWait bounds the wait for another process's install of the same
	// directory (0: 10 minutes).
	LockWait time.Duration
}

// Root returns the install directory of a kind (npm or git) in a scope.
func (in *Installer) Root(kind, scope string) string {
	switch scope {
	case ScopeProject:
		return filepath.Join(config.ProjectDir(in.Cwd), kind)
	case ScopeTemporary:
		return filepath.Join(in.AgentDir, "tmp", "extensions", kind)
	}
	return filepath.Join(in.AgentDir, kind)
}

// Path returns where a package is (or would be) installed; for a local
// source, its resolved path (base: the directory relative paths are
// relative to).
func (in *Installer) Path(src Source, scope, base string) string {
	switch src.Kind {
	case KindNPM:
		return filepath.Join(in.Root(KindNPM, scope), "node_modules", filepath.FromSlash(src.Name))
	case KindGit:
		p := filepath.Join(in.Root(KindGit, scope), src.Host, filepath.FromSlash(src.Path))
		if scope == ScopeTemporary && src.Ref != "" {
			h := sha256.Sum256([]byte(src.Ref))
			p += "@" + hex.EncodeToString(h[:4])
		}
		return p
	}
	return src.Resolve(base)
}

// Installed reports whether an npm or git package is installed in a scope
// (a local one: whether the path exists) and its version (npm: the
// package.json version; git: the checked-out commit).
func (in *Installer) Installed(src Source, scope, base string) (path, version string, ok bool) {
	path = in.Path(src, scope, base)
	switch src.Kind {
	case KindNPM:
		_, v := ReadManifest(path)
		if v == "" && !fileExists(filepath.Join(path, "package.json")) {
			return path, "", false
		}
		return path, v, true
	case KindGit:
		if _, err := os.Stat(filepath.Join(path, ".git")); err != nil {
			return path, "", false
		}
		return path, gitHead(path), true
	}
	_, err := os.Stat(path)
	if err != nil {
		return path, "", false
	}
	_, v := ReadManifest(path)
	return path, v, true
}

// Install installs an npm or git package into a scope (a local one must
// exist). An installed git package is left as it is. With again false, an
// npm package that another process installed while this one waited for
// the lock is left as it is too (start-up); atomic install always runs
// npm (again true).
func (in *Installer) Install(ctx context.Context, src Source, scope, base string) error {
	return in.install(ctx, src, scope, base, true)
}

// InstallMissing is Install for a package found missing: it does nothing
// when the package is there (with a matching version) once the install
// directory's lock is held.
func (in *Installer) InstallMissing(ctx context.Context, src Source, scope, base string) error {
	return in.install(ctx, src, scope, base, false)
}

func (in *Installer) install(ctx context.Context, src Source, scope, base string, again bool) error {
	switch src.Kind {
	case KindNPM:
		root := in.Root(KindNPM, scope)
		return in.locked(root, func() error {
			if _, v, ok := in.Installed(src, scope, base); ok && !again && src.Accepts(v) {
				return nil
			}
			if err := ensureNpmProject(root); err != nil {
				return err
			}
			if err := in.npm(ctx, root, "install", src.Spec(), "--prefix", root, "--legacy-peer-deps", "--no-audit", "--no-fund"); err != nil {
				return err
			}
			if _, _, ok := in.Installed(src, scope, base); !ok {
				return fmt.Errorf("npm reported success but %s is not in %s", src.Name, root)
			}
			return nil
		})
	case KindGit:
		root := in.Root(KindGit, scope)
		return in.locked(root, func() error { return in.cloneGit(ctx, src, scope) })
	}
	p := src.Resolve(base)
	if _, err := os.Stat(p); err != nil {
		return fmt.Errorf("path does not exist: %s", p)
	}
	return bareRepositoryError(p)
}

// bareRepositoryError refuses a local path that is a bare git repository
// (a file:// URL of one, say): it holds no package files, and loading it
// would fail later with a less helpful message.
func bareRepositoryError(p string) error {
	for _, name := range []string{"HEAD", "objects", "refs"} {
		if _, err := os.Stat(filepath.Join(p, name)); err != nil {
			return nil
		}
	}
	if _, err := os.Stat(filepath.Join(p, "package.json")); err == nil {
		return nil
	}
	return fmt.Errorf("%s is a bare git repository, not a package directory: use git:%s to clone it", p, (&url.URL{Scheme: "file", Path: p}).String())
}

// cloneGit clones into a temporary directory beside the target and
// renames it into place, so that an interrupted clone never looks
// installed. Called with the git root locked.
func (in *Installer) cloneGit(ctx context.Context, src Source, scope string) error {
	target := in.Path(src, scope, "")
	if _, err := os.Stat(filepath.Join(target, ".git")); err == nil {
		return in.checkoutRef(ctx, src, target)
	}
	if err := ensureIgnored(in.Root(KindGit, scope)); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(target), "."+filepath.Base(target)+".clone-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if err := in.git(ctx, "", "clone", "--quiet", "--", src.Repo, tmp); err != nil {
		return err
	}
	if src.Ref != "" {
		if err := in.git(ctx, tmp, "checkout", "--quiet", src.Ref, "--"); err != nil {
			return err
		}
	}
	if err := in.npmDeps(ctx, tmp); err != nil {
		return err
	}
	_ = os.RemoveAll(target) // a leftover without .git
	return os.Rename(tmp, target)
}

// checkoutRef moves an existing clone to the source's ref (atomic install
// of another ref of an installed repository); nothing when it is there
// already or the source names no ref.
func (in *Installer) checkoutRef(ctx context.Context, src Source, target string) error {
	if src.Ref == "" {
		return nil
	}
	if head := gitHead(target); head != "" && head == gitRev(target, src.Ref+"^{commit}") {
		return nil
	}
	if err := in.git(ctx, target, "fetch", "--quiet", "--tags", "origin", "--", src.Ref); err != nil {
		return err
	}
	if err := in.git(ctx, target, "checkout", "--quiet", "--force", "FETCH_HEAD", "--"); err != nil {
		return err
	}
	return in.npmDeps(ctx, target)
}

// Remove uninstalls an npm or git package from a scope (nothing for a
// local one).
func (in *Installer) Remove(ctx context.Context, src Source, scope string) error {
	switch src.Kind {
	case KindNPM:
		root := in.Root(KindNPM, scope)
		if _, err := os.Stat(root); err != nil {
			return nil
		}
		return in.locked(root, func() error {
			return in.npm(ctx, root, "uninstall", src.Name, "--prefix", root, "--legacy-peer-deps", "--no-audit", "--no-fund")
		})
	case KindGit:
		root := in.Root(KindGit, scope)
		return in.locked(root, func() error {
			target := in.Path(src, scope, "")
			if err := os.RemoveAll(target); err != nil {
				return err
			}
			pruneEmpty(filepath.Dir(target), root)
			return nil
		})
	}
	return nil
}

// Change is the outcome of an update.
type Change struct {
	From, To string
	// Skipped says why nothing was done ("pinned", "local").
	Skipped string
}

// Update brings an npm or git package of a scope to its newest matching
// version; pinned ones (an exact npm version, a git ref) and local ones
// are skipped. A package that is not installed is installed.
func (in *Installer) Update(ctx context.Context, src Source, scope string) (Change, error) {
	var ch Change
	switch {
	case src.Kind == KindLocal:
		ch.Skipped = "local"
		return ch, nil
	case src.Pinned():
		ch.Skipped = "pinned"
		return ch, nil
	}
	_, ch.From, _ = in.Installed(src, scope, "")
	switch src.Kind {
	case KindNPM:
		spec := src.Spec()
		if src.Version == "" {
			spec = src.Name + "@latest"
		}
		root := in.Root(KindNPM, scope)
		err := in.locked(root, func() error {
			if err := ensureNpmProject(root); err != nil {
				return err
			}
			return in.npm(ctx, root, "install", spec, "--prefix", root, "--legacy-peer-deps", "--no-audit", "--no-fund")
		})
		if err != nil {
			return ch, err
		}
	case KindGit:
		root := in.Root(KindGit, scope)
		err := in.locked(root, func() error {
			target := in.Path(src, scope, "")
			if _, err := os.Stat(filepath.Join(target, ".git")); err != nil {
				return in.cloneGit(ctx, src, scope)
			}
			if err := in.git(ctx, target, "fetch", "--quiet", "--prune", "--no-tags", "origin"); err != nil {
				return err
			}
			upstream := "@{upstream}"
			if in.git(ctx, target, "rev-parse", "--quiet", "--verify", upstream) != nil {
				_ = in.git(ctx, target, "remote", "set-head", "origin", "--auto")
				upstream = "origin/HEAD"
			}
			if err := in.git(ctx, target, "reset", "--quiet", "--hard", upstream); err != nil {
				return err
			}
			if err := in.git(ctx, target, "clean", "-fdxq"); err != nil {
				return err
			}
			return in.npmDeps(ctx, target)
		})
		if err != nil {
			return ch, err
		}
	}
	_, ch.To, _ = in.Installed(src, scope, "")
	return ch, nil
}

// locked runs fn holding the lock of an install directory.
func (in *Installer) locked(root string, fn func() error) error {
	wait := in.LockWait
	if wait == 0 {
		wait = 10 * time.Minute
	}
	unlock, err := config.LockPath(root, wait)
	if err != nil {
		return err
	}
	defer unlock()
	return fn()
}

// npmDeps runs npm install in a git package whose package.json has
// something for it to do: dependencies to install or install-time
// scripts (preinstall, install, postinstall, prepare). A package.json
// that only carries a manifest needs no npm run.
func (in *Installer) npmDeps(ctx context.Context, dir string) error {
	data, err := fsutil.ReadRegular(filepath.Join(dir, "package.json"), fsutil.MaxSettingsFile)
	if err != nil {
		return nil
	}
	var pj struct {
		Dependencies         map[string]any `json:"dependencies"`
		OptionalDependencies map[string]any `json:"optionalDependencies"`
		Scripts              map[string]any `json:"scripts"`
	}
	if json.Unmarshal(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")), &pj) == nil && len(pj.Dependencies) == 0 && len(pj.OptionalDependencies) == 0 {
		needed := false
		for _, k := range []string{"preinstall", "install", "postinstall", "prepare"} {
			if _, ok := pj.Scripts[k]; ok {
				needed = true
			}
		}
		if !needed {
			return nil
		}
	}
	return in.npm(ctx, dir, "install", "--omit=dev", "--legacy-peer-deps", "--no-audit", "--no-fund")
}

func (in *Installer) npm(ctx context.Context, dir string, args ...string) error {
	argv := in.NpmCommand
	if len(argv) == 0 || argv[0] == "" {
		argv = []string{"npm"}
	}
	return in.run(ctx, dir, nil, append(append([]string{}, argv...), args...)...)
}

func (in *Installer) git(ctx context.Context, dir string, args ...string) error {
	env := []string{"GIT_TERMINAL_PROMPT=0"}
	if os.Getenv("GIT_SSH_COMMAND") == "" {
		env = append(env, "GIT_SSH_COMMAND=ssh -o BatchMode=yes")
	}
	return in.run(ctx, dir, env, append([]string{"git"}, args...)...)
}

// run runs a client with its output (stdout too) going to in.Output and
// the end of it kept for the error message.
func (in *Installer) run(ctx context.Context, dir string, env []string, argv ...string) error {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdin = nil
	tail := &proc.Tail{Max: 4000}
	var w io.Writer = tail
	if in.Output != nil {
		w = io.MultiWriter(tail, in.Output)
	}
	cmd.Stdout, cmd.Stderr = w, w
	// npm's lifecycle scripts and git's helpers are in the client's
	// process group: a cancelled install ends them too.
	err := proc.Run(ctx, cmd, 5*time.Second)
	if err == nil {
		return nil
	}
	if errors.Is(err, exec.ErrNotFound) {
		return fmt.Errorf("%s is not installed (needed for this package)", argv[0])
	}
	msg := failureLines(tail.String())
	name := strings.Join(argv[:min(len(argv), 3)], " ")
	if msg != "" {
		return fmt.Errorf("%s failed (%v): %s", name, err, msg)
	}
	return fmt.Errorf("%s failed: %w", name, err)
}

// failureLines picks from a failed npm's or git's output the lines that
// say why: npm's "npm error"/"npm ERR!" lines (its code and reason, without
// the hints every failure repeats and the path of its debug log), git's
// "fatal:"/"error:" lines, joined by " | ", at most six; else the last
// three lines.
func failureLines(s string) string {
	var picked []string
	seen := map[string]bool{}
	for _, l := range strings.Split(s, "\n") {
		l = strings.TrimSpace(l)
		body, isNpm := cutAny(l, "npm error ", "npm ERR! ")
		_, isGit := cutAny(l, "fatal: ", "error: ")
		if !isNpm && !isGit {
			continue
		}
		if isNpm && (strings.TrimSpace(strings.TrimLeft(body, "0123456789")) == "" || containsAny(body, npmBoilerplate...)) {
			continue
		}
		if !seen[l] {
			seen[l] = true
			picked = append(picked, l)
		}
	}
	if len(picked) == 0 {
		return lastLines(s, 3)
	}
	if len(picked) > 6 {
		picked = picked[:6]
	}
	return strings.Join(picked, " | ")
}

// npmBoilerplate are the parts of npm's error lines that every failure of
// a kind repeats and that say nothing of this one.
var npmBoilerplate = []string{"A complete log of this run", "Note that you can also install from", "tarball, folder, http url", "In most cases you or one of your dependencies"}

func containsAny(s string, subs ...string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// cutAny is strings.CutPrefix for the first of prefixes s starts with.
func cutAny(s string, prefixes ...string) (string, bool) {
	for _, p := range prefixes {
		if rest, ok := strings.CutPrefix(s, p); ok {
			return rest, true
		}
	}
	return s, false
}

// lastLines returns the last n non-empty lines of s joined by " | ".
func lastLines(s string, n int) string {
	var lines []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}

// ensureNpmProject makes root a private npm project.
func ensureNpmProject(root string) error {
	if err := ensureIgnored(root); err != nil {
		return err
	}
	pj := filepath.Join(root, "package.json")
	if fileExists(pj) {
		return nil
	}
	b, _ := json.MarshalIndent(map[string]any{"name": "atomic-packages", "private": true}, "", "  ")
	return fsutil.WriteBytes(pj, append(b, '\n'), fsutil.Options{Perm: 0o644, NoReplace: true})
}

// ensureIgnored creates root with a .gitignore that ignores everything
// in it (a project's .atomic/npm and .atomic/git are not for committing).
func ensureIgnored(root string) error {
	if err := os.MkdirAll(root, 0o755); err != nil {
		return err
	}
	gi := filepath.Join(root, ".gitignore")
	if fileExists(gi) {
		return nil
	}
	err := fsutil.WriteBytes(gi, []byte("*\n!.gitignore\n"), fsutil.Options{Perm: 0o644, NoReplace: true})
	if err != nil && fileExists(gi) {
		return nil
	}
	return err
}

// pruneEmpty removes empty directories from dir up to (not including)
// root.
func pruneEmpty(dir, root string) {
	root = filepath.Clean(root)
	for d := filepath.Clean(dir); d != root && strings.HasPrefix(d, root+string(filepath.Separator)); d = filepath.Dir(d) {
		if os.Remove(d) != nil {
			return
		}
	}
}

func gitHead(dir string) string { return gitRev(dir, "HEAD") }

// gitRev resolves a revision in a clone, locally ("" when unknown).
func gitRev(dir, rev string) string {
	cmd := exec.Command("git", "rev-parse", "--quiet", "--verify", rev)
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout = &out
	if cmd.Run() != nil {
		return ""
	}
	return strings.TrimSpace(out.String())
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}
