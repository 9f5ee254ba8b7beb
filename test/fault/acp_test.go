//go:build linux

package fault

import (
	"bufio"
	"encoding/json"
	"io"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/atomic-go/atomic/internal/e2e"
)

// The ACP front end under a hostile client (issue 31, item 8): raw
// JSON-RPC lines to the built binary, every answer awaited with a timeout.

type acpRaw struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	lines chan map[string]any
}

func startACP(t *testing.T, opts e2e.Options) *acpRaw {
	t.Helper()
	opts.NoMode = true
	opts.Args = append([]string{"--mode", "acp"}, opts.Args...)
	cmd, _ := e2e.Command(t, opts)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	a := &acpRaw{cmd: cmd, stdin: stdin, lines: make(chan map[string]any, 1<<16)}
	go func() {
		defer close(a.lines)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			var m map[string]any
			if json.Unmarshal(sc.Bytes(), &m) == nil {
				a.lines <- m
			}
		}
	}()
	t.Cleanup(func() {
		stdin.Close()
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	return a
}

func (a *acpRaw) send(t *testing.T, line string) {
	t.Helper()
	if _, err := io.WriteString(a.stdin, line+"\n"); err != nil {
		t.Fatal(err)
	}
}

// answer waits for the answer whose id, as JSON, is id.
func (a *acpRaw) answer(t *testing.T, id string) map[string]any {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		select {
		case m, ok := <-a.lines:
			if !ok {
				t.Fatalf("the agent ended before answering %s", id)
			}
			if _, isReq := m["method"]; isReq {
				continue
			}
			if b, _ := json.Marshal(m["id"]); string(b) == id {
				return m
			}
		case <-deadline:
			t.Fatalf("no answer to %s", id)
		}
	}
}

func errCode(m map[string]any) float64 {
	e, _ := m["error"].(map[string]any)
	c, _ := e["code"].(float64)
	return c
}

const acpInit = `{"jsonrpc":"2.0","id":%q,"method":"initialize","params":{"protocolVersion":1}}`

func acpInitLine(id string) string { return strings.Replace(acpInit, "%q", `"`+id+`"`, 1) }

// writeLong writes a message line of n bytes of padding in a string
// (ending it with a newline when nl), in pieces.
func writeLong(t *testing.T, w io.Writer, prefix string, n int, nl bool) {
	t.Helper()
	piece := []byte(strings.Repeat("x", 1<<20))
	if _, err := io.WriteString(w, prefix); err != nil {
		t.Fatal(err)
	}
	for left := n; left > 0; left -= len(piece) {
		if _, err := w.Write(piece[:min(left, len(piece))]); err != nil {
			t.Fatal(err)
		}
	}
	if nl {
		_, _ = io.WriteString(w, "\"}}\n")
	}
}

// A 300 MiB line is refused while it is read (memory stays under a cap)
// with -32600 and its id; the agent goes on answering.
func TestACPHugeLineRefusedWhileRead(t *testing.T) {
	a := startACP(t, e2e.Options{})
	w := watchRSS(t, a.cmd.Process.Pid, 150)
	writeLong(t, a.stdin, `{"jsonrpc":"2.0","id":"big","method":"initialize","params":{"protocolVersion":1,"x":"`, 300<<20, true)
	if r := a.answer(t, `"big"`); errCode(r) != -32600 {
		t.Fatalf("answer %v", r)
	}
	a.send(t, acpInitLine("after"))
	if r := a.answer(t, `"after"`); r["result"] == nil {
		t.Fatalf("initialize after: %v", r)
	}
	w.check(t)
}

// A 300 MiB line without a newline, then EOF: refused (id null), the agent
// exits, memory stays under the cap.
func TestACPHugeLineAtEOF(t *testing.T) {
	a := startACP(t, e2e.Options{})
	w := watchRSS(t, a.cmd.Process.Pid, 150)
	writeLong(t, a.stdin, `{"jsonrpc":"2.0","method":"x","params":{"x":"`, 300<<20, false)
	a.stdin.Close()
	if r := a.answer(t, `null`); errCode(r) != -32600 {
		t.Fatalf("answer %v", r)
	}
	w.check(t)
	done := make(chan error, 1)
	go func() { done <- a.cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the agent did not exit")
	}
}

// Invalid UTF-8 inside a request and a line of only invalid bytes: each
// gets exactly one answer.
func TestACPInvalidUTF8(t *testing.T) {
	a := startACP(t, e2e.Options{})
	a.send(t, `{"jsonrpc":"2.0","id":"u","method":"initialize","params":{"protocolVersion":1,"clientInfo":{"name":"`+"\xff\xfe"+`","version":"1"}}}`)
	if r := a.answer(t, `"u"`); r["result"] == nil && r["error"] == nil {
		t.Fatalf("answer %v", r)
	}
	a.send(t, "\xff\xfe\xfd")
	if r := a.answer(t, `null`); errCode(r) != -32700 {
		t.Fatalf("answer %v", r)
	}
	a.send(t, acpInitLine("after"))
	if r := a.answer(t, `"after"`); r["result"] == nil {
		t.Fatalf("initialize after: %v", r)
	}
}
