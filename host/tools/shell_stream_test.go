//go:build unix

package tools

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"
)

type piece struct{ stream, text string }

func runStreams(t *testing.T, req ShellRequest) (ShellOutput, []piece) {
	t.Helper()
	var mu sync.Mutex
	var got []piece
	if req.Cwd == "" {
		req.Cwd = t.TempDir()
	}
	req.OnOutput = func(stream, text string) {
		mu.Lock()
		got = append(got, piece{stream, text})
		mu.Unlock()
		// Acknowledge the piece to commands that wait for it.
		_ = os.WriteFile(filepath.Join(req.Cwd, "got-"+strings.TrimSpace(text)), nil, 0o600)
	}
	out, err := RunShell(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	return out, append([]piece(nil), got...)
}

func joined(ps []piece, stream string) string {
	var sb strings.Builder
	for _, p := range ps {
		if stream == "" || p.stream == stream {
			sb.WriteString(p.text)
		}
	}
	return sb.String()
}

func TestRunShellSeparateStreams(t *testing.T) {
	// The command waits until each line was reported before it writes
	// the next one, so the order is known.
	cmd := `w() { while [ ! -e "got-$1" ]; do sleep 0.01; done; }
echo out1; w out1; echo err1 >&2; w err1; echo out2; w out2; echo err2 >&2`
	out, ps := runStreams(t, ShellRequest{Command: cmd})
	if got := joined(ps, StreamStdout); got != "out1\nout2\n" {
		t.Errorf("stdout = %q", got)
	}
	if got := joined(ps, StreamStderr); got != "err1\nerr2\n" {
		t.Errorf("stderr = %q", got)
	}
	if all := joined(ps, ""); all != out.Output+"\n" || !out.TrailingNewline {
		t.Errorf("merged output %q (trailing newline %v) differs from the pieces %q", out.Output, out.TrailingNewline, all)
	}
	if out.Output != "out1\nerr1\nout2\nerr2" {
		t.Errorf("output %q", out.Output)
	}
	for _, p := range ps {
		if p.text == "" {
			t.Error("empty piece reported")
		}
	}
}

func TestRunShellStripCRAndSanitise(t *testing.T) {
	out, ps := runStreams(t, ShellRequest{Command: `printf 'a\r\nb\033[31mred\033[0m\rc\n'`, StripCR: true})
	if got := joined(ps, ""); got != "a\nbredc\n" {
		t.Errorf("pieces %q", got)
	}
	if out.Output != "a\nbredc" {
		t.Errorf("output %q", out.Output)
	}
}

func TestRunShellSplitMultibyteAcrossWrites(t *testing.T) {
	// "é" is c3 a9 and "€" e2 82 ac: written byte by byte with pauses, on
	// both streams, each must arrive whole; a lone invalid byte becomes
	// U+FFFD.
	cmd := `printf '\303'; sleep 0.05; printf '\251'; printf '\342' >&2; sleep 0.05; printf '\202' >&2; sleep 0.05; printf '\254\n' >&2; printf '\377x\n'`
	out, ps := runStreams(t, ShellRequest{Command: cmd})
	for _, p := range ps {
		if !utf8.ValidString(p.text) {
			t.Errorf("invalid UTF-8 piece %q", p.text)
		}
	}
	if got := joined(ps, StreamStdout); got != "é\ufffdx\n" {
		t.Errorf("stdout %q", got)
	}
	if got := joined(ps, StreamStderr); got != "€\n" {
		t.Errorf("stderr %q", got)
	}
	if !utf8.ValidString(out.Output) {
		t.Errorf("output not valid UTF-8: %q", out.Output)
	}
}

func TestRunShellUnfinishedCharacterAtEnd(t *testing.T) {
	_, ps := runStreams(t, ShellRequest{Command: `printf 'ok\342\202'`})
	if got := joined(ps, StreamStdout); got != "ok\ufffd\ufffd" {
		t.Errorf("stdout %q", got)
	}
}

func TestRunShellSpillFileAndCap(t *testing.T) {
	dir := t.TempDir()
	var created string
	req := ShellRequest{
		Command: `i=0; while [ $i -lt 3000 ]; do echo "line $i of the output"; i=$((i+1)); done`,
		SpillFile: func() (*os.File, error) {
			f, err := os.CreateTemp(dir, "spill-*.log")
			if err == nil {
				created = f.Name()
			}
			return f, err
		},
		MaxSpillBytes: 10000,
	}
	out, _ := runStreams(t, req)
	if !out.Truncation.Truncated || out.FullOutputPath != created || created == "" {
		t.Fatalf("truncated %v path %q created %q", out.Truncation.Truncated, out.FullOutputPath, created)
	}
	if !out.SpillCapped {
		t.Error("SpillCapped not set")
	}
	data, err := os.ReadFile(created)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(data), "line 0 of the output\n") || !strings.HasSuffix(string(data), spillCapNote) {
		t.Errorf("file does not start with the output and end with the note: %q…%q", data[:40], data[len(data)-100:])
	}
	if len(data) > 10000+len(spillCapNote) {
		t.Errorf("file has %d bytes, cap 10000", len(data))
	}
	if !strings.HasSuffix(out.Output, "line 2999 of the output") {
		t.Errorf("output does not keep the tail: …%q", out.Output[len(out.Output)-40:])
	}
}

func TestRunShellSpillFileFailure(t *testing.T) {
	req := ShellRequest{
		Command:   `head -c 200000 /dev/zero | tr '\0' 'a'`,
		SpillFile: func() (*os.File, error) { return nil, os.ErrPermission },
	}
	out, _ := runStreams(t, req)
	if !out.Truncation.Truncated || out.FullOutputPath != "" {
		t.Fatalf("truncated %v path %q", out.Truncation.Truncated, out.FullOutputPath)
	}
}

func TestRunShellSignaled(t *testing.T) {
	out, _ := runStreams(t, ShellRequest{Command: `kill -9 $$`})
	if !out.Signaled || out.ExitCode != 137 {
		t.Fatalf("signaled %v exit %d", out.Signaled, out.ExitCode)
	}
}
