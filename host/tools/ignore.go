package tools

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/atomic-go/atomic/internal/fsutil"
)

// ignoreFileNames are the per-directory ignore files honoured by the
// walker, in increasing order of precedence.
var ignoreFileNames = []string{".gitignore", ".ignore"}

// ignoreRule is one pattern line of an ignore file.
type ignoreRule struct {
	re       *regexp.Regexp
	negate   bool
	dirOnly  bool
	basename bool // the pattern has no "/" and matches a name at any depth
}

// ignoreFile holds the rules of the ignore files of one directory.
type ignoreFile struct {
	base  string // absolute directory the patterns are relative to
	rules []ignoreRule
}

// parseIgnoreRule parses one line in .gitignore syntax; ok is false for
// blank lines and comments.
func parseIgnoreRule(line string) (ignoreRule, bool) {
	line = strings.TrimSuffix(line, "\r")
	if line == "" || line[0] == '#' {
		return ignoreRule{}, false
	}
	// Trailing spaces are dropped unless escaped with a backslash.
	for strings.HasSuffix(line, " ") && !strings.HasSuffix(line, `\ `) {
		line = line[:len(line)-1]
	}
	var r ignoreRule
	switch {
	case line[0] == '!':
		r.negate = true
		line = line[1:]
	case strings.HasPrefix(line, `\!`), strings.HasPrefix(line, `\#`):
		line = line[1:]
	}
	if strings.HasSuffix(line, "/") {
		r.dirOnly = true
		line = strings.TrimRight(line, "/")
	}
	if line == "" {
		return ignoreRule{}, false
	}
	if strings.Contains(line, "/") {
		line = strings.TrimPrefix(line, "/")
	} else {
		r.basename = true
	}
	re, err := regexp.Compile(globToRegexp(line, false))
	if err != nil {
		return ignoreRule{}, false
	}
	r.re = re
	return r, true
}

// parseIgnore parses the text of an ignore file whose patterns are relative
// to base.
func parseIgnore(base, text string) *ignoreFile {
	f := &ignoreFile{base: base}
	for _, line := range strings.Split(text, "\n") {
		if r, ok := parseIgnoreRule(line); ok {
			f.rules = append(f.rules, r)
		}
	}
	return f
}

// maxIgnoreFileBytes is the largest ignore file read; a larger one (or one
// that is not a regular file, such as a FIFO) is skipped.
const maxIgnoreFileBytes = 4 << 20

// loadIgnoreDir reads the ignore files of dir, or returns nil when there are
// none.
func loadIgnoreDir(dir string) *ignoreFile {
	var f *ignoreFile
	for _, name := range ignoreFileNames {
		data, err := fsutil.ReadRegular(filepath.Join(dir, name), maxIgnoreFileBytes)
		if err != nil {
			continue
		}
		g := parseIgnore(dir, string(data))
		if f == nil {
			f = g
		} else {
			f.rules = append(f.rules, g.rules...)
		}
	}
	if f != nil && len(f.rules) == 0 {
		return nil
	}
	return f
}

// match reports whether a rule of f applies to the absolute path abs and,
// if so, whether the last applicable rule ignores it.
func (f *ignoreFile) match(abs string, isDir bool) (matched, ignored bool) {
	rel, err := filepath.Rel(f.base, abs)
	if err != nil {
		return false, false
	}
	rel = filepath.ToSlash(rel)
	if rel == "." || rel == ".." || strings.HasPrefix(rel, "../") {
		return false, false
	}
	name := path.Base(rel)
	for i := len(f.rules) - 1; i >= 0; i-- {
		r := f.rules[i]
		if r.dirOnly && !isDir {
			continue
		}
		target := rel
		if r.basename {
			target = name
		}
		if r.re.MatchString(target) {
			return true, !r.negate
		}
	}
	return false, false
}

// ignoreStack is the list of ignore files that apply in a directory, from
// the outermost to the innermost; inner files take precedence.
type ignoreStack []*ignoreFile

func (s ignoreStack) ignored(abs string, isDir bool) bool {
	for i := len(s) - 1; i >= 0; i-- {
		if matched, ignored := s[i].match(abs, isDir); matched {
			return ignored
		}
	}
	return false
}

func (s ignoreStack) with(f *ignoreFile) ignoreStack {
	if f == nil {
		return s
	}
	out := make(ignoreStack, len(s), len(s)+1)
	copy(out, s)
	return append(out, f)
}

// parentIgnores returns the ignore files of the directories between the
// enclosing git work tree's top (if root is inside one) and root, root
// excluded.
func parentIgnores(root string) ignoreStack {
	var dirs []string
	top := ""
	for d := root; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			top = d
			break
		}
		parent := filepath.Dir(d)
		if parent == d {
			break
		}
		d = parent
		dirs = append(dirs, d)
	}
	if top == "" || top == root {
		return nil
	}
	var s ignoreStack
	for i := len(dirs) - 1; i >= 0; i-- {
		s = s.with(loadIgnoreDir(dirs[i]))
	}
	return s
}

// walkEntry is one file system entry visited by walkTree.
type walkEntry struct {
	Abs   string
	Rel   string // slash-separated, relative to the walk root
	Entry fs.DirEntry
	IsDir bool
}

// errSkipDir returned by a walk callback for a directory skips its
// contents; errStopWalk ends the walk without error.
var (
	errSkipDir  = errors.New("skip directory")
	errStopWalk = errors.New("stop walk")
)

// walkTree visits every entry below the directory root in lexical order,
// depth first. Hidden entries are included, ".git" is skipped, and entries
// ignored by .gitignore or .ignore files (of root, of directories below it,
// and of the directories between root and the top of its git work tree)
// are skipped. Symbolic links are reported but not followed. Unreadable
// directories are skipped silently. The walk stops with ErrAborted when ctx
// is cancelled.
func walkTree(ctx context.Context, root string, fn func(walkEntry) error) error {
	err := walkDir(ctx, root, "", parentIgnores(root), fn)
	if errors.Is(err, errStopWalk) {
		return nil
	}
	return err
}

func walkDir(ctx context.Context, dir, rel string, stack ignoreStack, fn func(walkEntry) error) error {
	if err := aborted(ctx); err != nil {
		return err
	}
	stack = stack.with(loadIgnoreDir(dir))
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	for _, d := range entries {
		if err := aborted(ctx); err != nil {
			return err
		}
		name := d.Name()
		if name == ".git" {
			continue
		}
		e := walkEntry{Abs: filepath.Join(dir, name), Rel: name, Entry: d, IsDir: d.IsDir()}
		if rel != "" {
			e.Rel = rel + "/" + name
		}
		if stack.ignored(e.Abs, e.IsDir) {
			continue
		}
		if err := fn(e); err != nil {
			if errors.Is(err, errSkipDir) {
				continue
			}
			return err
		}
		if e.IsDir {
			if err := walkDir(ctx, e.Abs, e.Rel, stack, fn); err != nil {
				return err
			}
		}
	}
	return nil
}
