package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
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

// FirstDifference shows where got and want (line-oriented texts, such as
// a golden file) first differ: the line's number and both versions of it.
func FirstDifference(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; i < len(g) || i < len(w); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if i >= len(g) || i >= len(w) || gl != wl {
			return fmt.Sprintf("line %d:\n  got  %q\n  want %q\n(got %d lines, want %d)", i+1, gl, wl, len(g), len(w))
		}
	}
	return "no difference"
}

// MatchPi16Golden fails t unless got (compact JSON) is, indented by one
// space as JSON.stringify(v, null, 1) does, the golden file name of
// test/testdata/pi16.
func MatchPi16Golden(t testing.TB, got, name string) {
	t.Helper()
	var buf bytes.Buffer
	if err := json.Indent(&buf, []byte(got), "", " "); err != nil {
		t.Fatalf("not JSON (%v):\n%s", err, got)
	}
	want := strings.TrimSpace(Pi16Testdata(t, name))
	if g := buf.String(); g != want {
		t.Fatalf("differs from pi 1.6 (%s):\n%s", name, FirstDifference(g, want))
	}
}
