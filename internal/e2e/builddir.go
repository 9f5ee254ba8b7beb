package e2e

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// buildDir makes the directory a test process builds a binary into:
// prefix, the process id, then a random part. A test process cannot
// remove it when it exits (no test outlives the build), so each new one
// removes those of processes that are gone, and older unnamed ones: a
// binary is about 100 MB, and 500 runs of the suite filled the disk.
func buildDir(prefix string) (string, error) {
	tmp := os.TempDir()
	old, _ := filepath.Glob(filepath.Join(tmp, prefix+"*"))
	for _, d := range old {
		rest := strings.TrimPrefix(filepath.Base(d), prefix)
		pidText, _, named := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(pidText)
		switch {
		case named && err == nil && pid > 0:
			if errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) {
				_ = os.RemoveAll(d)
			}
		default: // made before directories carried the process id
			if st, err := os.Stat(d); err == nil && time.Since(st.ModTime()) > time.Hour {
				_ = os.RemoveAll(d)
			}
		}
	}
	return os.MkdirTemp(tmp, fmt.Sprintf("%s%d-", prefix, os.Getpid()))
}
