//go:build unix

package tools

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/atomic-go/atomic/host/llm"
)

// clientFiles is a client's file system: buffers by absolute path.
type clientFiles struct {
	mu    sync.Mutex
	files map[string]string
	reads []string
}

func (c *clientFiles) ReadTextFile(_ context.Context, path string) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.reads = append(c.reads, path)
	text, ok := c.files[path]
	if !ok {
		return "", fmt.Errorf("no buffer: %w", fs.ErrNotExist)
	}
	return text, nil
}

func (c *clientFiles) WriteTextFile(_ context.Context, path, content string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.files[path] = content
	return nil
}

func withFiles(t *testing.T, tool Tool, cwd string, files Files, args map[string]any) (llm.ToolResult, error) {
	t.Helper()
	return tool.Execute(context.Background(), Call{ID: "t1", Args: args, Cwd: cwd, Files: files})
}

// With Files, read, write and edit work on the client's text; the disk is
// left alone, images on disk still come from disk, special files are
// refused before the client is asked, and sizes stay bounded.
func TestToolsWithClientFiles(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"a.txt": "on disk\n"})
	a := filepath.Join(dir, "a.txt")
	cf := &clientFiles{files: map[string]string{a: "unsaved one\nunsaved two\n", filepath.Join(dir, "new.txt"): "only in the editor"}}

	res, err := withFiles(t, ReadTool{}, dir, cf, map[string]any{"path": "a.txt", "offset": 2.0})
	if err != nil || res.ResultText() != "unsaved two\n" {
		t.Fatalf("read: %q %v", res.ResultText(), err)
	}
	if res, err := withFiles(t, ReadTool{}, dir, cf, map[string]any{"path": "new.txt"}); err != nil || res.ResultText() != "only in the editor" {
		t.Fatalf("read of a buffer not on disk: %q %v", res.ResultText(), err)
	}
	if _, err := withFiles(t, ReadTool{}, dir, cf, map[string]any{"path": "none.txt"}); err == nil || !strings.Contains(err.Error(), "File not found: none.txt") {
		t.Fatalf("read of a missing file: %v", err)
	}

	if _, err := withFiles(t, EditTool{}, dir, cf, map[string]any{"path": "a.txt", "oldText": "unsaved two", "newText": "edited"}); err != nil {
		t.Fatal(err)
	}
	if cf.files[a] != "unsaved one\nedited\n" || readFile(t, a) != "on disk\n" {
		t.Fatalf("after edit: client %q, disk %q", cf.files[a], readFile(t, a))
	}
	if _, err := withFiles(t, WriteTool{}, dir, cf, map[string]any{"path": "sub/w.txt", "content": "written"}); err != nil {
		t.Fatal(err)
	}
	if cf.files[filepath.Join(dir, "sub", "w.txt")] != "written" {
		t.Fatalf("write: %v", cf.files)
	}
	if _, err := os.Stat(filepath.Join(dir, "sub")); err == nil {
		t.Fatal("write touched the disk")
	}

	// Special files: refused here, the client is not asked.
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	cf.reads = nil
	for _, c := range []struct {
		tool Tool
		args map[string]any
		want string
	}{
		{ReadTool{}, map[string]any{"path": "fifo"}, "not a regular file"},
		{EditTool{}, map[string]any{"path": "fifo", "oldText": "x", "newText": "y"}, "not a regular file"},
		{WriteTool{}, map[string]any{"path": "fifo", "content": "x"}, "not a regular file; it is left as it is"},
		{WriteTool{}, map[string]any{"path": ".", "content": "x"}, "is a directory"},
	} {
		if _, err := withFiles(t, c.tool, dir, cf, c.args); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %v: %v", c.tool.Name(), c.args, err)
		}
	}
	if len(cf.reads) != 0 || cf.files[fifo] != "" {
		t.Fatalf("the client was asked about the FIFO: %v", cf.reads)
	}

	// Bounds: a client's text larger than MaxClientText is refused.
	cf.files[filepath.Join(dir, "big.txt")] = strings.Repeat("x", MaxClientText+1)
	if _, err := withFiles(t, ReadTool{}, dir, cf, map[string]any{"path": "big.txt"}); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Fatalf("big read: %v", err)
	}

	// An image on disk is read from disk.
	png := "\x89PNG\r\n\x1a\n" + strings.Repeat("\x00", 32)
	writeFiles(t, dir, map[string]string{"i.png": png})
	if res, err := withFiles(t, ReadTool{}, dir, cf, map[string]any{"path": "i.png"}); err != nil || len(res.Content) != 2 || res.Content[1].Type != llm.BlockImage {
		t.Fatalf("image: %+v %v", res, err)
	}
}

// fakeRunner records the command and answers with a fixed output.
type fakeRunner struct{ got ShellRequest }

func (f *fakeRunner) RunCommand(_ context.Context, callID string, req ShellRequest) (ShellOutput, error) {
	f.got = req
	return ShellOutput{Output: "from the terminal " + callID, ExitCode: 3}, nil
}

// With a Runner, bash runs its command there and words the outcome as
// usual.
func TestBashWithRunner(t *testing.T) {
	r := &fakeRunner{}
	dir := t.TempDir()
	_, err := BashTool{}.Execute(context.Background(), Call{ID: "c9", Args: map[string]any{"command": "make", "timeout": 5.0}, Cwd: dir, Runner: r})
	if err == nil || !strings.Contains(err.Error(), "from the terminal c9") || !strings.Contains(err.Error(), "exited with code 3") {
		t.Fatalf("bash: %v", err)
	}
	if r.got.Command != "make" || r.got.Cwd != dir || r.got.Timeout.Seconds() != 5 {
		t.Fatalf("request %+v", r.got)
	}
}
