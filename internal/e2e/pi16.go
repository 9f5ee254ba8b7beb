package e2e

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// Pi16Testdata returns a file of test/testdata/pi16 (what pi 1.6 itself
// wrote or exports, recorded for tests that compare atomic with it).
func Pi16Testdata(t testing.TB, name string) string {
	t.Helper()
	_, here, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("no source path for internal/e2e")
	}
	b, err := os.ReadFile(filepath.Join(filepath.Dir(here), "..", "..", "test", "testdata", "pi16", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
