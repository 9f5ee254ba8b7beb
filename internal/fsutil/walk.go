package fsutil

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Default bounds of Walk.
const (
	DefaultWalkDepth   = 32
	DefaultWalkEntries = 20000
)

// WalkOptions configure Walk.
type WalkOptions struct {
	// MaxDepth bounds the directories entered below root
	// (DefaultWalkDepth when 0); MaxEntries the directory entries read in
	// all (DefaultWalkEntries when 0).
	MaxDepth, MaxEntries int
	// FollowSymlinks walks symlinks to directories too; a directory
	// already on the current path (same device and inode) is a loop and
	// is not entered again.
	FollowSymlinks bool
	// Skip leaves an entry out (a directory is not entered); nil keeps
	// everything.
	Skip func(path string, d fs.DirEntry) bool
}

// WalkProblem is a part of a walk that was left out: a symlink loop, a
// directory past the depth bound, the entry bound reached (Limit).
type WalkProblem struct {
	Path, Message string
	// Limit is set when the walk stopped at a bound, so what it listed is
	// not everything.
	Limit bool
}

// Walk lists the non-directory entries below root in lexical order,
// calling fn with each path and its entry (symlinks are reported as
// themselves unless they lead to a directory that is followed). It is
// bounded in depth and entries and never loops: the device and inode of
// every directory on the current path are kept. It returns what was left
// out.
func Walk(root string, o WalkOptions, fn func(path string, d fs.DirEntry)) []WalkProblem {
	if o.MaxDepth <= 0 {
		o.MaxDepth = DefaultWalkDepth
	}
	if o.MaxEntries <= 0 {
		o.MaxEntries = DefaultWalkEntries
	}
	w := &walker{o: o, fn: fn, onPath: map[devIno]bool{}}
	st, err := os.Stat(root)
	if err != nil || !st.IsDir() {
		return nil
	}
	w.dir(root, st, 0)
	return w.problems
}

type walker struct {
	o        WalkOptions
	fn       func(string, fs.DirEntry)
	onPath   map[devIno]bool
	entries  int
	stopped  bool
	problems []WalkProblem
}

func (w *walker) dir(dir string, st fs.FileInfo, depth int) {
	id, ok := idOf(st)
	if ok {
		if w.onPath[id] {
			w.problems = append(w.problems, WalkProblem{Path: dir, Message: "symlink loop: directory already on the path; not entered"})
			return
		}
		w.onPath[id] = true
		defer delete(w.onPath, id)
	}
	if depth > w.o.MaxDepth {
		w.problems = append(w.problems, WalkProblem{Path: dir, Message: fmt.Sprintf("deeper than %d directories; not entered", w.o.MaxDepth), Limit: true})
		return
	}
	items, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, it := range items {
		if w.stopped {
			return
		}
		w.entries++
		if w.entries > w.o.MaxEntries {
			w.stopped = true
			w.problems = append(w.problems, WalkProblem{Path: dir, Message: fmt.Sprintf("more than %d entries; the rest is left out", w.o.MaxEntries), Limit: true})
			return
		}
		p := filepath.Join(dir, it.Name())
		if w.o.Skip != nil && w.o.Skip(p, it) {
			continue
		}
		switch {
		case it.IsDir():
			if sub, err := os.Lstat(p); err == nil {
				w.dir(p, sub, depth+1)
			}
		case it.Type()&fs.ModeSymlink != 0 && w.o.FollowSymlinks:
			if sub, err := os.Stat(p); err == nil && sub.IsDir() {
				w.dir(p, sub, depth+1)
				continue
			}
			w.fn(p, it)
		default:
			w.fn(p, it)
		}
	}
}
