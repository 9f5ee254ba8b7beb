// Package fault is the black-box fault and soak suite: the built agent is
// driven through sdk/rpcclient (or raw pipes where the fault is the
// client's own) while it loses its client, is killed, runs out of disk
// permissions, or serves a long session.
package fault

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/atomic-go/atomic/internal/e2e"
	"github.com/atomic-go/atomic/internal/leaktest"
	"github.com/atomic-go/atomic/sdk/rpcclient"
)

// TestMain also checks that the client leaves no goroutine behind.
func TestMain(m *testing.M) {
	leaktest.VerifyTestMain(m)
}

// slow is a faux turn streaming n deltas with delayMs between them.
func slow(n, delayMs int) map[string]any {
	return map[string]any{"text": strings.Repeat("tick ", n), "chunks": n, "delayMs": delayMs}
}

func reply(text string) map[string]any { return map[string]any{"text": text} }

func ctx(t *testing.T) context.Context { return e2e.Ctx(t, 30*time.Second) }

// waitDelta waits for a text delta on sub.
func waitDelta(t *testing.T, sub *rpcclient.Subscription) {
	t.Helper()
	_, err := sub.WaitFor(ctx(t), func(ev rpcclient.Event) bool {
		if ev.Type != "message_update" {
			return false
		}
		var u rpcclient.MessageUpdate
		return ev.Decode(&u) == nil && u.AssistantMessageEvent.Type == "text_delta"
	})
	if err != nil {
		t.Fatalf("no text delta: %v", err)
	}
}

// waitExit waits for the agent process to end and returns its state.
func waitExit(t *testing.T, c *rpcclient.Client, within time.Duration) *os.ProcessState {
	t.Helper()
	wctx, cancel := context.WithTimeout(context.Background(), within)
	defer cancel()
	st, err := c.Wait(wctx)
	if err != nil {
		t.Fatalf("the agent did not exit within %v: %v\nstderr:\n%s", within, err, c.Stderr())
	}
	return st
}

// fileEntries reads a session file: its complete lines decoded, whether
// it ends with a torn (unterminated) line, and how many complete lines do
// not decode.
func fileEntries(t *testing.T, path string) (lines []map[string]any, torn bool, bad int) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	torn = len(data) > 0 && data[len(data)-1] != '\n'
	all := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
	for i, line := range all {
		if len(line) == 0 {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal(line, &m); err != nil {
			if !(torn && i == len(all)-1) {
				bad++
			}
			continue
		}
		lines = append(lines, m)
	}
	return lines, torn, bad
}

// summary lists entry types, with the role and text of messages.
func summary(entries []rpcclient.Entry) []string {
	var out []string
	for _, e := range entries {
		s := e.Type
		if e.Message != nil {
			s += ":" + e.Message.Role
			if txt := e.Message.Text(); txt != "" {
				s += ":" + clip(txt, 20)
			}
		}
		out = append(out, s)
	}
	return out
}

func clip(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// vm reads a /proc/<pid>/status field in KiB (VmRSS, VmHWM, Threads…).
func vm(pid int, field string) int64 {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, field+":") {
			f := strings.Fields(line)
			n, _ := strconv.ParseInt(f[1], 10, 64)
			return n
		}
	}
	return -1
}

func fdCount(pid int) int {
	ents, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		return -1
	}
	return len(ents)
}

func isExit(err error) bool {
	var ee *rpcclient.ExitError
	return errors.As(err, &ee)
}
