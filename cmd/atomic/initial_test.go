package main_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atomic-go/atomic/internal/e2e"
)

// userPrompts are the user messages a json-mode run recorded, in order,
// with the number of images each carried.
func userPrompts(t *testing.T, stdout string) (texts []string, images []int) {
	t.Helper()
	for _, line := range strings.Split(strings.TrimSpace(stdout), "\n") {
		var ev struct {
			Type    string `json:"type"`
			Message struct {
				Role    string `json:"role"`
				Content []struct {
					Type string `json:"type"`
					Text string `json:"text"`
				} `json:"content"`
			} `json:"message"`
		}
		if json.Unmarshal([]byte(line), &ev) != nil || ev.Type != "message_end" || ev.Message.Role != "user" {
			continue
		}
		var text string
		n := 0
		for _, c := range ev.Message.Content {
			switch c.Type {
			case "text":
				text += c.Text
			case "image":
				n++
			}
		}
		texts, images = append(texts, text), append(images, n)
	}
	return texts, images
}

// As pi 1.6: each message argument is a prompt of its own, in order.
func TestMessagesAreSeparatePrompts(t *testing.T) {
	res := e2e.Run(t, e2e.Options{NoMode: true, RawStdout: true, Args: []string{"--mode", "json", "first", "second one"}}, "", limit)
	if res.ExitCode != 0 {
		t.Fatalf("exit %d: %s", res.ExitCode, res.Stderr)
	}
	if got, _ := userPrompts(t, res.Stdout); strings.Join(got, "|") != "first|second one" {
		t.Fatalf("prompts %q", got)
	}
}

// Piped stdin comes before the first message (on a line of its own);
// without a message it is the prompt, even with no -p.
func TestPipedStdinIsPrepended(t *testing.T) {
	res := e2e.Run(t, e2e.Options{NoMode: true, RawStdout: true, Args: []string{"--mode", "json", "review this", "and this"}}, "diff --git a b\n+x\n", limit)
	got, _ := userPrompts(t, res.Stdout)
	if len(got) != 2 || got[0] != "diff --git a b\n+x\nreview this" || got[1] != "and this" {
		t.Fatalf("prompts %q (exit %d, %s)", got, res.ExitCode, res.Stderr)
	}
	res = e2e.Run(t, e2e.Options{NoMode: true}, "just stdin\n", limit)
	if res.ExitCode != 0 || !strings.Contains(res.Stdout, `"just stdin"`) {
		t.Fatalf("piped stdin alone: exit %d stdout %q stderr %q", res.ExitCode, res.Stdout, res.Stderr)
	}
}

// @path arguments attach a text file (a <file> block) and an image to the
// first prompt; a missing file is an error; RPC mode refuses them.
func TestFileArguments(t *testing.T) {
	dir := t.TempDir()
	notes := filepath.Join(dir, "notes.txt")
	png := filepath.Join(dir, "pic.png")
	empty := filepath.Join(dir, "empty.txt")
	if err := os.WriteFile(notes, []byte("\ufeffline one\nline two"), 0o644); err != nil {
		t.Fatal(err)
	}
	// a 1x1 PNG
	pngData := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\xff\xff?\x00\x05\xfe\x02\xfe\xa7\x35\x81\x84\x00\x00\x00\x00IEND\xaeB`\x82")
	if err := os.WriteFile(png, pngData, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	res := e2e.Run(t, e2e.Options{NoMode: true, RawStdout: true, Dir: dir, Args: []string{"--mode", "json", "@notes.txt", "@" + png, "@empty.txt", "explain"}}, "", limit)
	texts, images := userPrompts(t, res.Stdout)
	want := "<file name=\"" + notes + "\">\nline one\nline two\n</file>\n<file name=\"" + png + "\"></file>\nexplain"
	if len(texts) != 1 || texts[0] != want || images[0] != 1 {
		t.Fatalf("prompts %q images %v, want %q with one image (exit %d, %s)", texts, images, want, res.ExitCode, res.Stderr)
	}
	res = e2e.Run(t, e2e.Options{NoMode: true, RawStdout: true, Dir: dir, Args: []string{"-p", "@missing.txt", "go"}}, "", limit)
	if res.ExitCode != 1 || !strings.Contains(res.Stderr, "File not found: "+filepath.Join(dir, "missing.txt")) {
		t.Fatalf("missing file: exit %d stderr %q", res.ExitCode, res.Stderr)
	}
	res = e2e.Run(t, e2e.Options{NoMode: true, RawStdout: true, Dir: dir, Args: []string{"--mode", "rpc", "@notes.txt"}}, "", limit)
	if res.ExitCode != 1 || !strings.Contains(res.Stderr, "@file arguments are not supported in rpc mode") {
		t.Fatalf("rpc mode: exit %d stderr %q", res.ExitCode, res.Stderr)
	}
}
