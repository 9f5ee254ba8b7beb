package jsext

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// errOwnDescriptor is the cause of a refused path.
var errOwnDescriptor = errors.New("refused: the path names the agent's own process (its descriptors carry the protocol)")

// checkScriptPath is the one rule for every path a script hands to the
// agent (fs, require, child_process's program and cwd): a path that names
// the agent's own process — /proc/self/…, /proc/thread-self/…,
// /proc/<our pid or thread>/…, /dev/fd/…, /dev/stdin, /dev/stdout,
// /dev/stderr — is refused, whatever symbolic links or relative or ".."
// components lead there (they are followed as the kernel follows them).
// Scripts thus cannot write into the protocol stream or read the
// protocol's input through a descriptor path.
func checkScriptPath(p string) error {
	if p == "" {
		return nil
	}
	if !filepath.IsAbs(p) {
		cwd, err := os.Getwd()
		if err != nil {
			return nil
		}
		p = cwd + "/" + p
	}
	queue := strings.Split(p, "/")
	resolved := "/"
	for links := 0; len(queue) > 0; {
		c := queue[0]
		queue = queue[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			resolved = filepath.Dir(resolved)
			continue
		}
		next := filepath.Join(resolved, c)
		if ownProcessPath(next) {
			return errOwnDescriptor
		}
		st, err := os.Lstat(next)
		if err != nil || st.Mode()&fs.ModeSymlink == 0 {
			resolved = next
			continue
		}
		target, err := os.Readlink(next)
		if err != nil || (!filepath.IsAbs(target) && strings.Contains(target, ":[")) {
			// An unreadable link, or a descriptor link to a pipe or a
			// socket: it is what it is.
			resolved = next
			continue
		}
		if links++; links > 255 {
			return fmt.Errorf("refused: too many levels of symbolic links")
		}
		if filepath.IsAbs(target) {
			resolved = "/"
		}
		queue = append(strings.Split(target, "/"), queue...)
	}
	if ownProcessPath(resolved) {
		return errOwnDescriptor
	}
	return nil
}

// ownProcessPath reports whether a clean absolute path lies in this
// process's /proc entry or names a standard descriptor.
func ownProcessPath(p string) bool {
	switch p {
	case "/dev/fd", "/dev/stdin", "/dev/stdout", "/dev/stderr":
		return true
	}
	if strings.HasPrefix(p, "/dev/fd/") {
		return true
	}
	rest, ok := strings.CutPrefix(p, "/proc/")
	if !ok {
		return false
	}
	first, _, _ := strings.Cut(rest, "/")
	switch first {
	case "self", "thread-self":
		return true
	}
	n, err := strconv.Atoi(first)
	if err != nil || n <= 0 {
		return false
	}
	if n == os.Getpid() {
		return true
	}
	// A thread of this process (not listed in /proc, but reachable).
	_, err = os.Lstat("/proc/self/task/" + first)
	return err == nil
}
