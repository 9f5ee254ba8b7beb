package e2e

import (
	"bufio"
	"bytes"
	"os"
	"testing"
	"time"
)

// WaitFileLine waits until the file at path holds a line equal to line (the
// test plugin's --record file, a child's marker), or fails the test after
// timeout. It is how a test knows that a handler is really running before it
// acts on it, instead of sleeping and hoping.
func WaitFileLine(t testing.TB, path, line string, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		if b, err := os.ReadFile(path); err == nil {
			sc := bufio.NewScanner(bytes.NewReader(b))
			for sc.Scan() {
				if sc.Text() == line {
					return
				}
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no line %q in %s after %v", line, path, timeout)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
