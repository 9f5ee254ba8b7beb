//go:build unix

package leaktest

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// Running reports whether process pid runs (a zombie does not count): the
// check of tests that make sure no child process is left behind.
func Running(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	f := strings.Fields(string(b)[strings.LastIndexByte(string(b), ')')+1:])
	return len(f) > 0 && f[0] != "Z"
}

// Pids reads the process ids that test programs wrote, one per line or
// separated by spaces, into path: a file, or a directory of such files.
// Files that are missing or unreadable give none.
func Pids(path string) []int {
	files := []string{path}
	if ents, err := os.ReadDir(path); err == nil {
		files = files[:0]
		for _, e := range ents {
			files = append(files, filepath.Join(path, e.Name()))
		}
	}
	var out []int
	for _, f := range files {
		b, _ := os.ReadFile(f)
		for _, l := range strings.Fields(string(b)) {
			if pid, err := strconv.Atoi(l); err == nil {
				out = append(out, pid)
			}
		}
	}
	return out
}
