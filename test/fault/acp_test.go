//go:build linux

package fault

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/atomic-go/atomic/internal/e2e"
)

// The ACP front end under a hostile client (issue 31, item 8): raw
// JSON-RPC lines to the built binary, every answer awaited with a timeout.

type acpRaw struct {
	env   e2e.Env
	cmd   *exec.Cmd
	stdin io.WriteCloser
	lines chan map[string]any
}

func startACP(t *testing.T, opts e2e.Options) *acpRaw {
	t.Helper()
	opts.NoMode = true
	opts.Args = append([]string{"--mode", "acp"}, opts.Args...)
	cmd, env := e2e.Command(t, opts)
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
	a := &acpRaw{env: env, cmd: cmd, stdin: stdin, lines: make(chan map[string]any, 1<<16)}
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
	a.write(t, line+"\n")
}

// write writes s, failing the test (and killing the agent) when the agent
// does not take it within 30 s.
func (a *acpRaw) write(t *testing.T, s string) {
	t.Helper()
	done := make(chan error, 1)
	go func() { _, err := io.WriteString(a.stdin, s); done <- err }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		_ = a.cmd.Process.Kill()
		t.Fatal("the agent stopped reading its input")
	}
}

// answer waits for the answer whose id, as JSON, is id.
func (a *acpRaw) answer(t *testing.T, id string) map[string]any {
	t.Helper()
	return a.next(t, "answer to "+id, func(m map[string]any) bool {
		if _, isReq := m["method"]; isReq {
			return false
		}
		b, _ := json.Marshal(m["id"])
		return string(b) == id
	})
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
	a.stillAnswers(t)
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
	a.stillAnswers(t)
}

// next waits for the next message that matches.
func (a *acpRaw) next(t *testing.T, what string, match func(map[string]any) bool) map[string]any {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		select {
		case m, ok := <-a.lines:
			if !ok {
				t.Fatalf("the agent ended before %s", what)
			}
			if match(m) {
				return m
			}
		case <-deadline:
			t.Fatalf("no %s", what)
		}
	}
}

// session runs initialize and session/new and returns the session id.
func (a *acpRaw) session(t *testing.T) string {
	t.Helper()
	a.send(t, acpInitLine("init"))
	a.answer(t, `"init"`)
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": "new", "method": "session/new", "params": map[string]any{"cwd": a.env.Dir, "mcpServers": []any{}}})
	a.send(t, string(b))
	res, _ := a.answer(t, `"new"`)["result"].(map[string]any)
	id, _ := res["sessionId"].(string)
	if id == "" {
		t.Fatalf("session/new: %v", res)
	}
	return id
}

func promptLine(reqID, session, text string) string {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": reqID, "method": "session/prompt",
		"params": map[string]any{"sessionId": session, "prompt": []any{map[string]any{"type": "text", "text": text}}}})
	return string(b)
}

// toolRunning waits for the update that says the tool call id runs.
func (a *acpRaw) toolRunning(t *testing.T, call string) {
	t.Helper()
	a.next(t, "tool call "+call+" in progress", func(m map[string]any) bool {
		p, _ := m["params"].(map[string]any)
		u, _ := p["update"].(map[string]any)
		return u["sessionUpdate"] == "tool_call_update" && u["toolCallId"] == call && u["status"] == "in_progress"
	})
}

func stopReason(m map[string]any) any {
	r, _ := m["result"].(map[string]any)
	return r["stopReason"]
}

// stillAnswers checks that the agent answers a request.
func (a *acpRaw) stillAnswers(t *testing.T) {
	t.Helper()
	a.send(t, acpInitLine("after"))
	if r := a.answer(t, `"after"`); r["result"] == nil {
		t.Fatalf("initialize after: %v", r)
	}
}

// exits closes the input and waits for a clean exit.
func (a *acpRaw) exits(t *testing.T, within time.Duration) {
	t.Helper()
	a.stdin.Close()
	done := make(chan error, 1)
	go func() { done <- a.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("exit: %v", err)
		}
	case <-time.After(within):
		t.Fatalf("the agent did not exit within %v", within)
	}
}

var slowTool = []map[string]any{
	{"toolCalls": []map[string]any{{"name": "bash", "id": "slow", "arguments": map[string]any{"command": "trap '' TERM INT HUP; sleep 60"}}}},
	{"text": "done"},
}

// 3,000 session/cancel notifications during a slow tool: the prompt
// answers cancelled, the agent goes on answering, and it exits cleanly.
func TestACPCancelFlood(t *testing.T) {
	a := startACP(t, e2e.Options{Script: slowTool})
	sid := a.session(t)
	a.send(t, promptLine("p", sid, "run"))
	a.toolRunning(t, "slow")
	cancel := `{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"` + sid + `"}}` + "\n"
	a.write(t, strings.Repeat(cancel, 3000))
	if r := a.answer(t, `"p"`); stopReason(r) != "cancelled" {
		t.Fatalf("prompt: %v", r)
	}
	a.stillAnswers(t)
	a.exits(t, 5*time.Second)
}

// A flood of notifications the agent does not handle (unknown methods,
// cancels of unknown sessions) is dropped: nothing is answered for them,
// requests after them are, and the agent exits cleanly.
func TestACPNotificationFlood(t *testing.T) {
	a := startACP(t, e2e.Options{})
	a.session(t)
	flood := strings.Repeat(`{"jsonrpc":"2.0","method":"no/such"}`+"\n"+`{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"nope"}}`+"\n"+`{"jsonrpc":"2.0","method":"_x/y","params":{}}`+"\n", 7000)
	a.write(t, flood)
	a.stillAnswers(t)
	a.exits(t, 5*time.Second)
}

// A request with "id": null is refused at once (-32600) and does not
// delay exit; so are a null id on session/prompt and on an unknown method.
func TestACPNullID(t *testing.T) {
	a := startACP(t, e2e.Options{})
	sid := a.session(t)
	for _, l := range []string{
		`{"jsonrpc":"2.0","id":null,"method":"initialize","params":{"protocolVersion":1}}`,
		strings.Replace(promptLine("x", sid, "hi"), `"id":"x"`, `"id":null`, 1),
		`{"jsonrpc":"2.0","id":null,"method":"no/such"}`,
	} {
		a.send(t, l)
		if r := a.answer(t, `null`); errCode(r) != -32600 {
			t.Fatalf("%s: %v", l, r)
		}
	}
	a.exits(t, 3*time.Second)
}

// A second session/prompt while one runs in the same session is refused
// with a clear error, and the first completes (it is not cancelled); so
// is a prompt for an unknown session meanwhile.
func TestACPSecondPromptRefused(t *testing.T) {
	a := startACP(t, e2e.Options{Script: []map[string]any{
		{"toolCalls": []map[string]any{{"name": "bash", "id": "wait", "arguments": map[string]any{"command": "while [ ! -e go ]; do sleep 0.02; done"}}}},
		{"text": "done"},
		{"text": "next"},
	}})
	sid := a.session(t)
	a.send(t, promptLine("p1", sid, "run"))
	a.toolRunning(t, "wait")
	a.send(t, promptLine("p2", sid, "again"))
	r := a.answer(t, `"p2"`)
	e, _ := r["error"].(map[string]any)
	if b, _ := json.Marshal(e); e == nil || !strings.Contains(string(b), "a prompt is in progress") {
		t.Fatalf("second prompt: %v", r)
	}
	a.send(t, promptLine("p3", "no-such-session", "other"))
	if r := a.answer(t, `"p3"`); r["error"] == nil {
		t.Fatalf("prompt for another session: %v", r)
	}
	if err := os.WriteFile(filepath.Join(a.env.Dir, "go"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if r := a.answer(t, `"p1"`); stopReason(r) != "end_turn" {
		t.Fatalf("first prompt: %v", r)
	}
	// Once the first is answered the session takes a prompt again, a
	// numeric id as well.
	a.send(t, strings.Replace(promptLine("p4", sid, "next"), `"id":"p4"`, `"id":4`, 1))
	if r := a.answer(t, `4`); stopReason(r) != "end_turn" {
		t.Fatalf("prompt after the first: %v", r)
	}
	a.exits(t, 5*time.Second)
}
