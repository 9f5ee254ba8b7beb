package nodeext

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atomic-go/atomic/host/extensions"
	"github.com/atomic-go/atomic/internal/e2e"
)

// pi16Check loads test/testdata/pi16/<name> in Node, with the line
// `const <variable> = <value as JSON>;` before it, and returns the
// description of the command it registers.
func pi16Check(t *testing.T, name, variable string, value any) string {
	t.Helper()
	h := &fakeHost{uiCh: make(chan string, 10)}
	rt := newRuntime(t, h)
	src := []byte(e2e.Pi16Testdata(t, name))
	v, _ := json.Marshal(value)
	file := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(file, append([]byte("const "+variable+" = "+string(v)+";\n"), src...), 0o644); err != nil {
		t.Fatal(err)
	}
	ext := loadExt(t, rt, h, file, extensions.Options{})
	cmds := ext.Commands()
	if len(cmds) != 1 {
		t.Fatalf("commands: %+v", cmds)
	}
	return cmds[0].Description
}

// Every name pi 1.6's packages export (test/testdata/pi16/exports.txt,
// listed from the installed packages; see exports.mjs) exists in the
// stand-ins as the Node runtime loads them, with pi's kind, as in goja
// (jsext's TestPi16ExportsInGoja runs the same check).
func TestPi16ExportsInNode(t *testing.T) {
	if got := pi16Check(t, "exports-check.ts", "listing", e2e.Pi16Testdata(t, "exports.txt")); got != "ok" {
		t.Fatalf("the stand-ins differ from pi 1.6's exports:\n%s", got)
	}
}

// pi 1.6's library functions give in Node what they give in goja
// (jsext's TestPi16LibraryInGoja): test/testdata/pi16/library-check.golden.
func TestPi16LibraryInNode(t *testing.T) {
	want := strings.TrimSpace(e2e.Pi16Testdata(t, "library-check.golden"))
	if got := pi16Check(t, "library-check.ts", "workDir", t.TempDir()); got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}

// getPackageDir() is the directory of atomic's executable in Node as in
// goja (jsext's TestGetPackageDirIsTheAgents), not Node's.
func TestGetPackageDirIsTheAgents(t *testing.T) {
	t.Setenv("PI_PACKAGE_DIR", "")
	h := &fakeHost{uiCh: make(chan string, 10)}
	rt := newRuntime(t, h)
	file := filepath.Join(t.TempDir(), "dir.ts")
	src := `import { getPackageDir } from "@earendil-works/pi-coding-agent";
export default function (pi: any) { pi.registerCommand("dir", { description: getPackageDir(), handler: async () => {} }); }
`
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	ext := loadExt(t, rt, h, file, extensions.Options{})
	if got, want := ext.Commands()[0].Description, packageDir(); got != want || want == "" {
		t.Fatalf("getPackageDir() = %q, want %q", got, want)
	}
}
