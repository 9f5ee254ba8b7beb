package rpc_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/atomic-go/atomic/internal/e2e"
)

func TestAbortDuringStream(t *testing.T) {
	a := e2e.Start(t, e2e.Options{Script: []map[string]any{slowStep("tick ", 400, 25)}})
	from := a.Len()
	a.MustSucceed(map[string]any{"type": "prompt", "message": "long"})
	waitDelta(a, from)
	began := time.Now()
	resp := a.Request(map[string]any{"id": "ab", "type": "abort"})
	if resp["success"] != true {
		t.Fatalf("abort failed: %v", resp)
	}
	if d := time.Since(began); d > 5*time.Second {
		t.Fatalf("abort took %v", d)
	}
	recs := a.Records(from)
	respAt := indexOf(recs, 0, isResponseTo("ab"))
	endAt := indexOf(recs, 0, isType("agent_end"))
	if endAt < 0 || endAt > respAt {
		t.Fatalf("abort answered before agent_end: %v", e2e.Types(recs))
	}
	var final map[string]any
	for _, r := range recs[:endAt] {
		if r.Type() == "message_end" && str(obj(r, "message"), "role") == "assistant" {
			final = obj(r, "message")
		}
	}
	if str(final, "stopReason") != "aborted" || str(final, "errorMessage") == "" {
		t.Fatalf("aborted message = %v", final)
	}
	if text := messageText(final); !strings.HasPrefix(text, "tick") || len(text) >= len(strings.Repeat("tick ", 400)) {
		t.Fatalf("aborted message should keep the partial text, got %d bytes", len(text))
	}
	te := recs[endAt-1]
	if te.Type() != "turn_end" || len(arr(te, "toolResults")) != 0 {
		t.Fatalf("before agent_end: %v", te)
	}
	st := a.MustSucceed(map[string]any{"type": "get_state"})
	if obj(st, "data")["isStreaming"] != false {
		t.Fatalf("still streaming after abort: %v", st)
	}
	// The agent keeps working: the next prompt gets the quoting reply.
	next := a.PromptAndWait("after abort")
	final = obj(ofType(next, "message_end")[len(ofType(next, "message_end"))-1], "message")
	if !strings.Contains(messageText(final), "after abort") {
		t.Fatalf("reply after abort = %v", final)
	}
	// The aborted reply is not what get_last_assistant_text returns.
	last := a.MustSucceed(map[string]any{"type": "get_last_assistant_text"})
	if !strings.Contains(str(obj(last, "data"), "text"), "after abort") {
		t.Fatalf("last text = %v", last)
	}
}

func TestAbortWhenIdle(t *testing.T) {
	a := e2e.Start(t, e2e.Options{})
	resp := a.Request(map[string]any{"type": "abort"})
	if resp["success"] != true {
		t.Fatalf("abort while idle: %v", resp)
	}
	if n := len(ofType(a.Records(0), "agent_end")); n != 0 {
		t.Fatalf("idle abort produced events")
	}
}

// processGone reports whether pid no longer runs (gone or a zombie
// waiting for its reaper).
func processGone(pid int) bool {
	if err := syscall.Kill(pid, 0); err == syscall.ESRCH {
		return true
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	// The state follows the parenthesised command name.
	s := string(stat)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2] == 'Z' || s[i+2] == 'X'
	}
	return false
}

func TestAbortKillsRunningBash(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "child.pid")
	a := e2e.Start(t, e2e.Options{Dir: dir, Script: []map[string]any{
		{"toolCalls": []map[string]any{{"id": "sleepy", "name": "bash", "arguments": map[string]any{
			"command": "sleep 100 & echo $! > child.pid; echo started; wait"}}}},
		{"text": "never reached"},
	}})
	from := a.Len()
	a.MustSucceed(map[string]any{"type": "prompt", "message": "run it"})
	a.WaitType(from, "tool_execution_start")
	var pid int
	deadline := time.Now().Add(wait)
	for {
		b, err := os.ReadFile(pidFile)
		if err == nil && strings.HasSuffix(string(b), "\n") {
			pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the command did not start")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if processGone(pid) {
		t.Fatalf("background sleep %d is not running", pid)
	}
	began := time.Now()
	a.Request(map[string]any{"id": "ab", "type": "abort"})
	if d := time.Since(began); d > 5*time.Second {
		t.Fatalf("abort took %v", d)
	}
	recs := a.Records(from)
	respAt := indexOf(recs, 0, isResponseTo("ab"))
	endAt := indexOf(recs, 0, isType("agent_end"))
	if endAt < 0 || endAt > respAt {
		t.Fatalf("abort answered before agent_end: %v", e2e.Types(recs))
	}
	toolEnd := ofType(recs, "tool_execution_end")
	if len(toolEnd) != 1 || toolEnd[0]["isError"] != true || !strings.Contains(strings.ToLower(messageText(obj(toolEnd[0], "result"))), "abort") {
		t.Fatalf("tool_execution_end = %v", toolEnd)
	}
	// The aborted run does not call the model again.
	if n := len(a.FauxRequests()); n != 1 {
		t.Fatalf("model calls = %d, want 1", n)
	}
	deadline = time.Now().Add(5 * time.Second)
	for !processGone(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("background process %d survived the abort", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
	msgs := arr(recs[endAt], "messages")
	requireEqual(t, "agent_end roles", roles(msgs), []string{"user", "assistant", "toolResult"})
}

func TestEOFWhileStreaming(t *testing.T) {
	a := e2e.Start(t, e2e.Options{Script: []map[string]any{slowStep("tick ", 400, 25)}})
	from := a.Len()
	a.MustSucceed(map[string]any{"type": "prompt", "message": "long"})
	waitDelta(a, from)
	a.Send(map[string]any{"id": "last-words", "type": "get_state"})
	a.CloseStdin()
	began := time.Now()
	if code := a.Wait(wait); code != 0 {
		t.Fatalf("exit code %d", code)
	}
	if d := time.Since(began); d > 5*time.Second {
		t.Fatalf("exit took %v", d)
	}
	a.WaitFrom(from, wait, isType("agent_end"))
	if len(a.Responses("last-words")) != 1 {
		t.Fatalf("the command sent before EOF was not answered")
	}
	var final map[string]any
	for _, r := range a.Records(from) {
		if r.Type() == "message_end" {
			final = obj(r, "message")
		}
	}
	if str(final, "stopReason") != "aborted" {
		t.Fatalf("run was not aborted: %v", final)
	}
}

func TestSIGTERMWhileStreaming(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			a := e2e.Start(t, e2e.Options{Script: []map[string]any{slowStep("tick ", 400, 25)}})
			from := a.Len()
			a.MustSucceed(map[string]any{"type": "prompt", "message": "long"})
			waitDelta(a, from)
			began := time.Now()
			if err := a.Process().Signal(sig); err != nil {
				t.Fatal(err)
			}
			if code := a.Wait(wait); code != 0 {
				t.Fatalf("exit code %d", code)
			}
			if d := time.Since(began); d > 3*time.Second {
				t.Fatalf("exit took %v", d)
			}
			end := a.WaitFrom(from, wait, isType("agent_end"))
			msgs := arr(end, "messages")
			if str(msgs[len(msgs)-1].(map[string]any), "stopReason") != "aborted" {
				t.Fatalf("run was not aborted: %v", msgs)
			}
		})
	}
}

func TestSIGTERMDuringBash(t *testing.T) {
	dir := t.TempDir()
	a := e2e.Start(t, e2e.Options{Dir: dir, Script: []map[string]any{
		{"toolCalls": []map[string]any{{"name": "bash", "arguments": map[string]any{
			"command": "sleep 100 & echo $! > child.pid; wait"}}}},
	}})
	from := a.Len()
	a.MustSucceed(map[string]any{"type": "prompt", "message": "run it"})
	a.WaitType(from, "tool_execution_start")
	var pid int
	for deadline := time.Now().Add(wait); pid == 0; time.Sleep(10 * time.Millisecond) {
		if b, err := os.ReadFile(filepath.Join(dir, "child.pid")); err == nil && strings.HasSuffix(string(b), "\n") {
			pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		}
		if time.Now().After(deadline) {
			t.Fatal("the command did not start")
		}
	}
	_ = a.Process().Signal(syscall.SIGTERM)
	if code := a.Wait(wait); code != 0 {
		t.Fatalf("exit code %d", code)
	}
	for deadline := time.Now().Add(5 * time.Second); !processGone(pid); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("background process %d survived SIGTERM", pid)
		}
	}
}

func TestAbortContinuesWithQueuedMessages(t *testing.T) {
	a := e2e.Start(t, e2e.Options{Script: []map[string]any{
		slowStep("tick ", 400, 25),
		{"text": "handled the steer"},
		{"text": "handled the follow-up"},
	}})
	from := a.Len()
	a.MustSucceed(map[string]any{"type": "prompt", "message": "long"})
	waitDelta(a, from)
	a.MustSucceed(map[string]any{"type": "steer", "message": "S"})
	a.MustSucceed(map[string]any{"type": "follow_up", "message": "F"})
	a.MustSucceed(map[string]any{"id": "ab", "type": "abort"})
	// The aborted run ends, abort answers, then the queue goes on in a new
	// run: the steering message first, the follow-up when it stops.
	a.WaitFrom(from+indexOf(a.Records(from), 0, isResponseTo("ab")), wait, isType("agent_start"))
	recs := a.Records(from)
	respAt := indexOf(recs, 0, isResponseTo("ab"))
	firstEnd := indexOf(recs, 0, isType("agent_end"))
	nextStart := indexOf(recs, firstEnd, isType("agent_start"))
	if firstEnd > respAt || nextStart < respAt {
		t.Fatalf("order: %v", e2e.Types(recs))
	}
	a.WaitFrom(from+nextStart, wait, isType("agent_end"))
	run := runRecords(a, from+nextStart)
	requireEqual(t, "continued run", turnUserTexts(run), [][]string{{"S"}, {"F"}})
	st := obj(a.MustSucceed(map[string]any{"type": "get_state"}), "data")
	if st["pendingMessageCount"] != 0.0 {
		t.Fatalf("queue not drained: %v", st)
	}
}

func TestClearQueueThenAbortStops(t *testing.T) {
	a := e2e.Start(t, e2e.Options{Script: []map[string]any{slowStep("tick ", 400, 25)}})
	from := a.Len()
	a.MustSucceed(map[string]any{"type": "prompt", "message": "long"})
	waitDelta(a, from)
	a.MustSucceed(map[string]any{"type": "steer", "message": "S"})
	cleared := a.MustSucceed(map[string]any{"type": "clear_queue"})
	requireEqual(t, "cleared", obj(cleared, "data")["steering"], any([]any{"S"}))
	a.MustSucceed(map[string]any{"type": "abort"})
	a.MustSucceed(map[string]any{"id": "sentinel", "type": "get_state"})
	if n := len(ofType(a.Records(from), "agent_start")); n != 1 {
		t.Fatalf("%d runs after clear_queue + abort", n)
	}
}
