package jsext

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/atomic-go/atomic/host/extensions"
)

// loadWithin loads the script at name (written beforehand) and fails the
// test if the load does not return within the deadline (a read blocked on
// a FIFO ignores the load's context).
func loadWithin(t *testing.T, h *harness, name string) error {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		_, err := h.load(name, mustRead(t, filepath.Join(h.dir, name)))
		done <- err
	}()
	select {
	case err := <-done:
		return err
	case <-time.After(15 * time.Second):
		t.Fatalf("loading %s did not return (blocked reading a special file)", name)
		return nil
	}
}

func mustRead(t *testing.T, p string) string {
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func mkfifo(t *testing.T, p string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
}

func symlink(t *testing.T, target, p string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, p); err != nil {
		t.Fatal(err)
	}
}

// A source file that is not a regular file (a FIFO, a device, a symlink to
// one, a loop) is refused, naming the file and what it is, in goja: the
// load returns instead of blocking or reading until memory runs out.
func TestScriptSourceNotRegularIsRefused(t *testing.T) {
	cases := []struct {
		name  string
		src   string
		setup func(t *testing.T, dir string)
		want  string
	}{
		{"relative FIFO", `require("./dep.js"); export default function () {}`,
			func(t *testing.T, d string) { mkfifo(t, filepath.Join(d, "dep.js")) }, "dep.js is a FIFO"},
		{"JSON FIFO", `const c = require("./conf.json"); export default function () {}`,
			func(t *testing.T, d string) { mkfifo(t, filepath.Join(d, "conf.json")) }, "conf.json is a FIFO"},
		{"bare package FIFO", `require("evil"); export default function () {}`,
			func(t *testing.T, d string) {
				if err := os.MkdirAll(filepath.Join(d, "node_modules", "evil"), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(d, "node_modules", "evil", "package.json"), []byte(`{"main":"main.js"}`), 0o644); err != nil {
					t.Fatal(err)
				}
				mkfifo(t, filepath.Join(d, "node_modules", "evil", "main.js"))
			}, "main.js is a FIFO"},
		{"symlink to /dev/zero", `require("./zero.js"); export default function () {}`,
			func(t *testing.T, d string) { symlink(t, "/dev/zero", filepath.Join(d, "zero.js")) }, "a character device"},
		{"character device", `require("/dev/null"); export default function () {}`,
			func(t *testing.T, d string) {}, "a character device"},
		{"symlink loop", `require("./loop.js"); export default function () {}`,
			func(t *testing.T, d string) {
				symlink(t, "loop2.js", filepath.Join(d, "loop.js"))
				symlink(t, "loop.js", filepath.Join(d, "loop2.js"))
			}, "symbolic links"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t)
			c.setup(t, h.dir)
			h.write("ext.js", c.src)
			err := loadWithin(t, h, "ext.js")
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want one naming %q", err, c.want)
			}
		})
	}
}

// The entry file itself: a FIFO, and a symlink to /dev/zero.
func TestScriptEntryNotRegularIsRefused(t *testing.T) {
	for _, c := range []struct{ name, want string }{{"fifo", "is a FIFO"}, {"zero", "a character device"}} {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t)
			p := filepath.Join(h.dir, "ext.js")
			if c.name == "fifo" {
				mkfifo(t, p)
			} else {
				symlink(t, "/dev/zero", p)
			}
			done := make(chan error, 1)
			go func() { _, err := h.rt.Load(t.Context(), specFor(h, p), h.host); done <- err }()
			select {
			case err := <-done:
				if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "ext.js") {
					t.Fatalf("err = %v", err)
				}
			case <-time.After(15 * time.Second):
				t.Fatal("loading did not return")
			}
		})
	}
}

// A source file over MaxSourceFile is refused before it is read.
func TestScriptSourceTooLargeIsRefused(t *testing.T) {
	h := newHarness(t)
	big := filepath.Join(h.dir, "big.js")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(MaxSourceFile + 1); err != nil { // sparse: costs no disk
		t.Fatal(err)
	}
	f.Close()
	h.write("ext.js", `require("./big.js"); export default function () {}`)
	if err := loadWithin(t, h, "ext.js"); err == nil || !strings.Contains(err.Error(), "big.js") || !strings.Contains(err.Error(), "too large") {
		t.Fatalf("err = %v", err)
	}
}

// A directory where a file is expected is not read as a file: the import
// is not found.
func TestScriptSourceDirectoryIsNotAFile(t *testing.T) {
	h := newHarness(t)
	if err := os.MkdirAll(filepath.Join(h.dir, "dep.js"), 0o755); err != nil {
		t.Fatal(err)
	}
	h.write("ext.js", `require("./dep.js"); export default function () {}`)
	if err := loadWithin(t, h, "ext.js"); err == nil || !strings.Contains(err.Error(), "dep.js") {
		t.Fatalf("err = %v", err)
	}
}

// The symlink to /dev/zero again, in a child process watched for memory:
// a regression (reading /dev/zero whole) is killed past 512 MB and fails
// the test instead of exhausting the machine.
func TestScriptSourceDevZeroMemoryCapped(t *testing.T) {
	if os.Getenv("JSEXT_DEVZERO_CHILD") == "1" {
		h := newHarness(t)
		symlink(t, "/dev/zero", filepath.Join(h.dir, "zero.js"))
		h.write("ext.js", `require("./zero.js"); export default function () {}`)
		if _, err := h.load("ext.js", mustRead(t, filepath.Join(h.dir, "ext.js"))); err == nil {
			t.Fatal("loaded")
		}
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestScriptSourceDevZeroMemoryCapped$")
	cmd.Env = append(os.Environ(), "JSEXT_DEVZERO_CHILD=1")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(60 * time.Second)
	for {
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("child: %v", err)
			}
			return
		case <-deadline:
			_ = cmd.Process.Kill()
			<-done
			t.Fatal("child did not finish")
		case <-tick.C:
			if rss := vmRSSKB(cmd.Process.Pid); rss > 512<<10 {
				_ = cmd.Process.Kill()
				<-done
				t.Fatalf("child reached %d kB reading /dev/zero", rss)
			}
		}
	}
}

func vmRSSKB(pid int) int {
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			n, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			return n
		}
	}
	return 0
}

func specFor(h *harness, p string) extensions.Spec {
	return extensions.Spec{Path: p, Kind: extensions.KindScript, Dir: h.dir}
}
