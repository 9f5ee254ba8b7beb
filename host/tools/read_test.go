package tools

import (
	"context"
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atomic-go/atomic/host/llm"
)

func TestReadWholeFile(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"a.txt": "one\ntwo\nthree"})
	res, err := run(t, ReadTool{}, dir, map[string]any{"path": "a.txt"})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.ResultText(); got != "one\ntwo\nthree" {
		t.Fatalf("got %q", got)
	}
	if res.Details != nil {
		t.Fatalf("unexpected details %#v", res.Details)
	}
	// Absolute path and a leading @.
	if got := mustText(t, ReadTool{}, "/", map[string]any{"path": "@" + filepath.Join(dir, "a.txt")}); got != "one\ntwo\nthree" {
		t.Fatalf("got %q", got)
	}
}

func TestReadHomeExpansion(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	writeFiles(t, home, map[string]string{"notes.txt": "hi"})
	if got := mustText(t, ReadTool{}, "/", map[string]any{"path": "~/notes.txt"}); got != "hi" {
		t.Fatalf("got %q", got)
	}
}

func TestReadOffsetLimit(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"f.txt": numberedLines(1, 10)})
	got := mustText(t, ReadTool{}, dir, map[string]any{"path": "f.txt", "offset": 3, "limit": 2})
	want := "line 3\nline 4\n\n[6 more lines in file. Use offset=5 to continue.]"
	if got != want {
		t.Fatalf("got %q\nwant %q", got, want)
	}
	// A limit reaching the end adds no notice.
	if got := mustText(t, ReadTool{}, dir, map[string]any{"path": "f.txt", "offset": 9, "limit": 5}); got != "line 9\nline 10" {
		t.Fatalf("got %q", got)
	}
	if got := mustText(t, ReadTool{}, dir, map[string]any{"path": "f.txt", "offset": 10.0}); got != "line 10" {
		t.Fatalf("got %q", got)
	}
}

func TestReadOffsetBeyondEnd(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"f.txt": "a\nb\nc"})
	msg := mustFail(t, ReadTool{}, dir, map[string]any{"path": "f.txt", "offset": 4})
	if msg != "Offset 4 is beyond end of file (3 lines total)" {
		t.Fatalf("got %q", msg)
	}
}

func TestReadErrors(t *testing.T) {
	dir := t.TempDir()
	if msg := mustFail(t, ReadTool{}, dir, map[string]any{"path": "missing.txt"}); msg != "File not found: missing.txt" {
		t.Fatalf("got %q", msg)
	}
	if msg := mustFail(t, ReadTool{}, dir, map[string]any{"path": "."}); !strings.Contains(msg, "directory") {
		t.Fatalf("got %q", msg)
	}
	if msg := mustFail(t, ReadTool{}, dir, map[string]any{}); !strings.Contains(msg, `"path"`) {
		t.Fatalf("got %q", msg)
	}
	if msg := mustFail(t, ReadTool{}, dir, map[string]any{"path": 5}); !strings.Contains(msg, "string") {
		t.Fatalf("got %q", msg)
	}
	writeFiles(t, dir, map[string]string{"f": "x"})
	if msg := mustFail(t, ReadTool{}, dir, map[string]any{"path": "f", "offset": 1.5}); !strings.Contains(msg, "integer") {
		t.Fatalf("got %q", msg)
	}
}

func TestReadTruncatedByLines(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"big.txt": numberedLines(1, 2500)})
	res, err := run(t, ReadTool{}, dir, map[string]any{"path": "big.txt"})
	if err != nil {
		t.Fatal(err)
	}
	text := res.ResultText()
	if !strings.HasSuffix(text, "line 2000\n\n[Showing lines 1-2000 of 2500. Use offset=2001 to continue.]") {
		t.Fatalf("tail: %q", text[len(text)-120:])
	}
	d, ok := res.Details.(ReadDetails)
	if !ok || d.Truncation == nil || d.Truncation.TruncatedBy != "lines" || d.Truncation.OutputLines != 2000 {
		t.Fatalf("details %#v", res.Details)
	}
	// Continue from the offset.
	text = mustText(t, ReadTool{}, dir, map[string]any{"path": "big.txt", "offset": 2001})
	if !strings.HasPrefix(text, "line 2001\n") || !strings.HasSuffix(text, "line 2500") {
		t.Fatalf("continuation: %q...", text[:40])
	}
}

func TestReadTruncatedByBytes(t *testing.T) {
	dir := t.TempDir()
	line := strings.Repeat("x", 99) // 100 bytes per line with the newline
	content := strings.TrimSuffix(strings.Repeat(line+"\n", 1000), "\n")
	writeFiles(t, dir, map[string]string{"wide.txt": content})
	text := mustText(t, ReadTool{}, dir, map[string]any{"path": "wide.txt", "offset": 11})
	// 50 KB = 51200 bytes: 512 lines of 99 bytes plus 511 newlines fit.
	want := "\n\n[Showing lines 11-522 of 1000 (50.0KB limit). Use offset=523 to continue.]"
	if !strings.HasSuffix(text, want) {
		t.Fatalf("got tail %q", text[len(text)-100:])
	}
}

func TestReadFirstLineTooLong(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"min.js": "short\n" + strings.Repeat("y", 60*1024) + "\nend"})
	res, err := run(t, ReadTool{}, dir, map[string]any{"path": "min.js", "offset": 2})
	if err != nil {
		t.Fatal(err)
	}
	want := "[Line 2 is 60.0KB, exceeds 50.0KB limit. Use bash: sed -n '2p' min.js | head -c 51200]"
	if got := res.ResultText(); got != want {
		t.Fatalf("got %q", got)
	}
	if d, ok := res.Details.(ReadDetails); !ok || !d.Truncation.FirstLineExceedsLimit {
		t.Fatalf("details %#v", res.Details)
	}
}

func TestReadImage(t *testing.T) {
	dir := t.TempDir()
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x02\x00\x00\x00")
	// A PNG with a misleading extension is still detected by content.
	if err := os.WriteFile(filepath.Join(dir, "pic.dat"), png, 0o644); err != nil {
		t.Fatal(err)
	}
	gif := []byte("GIF89a\x01\x00\x01\x00\x00\x00\x00;")
	if err := os.WriteFile(filepath.Join(dir, "a.gif"), gif, 0o644); err != nil {
		t.Fatal(err)
	}
	jpeg := []byte("\xff\xd8\xff\xe0\x00\x10JFIF\x00")
	if err := os.WriteFile(filepath.Join(dir, "a.jpg"), jpeg, 0o644); err != nil {
		t.Fatal(err)
	}
	webp := []byte("RIFF\x1a\x00\x00\x00WEBPVP8 \x0e\x00\x00\x00")
	if err := os.WriteFile(filepath.Join(dir, "a.webp"), webp, 0o644); err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]struct {
		mime string
		data []byte
	}{"pic.dat": {"image/png", png}, "a.gif": {"image/gif", gif}, "a.jpg": {"image/jpeg", jpeg}, "a.webp": {"image/webp", webp}} {
		res, err := run(t, ReadTool{}, dir, map[string]any{"path": name})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Content) != 2 || res.Content[0].Type != llm.BlockText || res.Content[0].Text != "Read image file ["+c.mime+"]" {
			t.Fatalf("%s: content %#v", name, res.Content)
		}
		img := res.Content[1]
		if img.Type != llm.BlockImage || img.MimeType != c.mime || img.Data != base64.StdEncoding.EncodeToString(c.data) {
			t.Fatalf("%s: image block %#v", name, img)
		}
	}
	// A text file named .png is read as text.
	writeFiles(t, dir, map[string]string{"fake.png": "not an image"})
	if got := mustText(t, ReadTool{}, dir, map[string]any{"path": "fake.png"}); got != "not an image" {
		t.Fatalf("got %q", got)
	}
}

func TestReadBinary(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "b.bin"), []byte{0x7f, 'E', 'L', 'F', 0, 0, 1}, 0o644); err != nil {
		t.Fatal(err)
	}
	if got := mustText(t, ReadTool{}, dir, map[string]any{"path": "b.bin"}); !strings.Contains(got, "binary") {
		t.Fatalf("got %q", got)
	}
}

func TestBuiltinsHonourCancellation(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"a": "a"})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tool := range Builtins() {
		args := map[string]any{"path": "a", "pattern": "a", "command": "true", "content": "x", "oldText": "a", "newText": "b"}
		_, err := tool.Execute(ctx, Call{Args: args, Cwd: dir})
		if err == nil || err.Error() != "Operation aborted" {
			t.Errorf("%s: got %v", tool.Name(), err)
		}
	}
	if got := readFile(t, filepath.Join(dir, "a")); got != "a" {
		t.Errorf("a cancelled tool changed the file: %q", got)
	}
}
