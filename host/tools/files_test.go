//go:build unix

package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"math/rand"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/atomic-go/atomic/host/llm"
)

// Files a tool reads or writes: memory bounded by what the tool may show,
// no hang on special files, nothing that is not a regular file replaced.

func mkfifo(t *testing.T, dir string) string {
	t.Helper()
	p := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	return p
}

// runWithin runs a tool and fails the test if it does not return in time
// (a blocking open of a FIFO).
func runWithin(t *testing.T, tool Tool, cwd string, args map[string]any) (llm.ToolResult, error) {
	t.Helper()
	type out struct {
		res llm.ToolResult
		err error
	}
	done := make(chan out, 1)
	go func() {
		res, err := tool.Execute(context.Background(), Call{ID: "t", Args: args, Cwd: cwd})
		done <- out{res, err}
	}()
	select {
	case o := <-done:
		return o.res, o.err
	case <-time.After(20 * time.Second):
		t.Fatalf("%s %v did not return", tool.Name(), args)
		return llm.ToolResult{}, nil
	}
}

// allocated runs f and returns the bytes it allocated on the Go heap.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

func TestToolsRefuseSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := mkfifo(t, dir)
	os.Symlink("/dev/null", filepath.Join(dir, "null-link"))
	os.Symlink(fifo, filepath.Join(dir, "fifo-link"))
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	reading := []string{fifo, "fifo-link", "/dev/zero", "/dev/null", "null-link", "/dev/stdin", "sub"}
	for _, p := range reading {
		if fi, err := os.Stat(filepath.Join(dir, p)); p == "/dev/stdin" && (err != nil || fi.Mode().IsRegular()) {
			continue // stdin is a regular file or missing here
		}
		for _, tc := range []struct {
			tool Tool
			args map[string]any
		}{
			{ReadTool{}, map[string]any{"path": p}},
			{EditTool{}, map[string]any{"path": p, "oldText": "a", "newText": "b"}},
			{WriteTool{}, map[string]any{"path": p, "content": "x"}},
			{GrepTool{}, map[string]any{"pattern": "x", "path": p}},
		} {
			if tc.tool.Name() == "grep" && p == "sub" {
				continue // a directory is what grep searches
			}
			_, err := runWithin(t, tc.tool, dir, tc.args)
			if err == nil {
				t.Errorf("%s %s: no error", tc.tool.Name(), p)
				continue
			}
			if msg := err.Error(); !strings.Contains(msg, "not a regular file") && !strings.Contains(msg, "is a directory") {
				t.Errorf("%s %s: %v", tc.tool.Name(), p, err)
			}
		}
	}
	// Nothing was replaced.
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&fs.ModeNamedPipe == 0 {
		t.Fatalf("the FIFO is gone: %v", err)
	}
	if fi, err := os.Lstat(filepath.Join(dir, "null-link")); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Fatalf("the link is gone: %v", err)
	}
	if fi, err := os.Stat("/dev/null"); err != nil || fi.Mode()&fs.ModeCharDevice == 0 {
		t.Fatalf("/dev/null: %v %v", fi, err)
	}
	// A directory walk skips FIFOs instead of blocking on them.
	writeFiles(t, dir, map[string]string{"sub/a.txt": "needle"})
	if got := mustText(t, GrepTool{}, dir, map[string]any{"pattern": "needle"}); !strings.Contains(got, "a.txt") {
		t.Fatalf("grep: %q", got)
	}
}

// read holds at most what it may show: a file of empty lines read with a
// small limit, one enormous line, a sparse file.
func TestReadMemoryBoundedByOutput(t *testing.T) {
	dir := t.TempDir()
	const size = 32 << 20
	mk := func(name string, fill func(f *os.File)) {
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		fill(f)
		f.Close()
	}
	mk("empty-lines", func(f *os.File) { f.Write([]byte(strings.Repeat("\n", size))) })
	mk("one-line", func(f *os.File) { f.Write([]byte(strings.Repeat("x", size))) })
	mk("sparse", func(f *os.File) { f.Truncate(1 << 30) })
	mk("long-then-short", func(f *os.File) { f.Write([]byte("short\n" + strings.Repeat("y", size) + "\nend")) })

	var res llm.ToolResult
	var err error
	check := func(name string, args map[string]any, want string) {
		t.Helper()
		args["path"] = name
		n := allocated(func() { res, err = ReadTool{}.Execute(context.Background(), Call{Args: args, Cwd: dir}) })
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !strings.Contains(res.ResultText(), want) {
			t.Fatalf("%s: %q does not contain %q", name, clipText(res.ResultText()), want)
		}
		if n > 4<<20 {
			t.Fatalf("%s: read allocated %d MB for a %d MB file", name, n>>20, size>>20)
		}
	}
	check("empty-lines", map[string]any{"limit": 5}, fmt.Sprintf("[%d more lines in file. Use offset=6 to continue.]", size+1-5))
	check("empty-lines", map[string]any{"offset": size - 1}, "")
	check("empty-lines", map[string]any{}, fmt.Sprintf("[Showing lines 1-2000 of %d. Use offset=2001 to continue.]", size+1))
	check("one-line", map[string]any{}, "[Line 1 is 32.0MB, exceeds 50.0KB limit.")
	check("sparse", map[string]any{}, "looks like a binary file (1024.0MB)")
	check("long-then-short", map[string]any{}, "short\n\n[Showing lines 1-1 of 3 (50.0KB limit). Use offset=2 to continue.]")
	check("long-then-short", map[string]any{"offset": 3}, "end")
}

func clipText(s string) string {
	if len(s) > 300 {
		return s[:300] + "…"
	}
	return s
}

// A read cancelled while it streams stops with ErrAborted.
func TestReadAbortedWhileCounting(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"f": strings.Repeat("\n", 1<<20)})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	sc := newLineScanner(ctx, nil)
	if _, _, err := sc.countRest(-1); err != ErrAborted {
		t.Fatalf("countRest: %v", err)
	}
}

// The streaming read gives what reading the whole file gave: the same
// text, the same notices and the same truncation details, for random
// files, offsets and limits.
func TestReadMatchesWholeFileReading(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	dir := t.TempDir()
	pieces := []string{"", "a", "hello world", "é", strings.Repeat("z", 700), strings.Repeat("w", DefaultMaxBytes-3), strings.Repeat("v", DefaultMaxBytes+10)}
	for i := range 400 {
		var lines []string
		n := rng.Intn(30)
		if rng.Intn(8) == 0 {
			n = 1990 + rng.Intn(30)
		}
		for range n {
			if rng.Intn(40) == 0 {
				lines = append(lines, pieces[5+rng.Intn(2)])
			} else {
				lines = append(lines, pieces[rng.Intn(5)])
			}
		}
		content := strings.Join(lines, "\n")
		if rng.Intn(2) == 0 {
			content += "\n"
		}
		name := fmt.Sprintf("f%d", i)
		writeFiles(t, dir, map[string]string{name: content})
		args := map[string]any{"path": name}
		if rng.Intn(2) == 0 {
			args["offset"] = 1 + rng.Intn(n+2)
		}
		if rng.Intn(2) == 0 {
			args["limit"] = 1 + rng.Intn(n+2)
		}
		got, gotErr := ReadTool{}.Execute(context.Background(), Call{Args: args, Cwd: dir})
		want, wantErr := wholeFileRead(content, name, args)
		if (gotErr == nil) != (wantErr == nil) || gotErr != nil && gotErr.Error() != wantErr.Error() {
			t.Fatalf("%v: error %v, want %v", args, gotErr, wantErr)
		}
		if gotErr != nil {
			continue
		}
		if got.ResultText() != want.ResultText() {
			t.Fatalf("%v on %d lines:\n got %q\nwant %q", args, n, clipText(got.ResultText()), clipText(want.ResultText()))
		}
		g, _ := json.Marshal(got.Details)
		w, _ := json.Marshal(want.Details)
		if string(g) != string(w) {
			t.Fatalf("%v details:\n got %.400s\nwant %.400s", args, g, w)
		}
	}
}

// wholeFileRead is the read tool as it was when it held the whole file:
// the reference for TestReadMatchesWholeFileReading.
func wholeFileRead(data, p string, args map[string]any) (llm.ToolResult, error) {
	offset, hasOffset := args["offset"].(int)
	limit, hasLimit := args["limit"].(int)
	text := strings.ToValidUTF8(data, "\uFFFD")
	lines := strings.Split(text, "\n")
	total := len(lines)
	start := 0
	if hasOffset && offset > 1 {
		start = offset - 1
	}
	if start >= total {
		return llm.ToolResult{}, fmt.Errorf("Offset %d is beyond end of file (%d lines total)", offset, total)
	}
	end := total
	if hasLimit && start+limit < total {
		end = start + limit
	}
	selected := strings.Join(lines[start:end], "\n")
	tr := TruncateHead(selected, DefaultMaxLines, DefaultMaxBytes)
	first := start + 1
	var out string
	var details any
	switch {
	case tr.FirstLineExceedsLimit:
		out = fmt.Sprintf("[Line %d is %s, exceeds %s limit. Use bash: sed -n '%dp' %s | head -c %d]",
			first, FormatSize(len(lines[start])), FormatSize(DefaultMaxBytes), first, shellQuote(p), DefaultMaxBytes)
		details = ReadDetails{Truncation: &tr}
	case tr.Truncated:
		last := first + tr.OutputLines - 1
		limitNote := ""
		if tr.TruncatedBy == TruncatedByBytes {
			limitNote = fmt.Sprintf(" (%s limit)", FormatSize(DefaultMaxBytes))
		}
		out = tr.Content + fmt.Sprintf("\n\n[Showing lines %d-%d of %d%s. Use offset=%d to continue.]", first, last, total, limitNote, last+1)
		details = ReadDetails{Truncation: &tr}
	case end < total:
		out = tr.Content + fmt.Sprintf("\n\n[%d more lines in file. Use offset=%d to continue.]", total-end, end+1)
	default:
		out = tr.Content
	}
	res := llm.TextResult(out)
	res.Details = details
	return res, nil
}

// edit refuses a file above MaxEditBytes from its size, without reading it.
func TestEditSizeCap(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "big")
	f, _ := os.Create(p)
	f.Truncate(1 << 30) // sparse: a read of it would take 1 GB
	f.Close()
	var msg string
	n := allocated(func() {
		msg = mustFail(t, EditTool{}, dir, map[string]any{"path": "big", "oldText": "a", "newText": "b"})
	})
	if !strings.Contains(msg, "larger than the 8.0MB edit works on") {
		t.Fatalf("message %q", msg)
	}
	if n > 1<<20 {
		t.Fatalf("edit allocated %d MB before refusing", n>>20)
	}
	// At the cap it works.
	writeFiles(t, dir, map[string]string{"ok": strings.Repeat("x", MaxEditBytes-5) + "hello"})
	mustText(t, EditTool{}, dir, map[string]any{"path": "ok", "oldText": "hello", "newText": "bye"})
}

// write and edit replace a regular file atomically, keep its mode, and
// write through a symbolic link without replacing the link.
func TestWriteAndEditKeepModeAndLinks(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"target.txt": "alpha\n"})
	target := filepath.Join(dir, "target.txt")
	os.Chmod(target, 0o600)
	os.Symlink("target.txt", filepath.Join(dir, "link.txt"))
	mustText(t, EditTool{}, dir, map[string]any{"path": "link.txt", "oldText": "alpha", "newText": "beta"})
	mustText(t, WriteTool{}, dir, map[string]any{"path": "link.txt", "content": readFile(t, target) + "gamma\n"})
	if got := readFile(t, target); got != "beta\ngamma\n" {
		t.Fatalf("target = %q", got)
	}
	if fi, _ := os.Lstat(filepath.Join(dir, "link.txt")); fi.Mode()&fs.ModeSymlink == 0 {
		t.Fatal("the link was replaced by a regular file")
	}
	if fi, _ := os.Stat(target); fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v, want 0600 kept", fi.Mode().Perm())
	}
	// A link to a missing file: the file is created where the link points.
	os.Symlink("made/new.txt", filepath.Join(dir, "dangling"))
	mustText(t, WriteTool{}, dir, map[string]any{"path": "dangling", "content": "n"})
	if got := readFile(t, filepath.Join(dir, "made", "new.txt")); got != "n" {
		t.Fatalf("new.txt = %q", got)
	}
	// No temporary file is left behind.
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".") {
			t.Fatalf("left behind: %s", e.Name())
		}
	}
}

// Regular files whose size says 0 (/proc) are read to their end as usual.
func TestReadProcFile(t *testing.T) {
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("no /proc")
	}
	if got := mustText(t, ReadTool{}, "/", map[string]any{"path": "/proc/self/status"}); !strings.Contains(got, "Name:") {
		t.Fatalf("got %q", clipText(got))
	}
}
