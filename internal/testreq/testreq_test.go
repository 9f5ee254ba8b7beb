package testreq

import "testing"

func TestRequired(t *testing.T) {
	t.Setenv(Env, "npm, node chromium")
	for dep, want := range map[string]bool{"npm": true, "node": true, "chromium": true, "git": false, "": false} {
		if got := Required(dep); got != want {
			t.Errorf("Required(%q) = %v, want %v", dep, got, want)
		}
	}
}

// fakeT records how Missing ended the test.
type fakeT struct {
	testing.TB
	skipped, failed bool
}

func (f *fakeT) Helper()               {}
func (f *fakeT) Skipf(string, ...any)  { f.skipped = true }
func (f *fakeT) Fatalf(string, ...any) { f.failed = true }

func TestMissingSkipsUnlessRequired(t *testing.T) {
	t.Setenv(Env, "npm")
	var a, b fakeT
	Missing(&a, "chromium", "not on PATH")
	Missing(&b, "npm", "registry unreachable")
	if !a.skipped || a.failed {
		t.Errorf("chromium (not required): skipped %v failed %v", a.skipped, a.failed)
	}
	if b.skipped || !b.failed {
		t.Errorf("npm (required): skipped %v failed %v", b.skipped, b.failed)
	}
}
