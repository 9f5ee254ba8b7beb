package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

// A build directory of a process that is gone is removed by the next
// test process; one of a live process stays.
func TestBuildDirRemovesThoseOfEndedProcesses(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	dead := filepath.Join(os.TempDir(), "atomic-e2e-test-"+strconv.Itoa(gone.Process.Pid)+"-x")
	live := filepath.Join(os.TempDir(), "atomic-e2e-test-"+strconv.Itoa(os.Getppid())+"-y")
	for _, d := range []string{dead, live} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	d, err := buildDir("atomic-e2e-test-")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dead); !os.IsNotExist(err) {
		t.Errorf("the directory of an ended process is still there: %v", err)
	}
	if _, err := os.Stat(live); err != nil {
		t.Errorf("the directory of a live process was removed: %v", err)
	}
	if _, err := os.Stat(d); err != nil {
		t.Fatal(err)
	}
}
