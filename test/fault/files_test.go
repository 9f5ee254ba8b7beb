//go:build linux

package fault

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/atomic-go/atomic/internal/e2e"
	"github.com/atomic-go/atomic/sdk/rpcclient"
)

// Files named by the model or the client (issue 17, classes 1 to 3):
// memory bounded by what a tool may show, no hang on a FIFO or a device,
// and nothing that is not a regular file ever replaced.

// rssWatch kills the agent when its resident memory passes a cap, so that
// a regression fails the test instead of taking the machine down.
type rssWatch struct {
	pid    int
	capKiB int64
	stop   chan struct{}
	done   chan struct{}
	mu     sync.Mutex
	peak   int64
	killed bool
}

func watchRSS(t *testing.T, pid int, capMB int64) *rssWatch {
	w := &rssWatch{pid: pid, capKiB: capMB << 10, stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(w.done)
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-w.stop:
				return
			case <-tick.C:
			}
			rss := vm(pid, "VmRSS")
			w.mu.Lock()
			w.peak = max(w.peak, rss)
			if rss > w.capKiB {
				w.killed = true
				w.mu.Unlock()
				_ = syscall.Kill(pid, syscall.SIGKILL)
				return
			}
			w.mu.Unlock()
		}
	}()
	t.Cleanup(w.end)
	return w
}

func (w *rssWatch) end() {
	select {
	case <-w.stop:
	default:
		close(w.stop)
	}
	<-w.done
}

// check stops the watch and fails the test if the cap was passed.
func (w *rssWatch) check(t *testing.T) {
	t.Helper()
	w.end()
	hwm := vm(w.pid, "VmHWM")
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.killed {
		t.Fatalf("the agent passed %d MB of resident memory and was killed", w.capKiB>>10)
	}
	t.Logf("agent memory: VmRSS peak %.1f MB, VmHWM %.1f MB (cap %d MB)", float64(w.peak)/1024, float64(hwm)/1024, w.capKiB>>10)
	if hwm > w.capKiB {
		t.Fatalf("VmHWM %d KiB passed the %d MB cap between two samples", hwm, w.capKiB>>10)
	}
}

func mkfifo(t *testing.T, p string) string {
	t.Helper()
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	return p
}

// mknodChar makes a character device node like /dev/null (1,3) or
// /dev/full (1,7) at p, where the test may (root); otherwise it links p
// to the real device.
func mknodChar(t *testing.T, p string, minor int) string {
	t.Helper()
	if err := syscall.Mknod(p, syscall.S_IFCHR|0o666, 1<<8|minor); err != nil {
		real := map[int]string{3: "/dev/null", 5: "/dev/zero", 7: "/dev/full"}[minor]
		t.Logf("mknod %s: %v; using a link to %s", p, err, real)
		if err := os.Symlink(real, p); err != nil {
			t.Fatal(err)
		}
	}
	return p
}

func writeBig(t *testing.T, p string, size int64, fill byte) {
	t.Helper()
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if fill == 0 {
		if err := f.Truncate(size); err != nil { // sparse
			t.Fatal(err)
		}
		return
	}
	buf := make([]byte, 1<<20)
	for i := range buf {
		buf[i] = fill
	}
	for n := int64(0); n < size; n += int64(len(buf)) {
		if _, err := f.Write(buf[:min(int64(len(buf)), size-n)]); err != nil {
			t.Fatal(err)
		}
	}
}

func callTool(name string, args map[string]any) map[string]any {
	return map[string]any{"name": name, "arguments": args}
}

func toolsTurn(calls ...map[string]any) map[string]any {
	return map[string]any{"toolCalls": calls}
}

// endsByCall returns the tool results of a run in call order.
func endsByCall(t *testing.T, run *rpcclient.Run) []rpcclient.ToolExecution {
	t.Helper()
	ends := toolEnds(t, run)
	var order []string
	for _, ev := range run.OfType("tool_execution_start") {
		var te rpcclient.ToolExecution
		if err := ev.Decode(&te); err != nil {
			t.Fatal(err)
		}
		order = append(order, te.ToolCallID)
	}
	byID := map[string]rpcclient.ToolExecution{}
	for _, e := range ends {
		byID[e.ToolCallID] = e
	}
	var out []rpcclient.ToolExecution
	for _, id := range order {
		out = append(out, byID[id])
	}
	return out
}

type toolWant struct {
	isError bool
	text    string
}

func checkResults(t *testing.T, got []rpcclient.ToolExecution, want []toolWant) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d tool results, want %d", len(got), len(want))
	}
	for i, w := range want {
		text := ""
		if got[i].Result != nil {
			text = got[i].Result.Content.Text()
		}
		if got[i].IsError != w.isError || !strings.Contains(text, w.text) {
			t.Errorf("tool call %d (%s %s): isError=%v %q; want isError=%v and %q", i, got[i].ToolName, got[i].Args, got[i].IsError, clip(text, 300), w.isError, w.text)
		}
	}
}

// Class 1: read and edit on huge files stay within a memory cap (read
// streams and keeps only what it may show; edit refuses from the size).
// The cases: a 100 MB file of empty lines with limit 5, a 1 GiB
// sparse file, one 200 MB line; and more: the same file with no limit
// (2000 lines shown, the rest counted), an offset near its end, and edit
// on the 200 MB line (refused above the cap, not loaded). (grep, not a
// default tool, is covered beside its code.)
func TestToolsOnHugeFilesStayBounded(t *testing.T) {
	dir := t.TempDir()
	start := time.Now()
	writeBig(t, filepath.Join(dir, "empty-lines"), 100<<20, '\n')
	writeBig(t, filepath.Join(dir, "sparse"), 1<<30, 0)
	writeBig(t, filepath.Join(dir, "one-line"), 200<<20, 'x')
	t.Logf("files written in %v", time.Since(start).Round(time.Millisecond))
	script := []map[string]any{
		toolsTurn(
			callTool("read", map[string]any{"path": "empty-lines", "limit": 5}),
			callTool("read", map[string]any{"path": "sparse"}),
			callTool("read", map[string]any{"path": "one-line"}),
			callTool("read", map[string]any{"path": "empty-lines"}),
			callTool("read", map[string]any{"path": "empty-lines", "offset": 100 << 20}),
			callTool("edit", map[string]any{"path": "one-line", "oldText": "xy", "newText": "z"}),
		),
		reply("done"),
	}
	c := e2e.StartClient(t, e2e.Options{Dir: dir, Script: script})
	w := watchRSS(t, c.PID(), 150)
	start = time.Now()
	run, err := c.PromptAndWait(ctx(t), "read them")
	t.Logf("the run took %v", time.Since(start).Round(time.Millisecond))
	if err != nil {
		w.check(t)
		t.Fatal(err)
	}
	if _, err := c.GetState(ctx(t)); err != nil {
		t.Fatal(err)
	}
	w.check(t)
	checkResults(t, endsByCall(t, run), []toolWant{
		{false, "[104857596 more lines in file. Use offset=6 to continue.]"},
		{false, "looks like a binary file (1024.0MB)"},
		{false, "[Line 1 is 200.0MB, exceeds 50.0KB limit."},
		{false, "[Showing lines 1-2000 of 104857601. Use offset=2001 to continue.]"},
		{false, ""},
		{true, "larger than the 8.0MB edit works on"},
	})
}

// Classes 1 and 2: special files given to the tools are refused at once
// with an error result, and abort is answered. The cases: read and
// edit on /dev/zero, read/write/edit on a FIFO nobody opens; and more: a
// device node copy, /dev/stdin, a link to a FIFO, write to a device node
// and through a link to a device.
func TestToolsRefuseSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := mkfifo(t, filepath.Join(dir, "fifo"))
	zero := mknodChar(t, filepath.Join(dir, "zero"), 5)
	null := mknodChar(t, filepath.Join(dir, "null"), 3)
	if err := os.Symlink("fifo", filepath.Join(dir, "fifo-link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/null", filepath.Join(dir, "null-link")); err != nil {
		t.Fatal(err)
	}
	script := []map[string]any{
		toolsTurn(
			callTool("read", map[string]any{"path": "/dev/zero"}),
			callTool("edit", map[string]any{"path": "/dev/zero", "oldText": "a", "newText": "b"}),
			callTool("read", map[string]any{"path": "fifo"}),
			callTool("write", map[string]any{"path": "fifo", "content": "x"}),
			callTool("edit", map[string]any{"path": "fifo", "oldText": "a", "newText": "b"}),
			callTool("read", map[string]any{"path": "zero"}),
			callTool("read", map[string]any{"path": "/dev/stdin"}),
			callTool("read", map[string]any{"path": "fifo-link"}),
			callTool("write", map[string]any{"path": "null", "content": "x"}),
			callTool("write", map[string]any{"path": "null-link", "content": "x"}),
		),
		reply("done"),
	}
	c := e2e.StartClient(t, e2e.Options{Dir: dir, Script: script})
	w := watchRSS(t, c.PID(), 150)
	sub := c.Subscribe()
	defer sub.Close()
	runDone := make(chan *rpcclient.Run, 1)
	go func() {
		run, err := c.PromptAndWait(ctx(t), "special files")
		if err != nil {
			t.Error(err)
		}
		runDone <- run
	}()
	// abort once a first call has ended, so that the others have begun
	// (each checks for an abort before it starts): it must be answered.
	if _, err := sub.WaitFor(ctx(t), func(ev rpcclient.Event) bool { return ev.Type == "tool_execution_end" }); err != nil {
		t.Fatal(err)
	}
	actx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.Abort(actx); err != nil {
		t.Fatalf("abort while special-file tools run: %v", err)
	}
	run := <-runDone
	if _, err := c.GetState(actx); err != nil {
		t.Fatalf("get_state after the abort: %v", err)
	}
	w.check(t)
	// The abort may come before or after the tools end; those that ran
	// were refused.
	for _, e := range endsByCall(t, run) {
		if e.Result == nil {
			continue
		}
		text := e.Result.Content.Text()
		if text == "Operation aborted" || strings.Contains(text, "aborted") {
			continue
		}
		if !e.IsError || !strings.Contains(text, "not a regular file") {
			t.Errorf("%s %s: isError=%v %q", e.ToolName, e.Args, e.IsError, text)
		}
	}
	for p, mode := range map[string]fs.FileMode{fifo: fs.ModeNamedPipe, filepath.Join(dir, "null-link"): fs.ModeSymlink} {
		if fi, err := os.Lstat(p); err != nil || fi.Mode()&mode == 0 {
			t.Errorf("%s was replaced: %v %v", p, fi, err)
		}
	}
	for _, p := range []string{zero, null} {
		if fi, err := os.Lstat(p); err != nil || fi.Mode().IsRegular() {
			t.Errorf("%s was replaced: %v %v", p, fi, err)
		}
	}
}

// The same without an abort: every call gets its refusal, and the run goes
// on to the next turn.
func TestToolsRefuseSpecialFilesResults(t *testing.T) {
	dir := t.TempDir()
	mkfifo(t, filepath.Join(dir, "fifo"))
	script := []map[string]any{
		toolsTurn(
			callTool("read", map[string]any{"path": "/dev/zero"}),
			callTool("read", map[string]any{"path": "fifo"}),
			callTool("write", map[string]any{"path": "fifo", "content": "x"}),
			callTool("edit", map[string]any{"path": "fifo", "oldText": "a", "newText": "b"}),
			callTool("read", map[string]any{"path": "."}),
		),
		reply("done"),
	}
	c := e2e.StartClient(t, e2e.Options{Dir: dir, Script: script})
	w := watchRSS(t, c.PID(), 150)
	run, err := c.PromptAndWait(ctx(t), "special files")
	if err != nil {
		t.Fatal(err)
	}
	w.check(t)
	checkResults(t, endsByCall(t, run), []toolWant{
		{true, "Cannot read /dev/zero: it is a character device, not a regular file"},
		{true, "Cannot read fifo: it is a FIFO (named pipe), not a regular file"},
		{true, "is a FIFO (named pipe), not a regular file; it is left as it is"},
		{true, "Cannot read fifo: it is a FIFO (named pipe), not a regular file"},
		{true, ". is a directory, not a file"},
	})
	if run.Text() != "done" {
		t.Fatalf("the run did not go on: %q", run.Text())
	}
}

// Class 3 for the write and edit tools: a regular file is replaced
// atomically and keeps its mode; a symbolic link is written through (as pi
// does) and stays a link; a device node is refused and stays.
func TestWriteToolKeepsLinksAndDevices(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target.txt")
	if err := os.WriteFile(target, []byte("old\n"), 0o640); err != nil {
		t.Fatal(err)
	}
	os.Chmod(target, 0o640)
	if err := os.Symlink("target.txt", filepath.Join(dir, "link.txt")); err != nil {
		t.Fatal(err)
	}
	full := mknodChar(t, filepath.Join(dir, "full"), 7)
	script := []map[string]any{
		toolsTurn(callTool("write", map[string]any{"path": "link.txt", "content": "new\n"})),
		toolsTurn(callTool("edit", map[string]any{"path": "link.txt", "oldText": "new", "newText": "newer"})),
		toolsTurn(callTool("write", map[string]any{"path": "full", "content": "x"})),
		reply("done"),
	}
	c := e2e.StartClient(t, e2e.Options{Dir: dir, Script: script})
	run, err := c.PromptAndWait(ctx(t), "write")
	if err != nil {
		t.Fatal(err)
	}
	checkResults(t, endsByCall(t, run), []toolWant{
		{false, "Successfully wrote 4 bytes to link.txt"},
		{false, "Successfully replaced text in link.txt"},
		{true, "not a regular file; it is left as it is"},
	})
	if fi, err := os.Lstat(filepath.Join(dir, "link.txt")); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Fatalf("link.txt is no longer a link: %v %v", fi, err)
	}
	if b, _ := os.ReadFile(target); string(b) != "newer\n" {
		t.Fatalf("target = %q", b)
	}
	if fi, _ := os.Stat(target); fi.Mode().Perm() != 0o640 {
		t.Fatalf("target mode %v, want 0640 kept", fi.Mode().Perm())
	}
	if fi, err := os.Lstat(full); err != nil || fi.Mode().IsRegular() {
		t.Fatalf("the device node was replaced: %v %v", fi, err)
	}
}

// Class 2 for session commands: switch_session and import_session with a
// FIFO, a device node, /dev/stdin or a directory answer an error at once,
// the session in use stays (its entries do not vanish), the ordinary lane
// keeps answering, and the first SIGTERM ends the agent.
func TestSessionCommandsRefuseSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := mkfifo(t, filepath.Join(dir, "fifo.jsonl"))
	null := mknodChar(t, filepath.Join(dir, "null.jsonl"), 3)
	sub := filepath.Join(dir, "sub.jsonl")
	os.Mkdir(sub, 0o700)
	c := e2e.StartClient(t, e2e.Options{Dir: dir, Script: []map[string]any{reply("kept")}})
	if _, err := c.PromptAndWait(ctx(t), "hello"); err != nil {
		t.Fatal(err)
	}
	before, err := c.GetMessages(ctx(t))
	if err != nil || len(before) != 2 {
		t.Fatalf("messages %d %v", len(before), err)
	}
	for _, p := range []string{fifo, null, "/dev/stdin", sub} {
		for _, cmd := range []string{"switch_session", "import_session"} {
			cctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			var err error
			if cmd == "switch_session" {
				_, err = c.SwitchSession(cctx, p)
			} else {
				_, err = c.ImportSession(cctx, p, "")
			}
			cancel()
			var ce *rpcclient.CommandError
			if !errors.As(err, &ce) {
				t.Fatalf("%s %s: %v, want an error response", cmd, p, err)
			}
			if !strings.Contains(ce.Message, "not a regular file") {
				t.Errorf("%s %s: %q", cmd, p, ce.Message)
			}
			if _, err := c.GetState(ctx(t)); err != nil {
				t.Fatalf("get_state after %s %s: %v", cmd, p, err)
			}
		}
	}
	after, err := c.GetMessages(ctx(t))
	if err != nil || len(after) != len(before) {
		t.Fatalf("the session's messages changed: %d → %d (%v)", len(before), len(after), err)
	}
	if err := c.Process().Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	waitExit(t, c.Client, 10*time.Second)
	if fi, err := os.Lstat(null); err != nil || fi.Mode().IsRegular() {
		t.Fatalf("the device node was replaced: %v %v", fi, err)
	}
}

// Classes 2 and 3 for --session: a FIFO or a device is refused at start
// (an error, no hang); a session file reached through a symbolic link is
// written where the link points and the link stays.
func TestSessionFlagSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := mkfifo(t, filepath.Join(dir, "fifo.jsonl"))
	null := mknodChar(t, filepath.Join(dir, "null.jsonl"), 3)
	for _, p := range []string{fifo, null, "/dev/stdin"} {
		cmd, _ := e2e.Command(t, e2e.Options{Dir: dir, Args: []string{"--session", p}})
		var stderr strings.Builder
		cmd.Stderr = &stderr
		cmd.Stdin = strings.NewReader("")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			var ee *exec.ExitError
			if !errors.As(err, &ee) || !strings.Contains(stderr.String(), "not a regular file") {
				t.Errorf("--session %s: %v\n%s", p, err, stderr.String())
			}
		case <-time.After(15 * time.Second):
			_ = cmd.Process.Kill()
			<-done
			t.Fatalf("--session %s hung", p)
		}
	}

	// Through a link: the session is appended where the link points.
	real := filepath.Join(dir, "real.jsonl")
	link := filepath.Join(dir, "link.jsonl")
	if err := os.Symlink("real.jsonl", link); err != nil {
		t.Fatal(err)
	}
	c := e2e.StartClient(t, e2e.Options{Dir: dir, Args: []string{"--session", link}, Script: []map[string]any{reply("one"), reply("two")}})
	for _, m := range []string{"first", "second"} {
		if _, err := c.PromptAndWait(ctx(t), m); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Stop(ctx(t)); err != nil && !isExit(err) {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Fatalf("the link was replaced: %v %v", fi, err)
	}
	lines, torn, bad := fileEntries(t, real)
	if torn || bad > 0 || len(lines) < 5 {
		t.Fatalf("real.jsonl: %d lines, torn %v, bad %d", len(lines), torn, bad)
	}
}

// Class 3 for export_html: an output path that is a symbolic link, a
// device node (a copy of /dev/full), a FIFO or a directory is refused and
// left as it is; an existing regular file is replaced atomically and keeps
// its mode.
func TestExportHTMLNeverReplacesSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "precious.txt")
	if err := os.WriteFile(target, []byte("precious"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.html")
	os.Symlink(target, link)
	nullLink := filepath.Join(dir, "null-link.html")
	os.Symlink("/dev/null", nullLink)
	full := mknodChar(t, filepath.Join(dir, "full.html"), 7)
	fifo := mkfifo(t, filepath.Join(dir, "fifo.html"))
	sub := filepath.Join(dir, "sub.html")
	os.Mkdir(sub, 0o700)
	c := e2e.StartClient(t, e2e.Options{Dir: dir, Script: []map[string]any{reply("exported")}})
	if _, err := c.PromptAndWait(ctx(t), "hello"); err != nil {
		t.Fatal(err)
	}
	kinds := map[string]fs.FileMode{}
	for _, p := range []string{link, nullLink, full, fifo, sub} {
		fi, _ := os.Lstat(p)
		kinds[p] = fi.Mode().Type()
		cctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		_, err := c.ExportHTML(cctx, p)
		cancel()
		var ce *rpcclient.CommandError
		if !errors.As(err, &ce) || !strings.Contains(ce.Message, "not a regular file; not replacing it") {
			t.Errorf("export_html %s: %v", p, err)
		}
	}
	for p, kind := range kinds {
		if fi, err := os.Lstat(p); err != nil || fi.Mode().Type() != kind {
			t.Errorf("%s changed from %v to %v (%v)", p, kind, fi.Mode().Type(), err)
		}
	}
	if b, _ := os.ReadFile(target); string(b) != "precious" {
		t.Fatalf("the link's target = %q", b)
	}
	out := filepath.Join(dir, "out.html")
	if err := os.WriteFile(out, []byte("old"), 0o640); err != nil {
		t.Fatal(err)
	}
	os.Chmod(out, 0o640)
	if _, err := c.ExportHTML(ctx(t), out); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(out)
	fi, _ := os.Stat(out)
	if !strings.Contains(string(b), "<html") || fi.Mode().Perm() != 0o640 {
		t.Fatalf("out.html: mode %v, %q", fi.Mode().Perm(), clip(string(b), 40))
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.Contains(e.Name(), ".tmp") {
			t.Errorf("temporary file left: %s", e.Name())
		}
	}
}

// Class 1: ls on a directory of 200,000 entries with long names keeps only
// the names it may show (the default 500, and a limit far above what
// 50 KB of output can hold), not the whole listing, and reports how many
// entries there were.
func TestLsOnHugeDirectoryStaysBounded(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big")
	if err := os.Mkdir(big, 0o700); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// os.RemoveAll rereads a huge directory after each batch it
		// removes (minutes here): one listing, then unlink each.
		start := time.Now()
		f, err := os.Open(big)
		if err != nil {
			return
		}
		names, _ := f.Readdirnames(-1)
		f.Close()
		for _, name := range names {
			_ = syscall.Unlink(filepath.Join(big, name))
		}
		t.Logf("%d entries removed in %v", len(names), time.Since(start).Round(time.Millisecond))
	})
	const n = 200_000
	pad := strings.Repeat("n", 230)
	start := time.Now()
	for i := range n {
		// FIFOs: one system call per entry and no link limit (ls only
		// stats the entries it shows, it never opens them).
		if err := syscall.Mkfifo(filepath.Join(big, fmt.Sprintf("%s-%07d", pad, n-i)), 0o600); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
	}
	t.Logf("%d entries made in %v", n, time.Since(start).Round(time.Millisecond))
	script := []map[string]any{
		toolsTurn(
			callTool("ls", map[string]any{"path": "big"}),
			callTool("ls", map[string]any{"path": "big", "limit": 1_000_000}),
		),
		reply("done"),
	}
	c := e2e.StartClient(t, e2e.Options{Dir: dir, Script: script, Args: []string{"--tools", "ls"}})
	w := watchRSS(t, c.PID(), 75)
	start = time.Now()
	run, err := c.PromptAndWait(ctx(t), "list it")
	t.Logf("the run took %v", time.Since(start).Round(time.Millisecond))
	if err != nil {
		w.check(t)
		t.Fatal(err)
	}
	if _, err := c.GetState(ctx(t)); err != nil {
		t.Fatal(err)
	}
	w.check(t)
	first := pad + "-0000001\n" + pad + "-0000002\n"
	checkResults(t, endsByCall(t, run), []toolWant{
		{false, first},
		{false, first},
	})
	ends := endsByCall(t, run)
	if txt := ends[0].Result.Content.Text(); !strings.Contains(txt, "[500 entries limit reached. Use limit=1000 for more. 50.0KB limit reached]") {
		t.Errorf("default listing: %d lines, ends %q", strings.Count(txt, "\n"), clip(txt[max(0, len(txt)-120):], 120))
	}
	if txt := ends[1].Result.Content.Text(); !strings.Contains(txt, "50.0KB limit reached") {
		t.Errorf("large limit: ends %q", clip(txt[max(0, len(txt)-120):], 120))
	}
	var d struct {
		TotalEntries int `json:"totalEntries"`
	}
	if err := json.Unmarshal(ends[0].Result.Details, &d); err != nil || d.TotalEntries != n {
		t.Errorf("details %s: want totalEntries %d", ends[0].Result.Details, n)
	}
}

// bigSessionFile writes a session header followed by size bytes of a
// sparse hole (a file that takes seconds to copy and no disk to keep).
func bigSessionFile(t *testing.T, p, cwd string, size int64) {
	t.Helper()
	header := `{"type":"session","version":3,"id":"big-import","timestamp":"2026-01-01T00:00:00.000Z","cwd":` + strconv.Quote(cwd) + "}\n"
	if err := os.WriteFile(p, []byte(header), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(p, size); err != nil {
		t.Fatal(err)
	}
}

// copyStarted waits until a file under dir has at least 1 MiB in it (the
// import's copy is under way) and returns its path.
func copyStarted(t *testing.T, dir string) string {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if p := bigFileUnder(dir); p != "" {
			return p
		}
		time.Sleep(2 * time.Millisecond)
	}
	t.Fatalf("no copy appeared under %s", dir)
	return ""
}

func bigFileUnder(dir string) string {
	found := ""
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if fi, err := d.Info(); err == nil && fi.Size() >= 1<<20 {
				found = p
				return filepath.SkipAll
			}
		}
		return nil
	})
	return found
}

// Class 2: import_session copies in chunks that abort and shutdown end. A
// 4 GiB session file being imported: abort ends the copy (an error
// response, the temporary copy removed, the session in use kept) and
// get_state is answered; SIGTERM in the middle of a copy ends the agent at
// once, leaving no copy behind.
func TestImportSessionAbortable(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "big.jsonl")
	bigSessionFile(t, src, dir, 4<<30)

	c := e2e.StartClient(t, e2e.Options{Dir: dir, Script: []map[string]any{reply("kept")}})
	if _, err := c.PromptAndWait(ctx(t), "hello"); err != nil {
		t.Fatal(err)
	}
	before, err := c.GetState(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	sessions := filepath.Join(c.AgentDir, "sessions")
	answer := make(chan error, 1)
	go func() {
		_, err := c.ImportSession(context.Background(), src, "")
		answer <- err
	}()
	copyStarted(t, sessions)
	if err := c.Abort(ctx(t)); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-answer:
		var ce *rpcclient.CommandError
		if !errors.As(err, &ce) || !strings.Contains(ce.Message, "aborted") {
			t.Fatalf("import_session after abort: %v, want an error response saying it was aborted", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("import_session was not answered within 10 s of abort")
	}
	after, err := c.GetState(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	if after.SessionFile != before.SessionFile {
		t.Errorf("the session changed: %s → %s", before.SessionFile, after.SessionFile)
	}
	if p := bigFileUnder(sessions); p != "" {
		t.Errorf("the aborted copy was left: %s", p)
	}

	// Shutdown in the middle of a copy.
	go func() {
		_, err := c.ImportSession(context.Background(), src, "")
		answer <- err
	}()
	copyStarted(t, sessions)
	if err := c.Process().Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	waitExit(t, c.Client, 10*time.Second)
	<-answer
	if p := bigFileUnder(sessions); p != "" {
		t.Errorf("the copy cut by shutdown was left: %s", p)
	}
}

// Class 2 at start-up: a FIFO (that nobody writes) in the place of every
// file the agent reads at start (settings.json, models.json, mcp.json,
// trust.json, auth.json in the agent directory; AGENTS.md, CLAUDE.md, the
// project's SYSTEM.md and settings.json; a skill's SKILL.md; a prompt
// template) does not hang the start: the agent answers get_state and a
// prompt, and the FIFO is reported as not a regular file.
func TestStartupRefusesSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	agentDir := t.TempDir()
	for _, p := range []string{
		filepath.Join(agentDir, "settings.json"),
		filepath.Join(agentDir, "models.json"),
		filepath.Join(agentDir, "mcp.json"),
		filepath.Join(agentDir, "trust.json"),
		filepath.Join(agentDir, "auth.json"),
		filepath.Join(agentDir, "AGENTS.md"),
		filepath.Join(agentDir, "skills", "fifo-skill", "SKILL.md"),
		filepath.Join(agentDir, "prompts", "fifo-template.md"),
		filepath.Join(dir, "AGENTS.md"),
		filepath.Join(dir, "CLAUDE.md"),
		filepath.Join(dir, ".atomic", "SYSTEM.md"),
		filepath.Join(dir, ".atomic", "settings.json"),
	} {
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		mkfifo(t, p)
	}
	c := e2e.StartClient(t, e2e.Options{
		Dir:    dir,
		Script: []map[string]any{reply("started")},
		Env:    map[string]string{"ATOMIC_CODING_AGENT_DIR": agentDir},
		Args:   []string{"--trust-project"},
	})
	if _, err := c.GetState(ctx(t)); err != nil {
		t.Fatalf("get_state: %v\nstderr:\n%s", err, c.Stderr())
	}
	run, err := c.PromptAndWait(ctx(t), "hello")
	if err != nil {
		t.Fatal(err)
	}
	if txt := run.Text(); txt != "started" {
		t.Errorf("reply %q", txt)
	}
	diags, err := c.GetResourceDiagnostics(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	var listed string
	for _, d := range diags {
		listed += "\n" + d.Path + ": " + d.Message
	}
	// Each is named by a diagnostic or by the log; the log reaches the
	// test through its own pipe, so it is waited for.
	c.WaitStderrFor(func(stderr string) bool {
		reported := stderr + listed
		for _, name := range []string{"settings.json", "AGENTS.md", "SKILL.md", "fifo-template.md", "FIFO"} {
			if !strings.Contains(reported, name) {
				return false
			}
		}
		return true
	}, "settings.json, AGENTS.md, SKILL.md, fifo-template.md and the word FIFO in the log or the diagnostics"+listed)
	if err := c.Process().Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	waitExit(t, c.Client, 10*time.Second)
}
