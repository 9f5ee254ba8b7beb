package packages

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/Masterminds/semver/v3"
)

// Kinds of source.
const (
	KindNPM   = "npm"
	KindGit   = "git"
	KindLocal = "local"
)

// Scopes of a package: which settings file names it (or the command line).
const (
	ScopeUser      = "user"
	ScopeProject   = "project"
	ScopeTemporary = "temporary" // -e npm:… / -e git:…, for one run
)

// Source is a parsed package source.
type Source struct {
	// Raw is the source as written.
	Raw  string
	Kind string

	// npm: Name is the package name, Version what followed "@" (an exact
	// version, a range or a dist-tag; "" for none).
	Name, Version string

	// git: Repo is the URL git clones; Host and Path (owner/name, without
	// ".git") name the repository; Ref is the branch, tag or commit after
	// "@" ("" for the default branch).
	Repo, Host, Path, Ref string

	// local: LocalPath is the path as written (resolved against the
	// directory of the settings file that names it).
	LocalPath string
}

var (
	npmSpec = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(@?[^@]+(?:/[^@]+)?)(?:@(.+))?$`) })
	npmName = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(?:@[A-Za-z0-9][A-Za-z0-9._~-]*/)?[A-Za-z0-9][A-Za-z0-9._~-]*$`)
	})
	gitRef = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._/+-]*$`) })
)

// IsPackageSource reports whether s names an npm or git package rather
// than a local path (for -e, which takes both).
func IsPackageSource(s string) bool {
	return !looksLocal(strings.TrimSpace(s))
}

// looksLocal is the reference's rule: everything that does not start
// with a known scheme is a path (file: URLs included).
func looksLocal(s string) bool {
	for _, p := range []string{"npm:", "git:", "github:", "http:", "https:", "ssh:", "builtin:"} {
		if strings.HasPrefix(s, p) {
			return false
		}
	}
	return !scpLike(s)
}

func scpLike(s string) bool {
	return strings.HasPrefix(s, "git@") && strings.Contains(s, ":") && !strings.Contains(strings.SplitN(s, ":", 2)[0], "/")
}

// ParseSource parses a package source: npm:<name>[@version|@range|@tag],
// git:<host>/<path>[@ref], git:git@host:path[@ref], https://, http://,
// ssh:// and git:// URLs (git, with or without the git: prefix),
// git@host:path, github:owner/repo, a repository on this machine
// (git:file:///abs/repo.git, git:/abs/repo.git), or a local path.
func ParseSource(raw string) (Source, error) {
	s := strings.TrimSpace(raw)
	if s == "" {
		return Source{}, fmt.Errorf("empty package source")
	}
	switch {
	case strings.HasPrefix(s, "npm:"):
		return parseNPM(raw, strings.TrimSpace(s[len("npm:"):]))
	case strings.HasPrefix(s, "builtin:"):
		return Source{}, fmt.Errorf("%s is a built-in extension, not a package", s)
	case strings.HasPrefix(s, "github:"):
		return parseGit(raw, "github.com/"+strings.TrimPrefix(s[len("github:"):], "/"), true)
	case strings.HasPrefix(s, "git://"):
		// A git:// URL, not the git: prefix (pi 1.6 takes "git:" first and
		// then fails on "//host/path").
		return parseGit(raw, s, false)
	case strings.HasPrefix(s, "git:"):
		return parseGit(raw, strings.TrimSpace(s[len("git:"):]), true)
	case looksLocal(s):
		return Source{Raw: raw, Kind: KindLocal, LocalPath: s}, nil
	}
	return parseGit(raw, s, false)
}

func parseNPM(raw, spec string) (Source, error) {
	m := npmSpec().FindStringSubmatch(spec)
	if m == nil || !npmName().MatchString(m[1]) || strings.Contains(m[1], "..") {
		return Source{}, fmt.Errorf("invalid npm package %q (use npm:<name>[@version])", spec)
	}
	if m[2] != "" && strings.ContainsAny(m[2], " \t\n\x00") {
		return Source{}, fmt.Errorf("invalid version %q of npm package %s", m[2], m[1])
	}
	return Source{Raw: raw, Kind: KindNPM, Name: m[1], Version: m[2]}, nil
}

func parseGit(raw, u string, prefixed bool) (Source, error) {
	bad := func(why string) (Source, error) {
		return Source{}, fmt.Errorf("invalid git source %q: %s", strings.TrimSpace(raw), why)
	}
	src := Source{Raw: raw, Kind: KindGit}
	var host, path string
	switch {
	case prefixed && (strings.HasPrefix(u, "/") || strings.HasPrefix(strings.ToLower(u), "file:")):
		return parseFileGit(raw, u)
	case scpLike(u):
		hostPart, rest, _ := strings.Cut(u[len("git@"):], ":")
		rest, src.Ref = splitRef(rest)
		host, path = hostPart, rest
		src.Repo = "git@" + hostPart + ":" + rest
	case strings.Contains(u, "://"):
		pu, err := url.Parse(u)
		if err != nil {
			return bad(err.Error())
		}
		switch strings.ToLower(pu.Scheme) {
		case "https", "http", "ssh", "git":
		default:
			return bad("unsupported scheme " + pu.Scheme)
		}
		if pu.Fragment != "" {
			src.Ref = pu.Fragment
			pu.Fragment = ""
		}
		p := strings.TrimPrefix(pu.Path, "/")
		if src.Ref == "" {
			p, src.Ref = splitRef(p)
		}
		pu.Path = "/" + p
		pu.RawPath = ""
		host, path = pu.Hostname(), p
		src.Repo = strings.TrimSuffix(pu.String(), "/")
	default:
		if !prefixed {
			return bad("use git:<host>/<path> or a URL")
		}
		hostPart, rest, ok := strings.Cut(u, "/")
		if !ok {
			return bad("use git:<host>/<owner>/<repo>")
		}
		if !strings.Contains(hostPart, ".") && hostPart != "localhost" {
			return bad("the first part must be a host name such as github.com")
		}
		rest, src.Ref = splitRef(rest)
		host, path = hostPart, rest
		src.Repo = "https://" + hostPart + "/" + rest
	}
	path = strings.TrimSuffix(strings.Trim(path, "/"), ".git")
	if host == "" || path == "" || len(strings.Split(path, "/")) < 2 {
		return bad("needs a host and an owner/repository path")
	}
	if unsafePart(host, false) || unsafePart(path, true) {
		return bad("unsafe host or path")
	}
	if src.Ref != "" && (!gitRef().MatchString(src.Ref) || strings.Contains(src.Ref, "..")) {
		return bad("invalid ref " + src.Ref)
	}
	src.Host, src.Path = strings.ToLower(host), path
	return src, nil
}

// FileHost is the host part of the install directory of a repository on
// this machine (git:file:///abs/repo.git): no network host is spelled
// without a dot, so it cannot collide with one.
const FileHost = "file"

// parseFileGit parses a repository on this machine: git:/abs/repo.git or
// git:file:///abs/repo.git, with an optional @ref or #ref. The clone URL
// is always a file:// URL (git then copies objects rather than
// hard-linking them into the install).
func parseFileGit(raw, u string) (Source, error) {
	bad := func(why string) (Source, error) {
		return Source{}, fmt.Errorf("invalid git source %q: %s", strings.TrimSpace(raw), why)
	}
	p := u
	if strings.HasPrefix(strings.ToLower(u), "file:") {
		pu, err := url.Parse(u)
		if err != nil {
			return bad(err.Error())
		}
		if pu.Host != "" && pu.Host != "localhost" {
			return bad("a file: URL names a path on this machine (file:///path)")
		}
		p = pu.Path
		if pu.Fragment != "" {
			p += "#" + pu.Fragment
		}
	}
	if !strings.HasPrefix(p, "/") {
		return bad("a repository on this machine needs an absolute path")
	}
	src := Source{Raw: raw, Kind: KindGit}
	// A ref follows the last path element: "/srv/a@b/repo.git@v1".
	dir, last := filepath.Split(p)
	last, src.Ref = splitRef(last)
	p = filepath.Clean(dir + last)
	if p == "/" {
		return bad("needs the path of a repository")
	}
	if src.Ref != "" && (!gitRef().MatchString(src.Ref) || strings.Contains(src.Ref, "..")) {
		return bad("invalid ref " + src.Ref)
	}
	src.Repo = (&url.URL{Scheme: "file", Path: p}).String()
	src.Host = FileHost
	src.Path = strings.TrimSuffix(strings.TrimPrefix(p, "/"), ".git")
	if unsafePart(src.Path, true) {
		return bad("unsafe path")
	}
	return src, nil
}

// splitRef splits "path@ref" (or "path#ref") at the first separator.
func splitRef(p string) (string, string) {
	if i := strings.IndexAny(p, "@#"); i > 0 && i < len(p)-1 {
		return p[:i], p[i+1:]
	}
	return p, ""
}

func unsafePart(v string, allowSlash bool) bool {
	dec, err := url.PathUnescape(v)
	if err != nil {
		return true
	}
	for _, c := range []string{v, dec} {
		if strings.ContainsAny(c, "\x00\\") || strings.HasPrefix(c, "/") || strings.HasPrefix(c, "-") {
			return true
		}
		if !allowSlash && strings.Contains(c, "/") {
			return true
		}
		for _, seg := range strings.Split(c, "/") {
			if seg == ".." || seg == "." || seg == "" {
				return true
			}
		}
	}
	return false
}

// Spec is what npm installs: name@version, or the bare name.
func (s Source) Spec() string {
	if s.Version == "" {
		return s.Name
	}
	return s.Name + "@" + s.Version
}

// Pinned reports whether the source names a fixed version (an exact npm
// version) or a git ref: update leaves such packages alone.
func (s Source) Pinned() bool {
	switch s.Kind {
	case KindNPM:
		_, err := semver.StrictNewVersion(strings.TrimPrefix(s.Version, "v"))
		return s.Version != "" && err == nil
	case KindGit:
		return s.Ref != ""
	}
	return false
}

// Accepts reports whether an installed npm version matches the source's
// version or range (a dist-tag such as "latest" accepts any).
func (s Source) Accepts(installed string) bool {
	if s.Kind != KindNPM || s.Version == "" {
		return true
	}
	c, err := semver.NewConstraint(s.Version)
	if err != nil {
		return true // a dist-tag: whatever is installed
	}
	v, err := semver.NewVersion(installed)
	return err == nil && c.Check(v)
}

// Identity names the package for de-duplication: the npm name, the git
// host and path (without ref, so https and ssh URLs of one repository
// agree), or the resolved local path. base is the directory relative
// local paths are resolved against.
func (s Source) Identity(base string) string {
	switch s.Kind {
	case KindNPM:
		return "npm:" + s.Name
	case KindGit:
		return "git:" + s.Host + "/" + s.Path
	}
	p := s.Resolve(base)
	if r, err := filepath.EvalSymlinks(p); err == nil {
		p = r
	}
	return "local:" + p
}

// Resolve returns a local source's absolute path: "~" is the home
// directory, file: URLs are paths, anything relative is relative to base.
func (s Source) Resolve(base string) string {
	p := strings.TrimSpace(s.LocalPath)
	if strings.HasPrefix(p, "file://") {
		if u, err := url.Parse(p); err == nil {
			p = u.Path
		}
	} else if strings.HasPrefix(p, "file:") {
		p = strings.TrimPrefix(p, "file:")
	}
	if p == "~" || strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			p = filepath.Join(home, p[1:])
		}
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(base, p)
	}
	return filepath.Clean(p)
}

// Label is how messages name the package.
func (s Source) Label() string { return strings.TrimSpace(s.Raw) }
