package tui

import (
	"bufio"
	"context"
	"io/fs"
	"os/exec"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// Bounds of the @ file list: how many paths it holds, how long listing
// may take, how many suggestions are shown.
const (
	filesMax      = 20000
	filesTimeout  = 2 * time.Second
	filesShown    = 20
	filesMaxDepth = 16
)

// filesMsg carries a project's file list to the program.
type filesMsg struct {
	cwd   string
	paths []string // slash-separated, relative; directories end in "/"
}

// listFiles lists the project's files for @ completion: in a git work
// tree what git lists (tracked and untracked, .gitignore respected),
// elsewhere a walk that skips hidden and node_modules directories; at
// most filesMax paths, with their directories.
func listFiles(ctx context.Context, cwd string) []string {
	ctx, cancel := context.WithTimeout(ctx, filesTimeout)
	defer cancel()
	files, ok := gitFiles(ctx, cwd)
	if !ok {
		files = walkFiles(ctx, cwd)
	}
	dirs := map[string]bool{}
	for _, f := range files {
		for d := path.Dir(f); d != "." && d != "/" && !dirs[d]; d = path.Dir(d) {
			dirs[d] = true
		}
	}
	out := files
	for d := range dirs {
		out = append(out, d+"/")
	}
	sort.Strings(out)
	return out
}

func gitFiles(ctx context.Context, cwd string) ([]string, bool) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel() // stops git once filesMax paths are read
	cmd := exec.CommandContext(ctx, "git", "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	cmd.Dir = cwd // stderr stays nil: nothing reaches the screen
	out, err := cmd.StdoutPipe()
	if err != nil || cmd.Start() != nil {
		return nil, false
	}
	var files []string
	seen := map[string]bool{}
	r := bufio.NewReaderSize(out, 64<<10)
	for len(files) < filesMax {
		f, err := r.ReadString(0)
		if f = strings.TrimSuffix(f, "\x00"); f != "" && !seen[f] {
			seen[f] = true
			files = append(files, f)
		}
		if err != nil {
			break
		}
	}
	full := len(files) >= filesMax
	if full {
		cancel()
	}
	if err := cmd.Wait(); err != nil && !full {
		return nil, false // not a work tree (or git is missing)
	}
	return files, true
}

func walkFiles(ctx context.Context, cwd string) []string {
	var files []string
	_ = filepath.WalkDir(cwd, func(p string, d fs.DirEntry, err error) error {
		if ctx.Err() != nil || len(files) >= filesMax {
			return filepath.SkipAll
		}
		if err != nil {
			if d != nil && d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		rel, _ := filepath.Rel(cwd, p)
		if rel == "." {
			return nil
		}
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			name := d.Name()
			if strings.HasPrefix(name, ".") || name == "node_modules" || strings.Count(rel, "/") >= filesMaxDepth {
				return filepath.SkipDir
			}
			return nil
		}
		files = append(files, rel)
		return nil
	})
	return files
}

// matchFiles ranks paths for a query: the file name equal to it, then
// starting with it, containing it, the path containing it, the query's
// letters in order in the path; directories first among equals, then
// shallower and shorter paths. A query with a "/" matches within the
// directory it names.
func matchFiles(paths []string, query string) []string {
	q := strings.ToLower(query)
	dir := ""
	if i := strings.LastIndex(q, "/"); i >= 0 {
		dir, q = q[:i+1], q[i+1:]
	}
	type scored struct {
		p     string
		score int
	}
	var hits []scored
	for _, p := range paths {
		lp := strings.ToLower(p)
		if dir != "" {
			if !strings.HasPrefix(lp, dir) || lp == dir {
				continue
			}
			lp = lp[len(dir):]
		}
		isDir := strings.HasSuffix(lp, "/")
		base := path.Base(strings.TrimSuffix(lp, "/"))
		s := 0
		switch {
		case q == "":
			s = 1
			if dir != "" && strings.Contains(strings.TrimSuffix(lp, "/"), "/") {
				s = 0 // an empty query in a directory: its entries only
			}
		case base == q:
			s = 100
		case strings.HasPrefix(base, q):
			s = 80
		case strings.Contains(base, q):
			s = 50
		case strings.Contains(lp, q):
			s = 30
		case subsequence(lp, q):
			s = 10
		}
		if s == 0 {
			continue
		}
		if isDir {
			s += 5
		}
		hits = append(hits, scored{p, s})
	}
	sort.SliceStable(hits, func(i, j int) bool {
		a, b := hits[i], hits[j]
		if a.score != b.score {
			return a.score > b.score
		}
		if da, db := strings.Count(strings.TrimSuffix(a.p, "/"), "/"), strings.Count(strings.TrimSuffix(b.p, "/"), "/"); da != db {
			return da < db
		}
		if len(a.p) != len(b.p) {
			return len(a.p) < len(b.p)
		}
		return a.p < b.p
	})
	out := make([]string, 0, min(len(hits), filesShown))
	for i := 0; i < len(hits) && i < filesShown; i++ {
		out = append(out, hits[i].p)
	}
	return out
}

func subsequence(s, q string) bool {
	for _, r := range q {
		i := strings.IndexRune(s, r)
		if i < 0 {
			return false
		}
		s = s[i+len(string(r)):]
	}
	return true
}
