package resources

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/atomic-go/atomic/host/tools"
	"github.com/atomic-go/atomic/internal/fsutil"
)

// maxScanDepth bounds how deep a skills directory is searched.
const maxScanDepth = 16

// candidate is a file that should define a skill or a template.
type candidate struct {
	path        string // absolute
	defaultName string
	info        SourceInfo
	// st is the file's lstat result when the scanner has it already (a
	// regular file, not a link), which saves a system call per file.
	st fs.FileInfo
	// builtin content, for resources that do not come from the disk
	text    string
	builtin bool
}

// scanner walks resource roots and collects candidate files and
// diagnostics. It is used by one goroutine.
type scanner struct {
	kind  string // KindSkill or KindPrompt, for diagnostics
	diags []Diagnostic
	// visited holds the directories already scanned, so that a directory
	// reached twice (through a symbolic link) is read once.
	visited map[string]bool
}

func newScanner(kind string) *scanner {
	return &scanner{kind: kind, visited: map[string]bool{}}
}

func (s *scanner) diag(typ, path, msg string) {
	s.diags = append(s.diags, Diagnostic{Type: typ, ResourceType: s.kind, Message: msg, Path: path})
}

// statFollow stats a path, following symbolic links, and turns a link
// loop or a dangling link into a diagnostic. ok is false when the entry
// should be skipped.
func (s *scanner) statFollow(path string) (fs.FileInfo, bool) {
	st, err := os.Stat(path)
	if err == nil {
		return st, true
	}
	switch {
	case errors.Is(err, syscall.ELOOP):
		s.diag(DiagWarning, path, "symbolic link loop; skipped")
	case errors.Is(err, fs.ErrNotExist):
		if _, lerr := os.Lstat(path); lerr == nil {
			s.diag(DiagWarning, path, "broken symbolic link; skipped")
		}
	default:
		s.diag(DiagWarning, path, "cannot read: "+errText(err))
	}
	return nil, false
}

// statRoot stats a root path. A root that does not exist is reported
// unless it is optional (a conventional directory that may be absent).
func (s *scanner) statRoot(root string, optional bool) (fs.FileInfo, bool) {
	if st, err := os.Stat(root); err == nil {
		return st, true
	}
	if _, err := os.Lstat(root); err != nil {
		if !optional {
			s.diag(DiagError, root, "path does not exist")
		}
		return nil, false
	}
	return s.statFollow(root)
}

// skillRoot collects the skills below root. A missing root is silently
// ignored when optional (conventional directories); a path the user named
// must exist. With rootFiles, *.md files directly in root are skills too.
func (s *scanner) skillRoot(root string, info SourceInfo, rootFiles, optional bool, out *[]candidate) {
	st, ok := s.statRoot(root, optional)
	if !ok {
		return
	}
	if !st.IsDir() {
		name := filepath.Base(root)
		if name == SkillFileName {
			name = filepath.Base(filepath.Dir(root))
		} else if !strings.HasSuffix(name, ".md") {
			s.diag(DiagError, root, "a skill file must be a SKILL.md or another .md file")
			return
		} else {
			name = strings.TrimSuffix(name, ".md")
		}
		*out = append(*out, candidate{path: root, defaultName: name, info: info})
		return
	}
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		s.statFollow(root)
		return
	}
	s.skillDir(root, real, info, rootFiles, true, tools.IgnoreMatcher{}, map[string]bool{}, 0, out)
}

// skillDir searches dir, whose path with every symbolic link resolved is
// real. A directory holding a SKILL.md is one skill and is not searched
// further; other directories are searched recursively. Links are
// followed; one leading back to a directory being searched is a loop.
func (s *scanner) skillDir(dir, real string, info SourceInfo, rootFiles, isRoot bool, ign tools.IgnoreMatcher, ancestors map[string]bool, depth int, out *[]candidate) {
	if ancestors[real] {
		s.diag(DiagWarning, dir, fmt.Sprintf("symbolic link loop: leads back to %s; skipped", real))
		return
	}
	if s.visited[real] {
		return
	}
	if depth > maxScanDepth {
		s.diag(DiagWarning, dir, fmt.Sprintf("more than %d directories deep; not searched further", maxScanDepth))
		return
	}
	s.visited[real] = true
	// One lstat tells a skill directory from a container.
	if st, err := os.Lstat(filepath.Join(dir, SkillFileName)); err == nil {
		c := candidate{path: filepath.Join(dir, SkillFileName), defaultName: filepath.Base(dir), info: info}
		if st.Mode().IsRegular() {
			c.st = st
		}
		*out = append(*out, c)
		return
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		s.diag(DiagWarning, dir, "cannot read directory: "+errText(err))
		return
	}
	ign = ign.Enter(dir)
	ancestors[real] = true
	defer delete(ancestors, real)
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") || name == "node_modules" {
			continue
		}
		abs := filepath.Join(dir, name)
		childReal := filepath.Join(real, name)
		isDir := e.IsDir()
		if e.Type()&fs.ModeSymlink != 0 {
			st, ok := s.statFollow(abs)
			if !ok {
				continue
			}
			if isDir = st.IsDir(); isDir {
				r, err := filepath.EvalSymlinks(abs)
				if err != nil {
					s.statFollow(abs)
					continue
				}
				childReal = r
			}
		}
		if ign.Ignored(abs, isDir) {
			continue
		}
		switch {
		case isDir:
			s.skillDir(abs, childReal, info, rootFiles, false, ign, ancestors, depth+1, out)
		case isRoot && rootFiles && strings.HasSuffix(name, ".md"):
			*out = append(*out, candidate{path: abs, defaultName: strings.TrimSuffix(name, ".md"), info: info})
		}
	}
}

// templateRoot collects the templates of root: the *.md files directly in
// it when it is a directory (not recursive), or root itself when it is a
// file.
func (s *scanner) templateRoot(root string, info SourceInfo, optional bool, out *[]candidate) {
	st, ok := s.statRoot(root, optional)
	if !ok {
		return
	}
	if !st.IsDir() {
		if !strings.HasSuffix(root, ".md") {
			s.diag(DiagError, root, "a prompt template must be a .md file")
			return
		}
		*out = append(*out, candidate{path: root, defaultName: strings.TrimSuffix(filepath.Base(root), ".md"), info: info})
		return
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		s.diag(DiagWarning, root, "cannot read directory: "+errText(err))
		return
	}
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") || !strings.HasSuffix(name, ".md") {
			continue
		}
		abs := filepath.Join(root, name)
		if e.Type()&fs.ModeSymlink != 0 {
			if _, ok := s.statFollow(abs); !ok {
				continue
			}
		}
		*out = append(*out, candidate{path: abs, defaultName: strings.TrimSuffix(name, ".md"), info: info})
	}
}

// readResult is a candidate's file: its text, its identity, or the error
// reading it.
type readResult struct {
	text string
	id   fileID
	err  error
}

// parsed is a candidate read and parsed.
type parsed[T any] struct {
	readResult
	val   T
	diags []Diagnostic
	ok    bool
}

// loadAll reads and parses the candidates on several goroutines (file
// reads and YAML parsing dominate start-up with many resources) and
// returns the results in the order of cands.
func loadAll[T any](kind string, cands []candidate, parse func(c candidate, text string) (T, []Diagnostic, bool)) []parsed[T] {
	res := make([]parsed[T], len(cands))
	one := func(i int) {
		r := &res[i]
		r.readResult = readCandidate(cands[i])
		if r.err != nil {
			return
		}
		// A file must never take the agent down, even through a bug in a
		// parser: a panic becomes an error for that file.
		defer func() {
			if p := recover(); p != nil {
				var zero T
				r.val, r.ok = zero, false
				r.diags = []Diagnostic{{Type: DiagError, ResourceType: kind, Path: cands[i].path,
					Message: fmt.Sprintf("internal error while parsing: %v; not loaded", p)}}
			}
		}()
		r.val, r.diags, r.ok = parse(cands[i], r.text)
		r.text = ""
	}
	workers := min(runtime.GOMAXPROCS(0)*2, len(cands)/8)
	if workers <= 1 {
		for i := range cands {
			one(i)
		}
		return res
	}
	var wg sync.WaitGroup
	var next atomic.Int64
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= len(cands) {
					return
				}
				one(i)
			}
		}()
	}
	wg.Wait()
	return res
}

// readCandidate reads a resource file through fsutil's one rule: a
// regular file of at most fsutil.MaxResourceFile bytes (a FIFO, a device
// or a directory is refused at once, never waited on).
func readCandidate(c candidate) readResult {
	if c.builtin {
		return readResult{text: c.text, id: fileID{path: c.path}}
	}
	data, st, err := fsutil.ReadRegularInfo(c.path, fsutil.MaxResourceFile)
	if err != nil {
		return readResult{err: err}
	}
	return readResult{text: string(data), id: idOf(st, c.path)}
}

// fileID identifies a file or directory independently of the path it was
// reached by.
type fileID struct {
	dev, ino uint64
	path     string // when the system gives no inode
}

func idOf(st fs.FileInfo, p string) fileID {
	if sys, ok := st.Sys().(*syscall.Stat_t); ok {
		return fileID{dev: uint64(sys.Dev), ino: sys.Ino}
	}
	if real, err := filepath.EvalSymlinks(p); err == nil {
		p = real
	}
	return fileID{path: p}
}

// errText is an error message without the path the caller already shows.
func errText(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// SkillFiles lists the skill files below root, by the rule of a skills
// directory: a directory holding SKILL.md is one skill (searched no
// further), other directories are searched recursively, *.md files
// directly in root are skills too; dot entries, node_modules and ignored
// paths are left out. A file root is itself. Packages use it to list
// what their skills directories offer before filtering.
func SkillFiles(root string) []string {
	var cands []candidate
	newScanner(KindSkill).skillRoot(root, SourceInfo{}, true, true, &cands)
	out := make([]string, len(cands))
	for i, c := range cands {
		out[i] = c.path
	}
	return out
}
