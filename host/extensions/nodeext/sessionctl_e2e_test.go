package nodeext_test

import (
	"strings"
	"testing"
	"time"

	"github.com/atomic-go/atomic/internal/e2e"
)

// Session control from a command's ctx in both runtimes, through the
// built binary: the same runtime code as the RPC commands, their
// session_before_* cancellation, withSession after the new session_start,
// and the stale old ctx.

// notice sends a prompt and returns the text of the first notification
// or displayed custom message that starts with prefix.
func notice(t *testing.T, a *e2e.Agent, message, prefix string) string {
	t.Helper()
	from := a.Len()
	a.MustSucceed(map[string]any{"type": "prompt", "message": message})
	return waitNotice(t, a, from, prefix)
}

func waitNotice(t *testing.T, a *e2e.Agent, from int, prefix string) string {
	t.Helper()
	r := a.WaitFrom(from, 20*time.Second, func(r e2e.Record) bool { return strings.HasPrefix(noticeText(r), prefix) })
	return noticeText(r)
}

func noticeText(r e2e.Record) string {
	switch r.Type() {
	case "extension_ui_request":
		s, _ := r["message"].(string)
		return s
	case "message_end":
		m, _ := r["message"].(map[string]any)
		if m["role"] == "custom" {
			s, _ := m["content"].(string)
			return s
		}
	}
	return ""
}

func sessionID(t *testing.T, a *e2e.Agent) (id, file string) {
	t.Helper()
	d := a.MustSucceed(map[string]any{"type": "get_state"})["data"].(map[string]any)
	f, _ := d["sessionFile"].(string)
	return d["sessionId"].(string), f
}

func userEntry(t *testing.T, a *e2e.Agent) string {
	t.Helper()
	for _, e := range a.MustSucceed(map[string]any{"type": "get_entries"})["data"].(map[string]any)["entries"].([]any) {
		m := e.(map[string]any)
		if msg, ok := m["message"].(map[string]any); ok && m["type"] == "message" && msg["role"] == "user" {
			return m["id"].(string)
		}
	}
	t.Fatal("no user message entry")
	return ""
}

func TestSessionControlFromCommands(t *testing.T) {
	for _, c := range []struct{ name, runtime, isolation string }{{"goja", "goja", ""}, {"goja isolated", "goja", "process"}, {"node", "node", ""}} {
		runtime := c.runtime
		t.Run(c.name, func(t *testing.T) {
			if runtime == "node" {
				needNode(t)
			}
			script := []map[string]any{{"text": "one"}, {"text": "two"}}
			ext := map[string]any{"path": abs(t, "sessionctl.ts"), "isolation": c.isolation}
			a := start(t, script, map[string]any{"extensionRuntime": runtime, "extensions": []any{ext}}, nil)
			if st := statuses(t, a)["sessionctl.ts"]; st["state"] != "loaded" || st["runtime"] != runtime {
				t.Fatalf("%v", st)
			}
			a.PromptAndWait("hello")
			first, firstFile := sessionID(t, a)

			// newSession: withSession runs in the new session after its
			// session_start, the old ctx is stale there, the new one live.
			from := a.Len()
			got := notice(t, a, "/new", "new: withSession")
			want := "new: withSession new=true old ctx stale new ctx live seen shutdown:new,start:new"
			if got != want {
				t.Fatalf("newSession:\n got %s\nwant %s", got, want)
			}
			if got := waitNotice(t, a, from, "new: result"); got != `new: result {"cancelled":false}` {
				t.Fatalf("newSession result: %s", got)
			}
			second, _ := sessionID(t, a)
			if second == first {
				t.Fatal("the session was not replaced")
			}

			// Cancelled by session_before_switch: the session stays.
			notice(t, a, "/veto on", "veto:")
			if got := notice(t, a, "/new", "new: result"); got != `new: result {"cancelled":true}` {
				t.Fatalf("cancelled newSession: %s", got)
			}
			if id, _ := sessionID(t, a); id != second {
				t.Fatal("a cancelled newSession replaced the session")
			}
			if got := notice(t, a, "/switch "+firstFile, "switch: result"); got != `switch: result {"cancelled":true}` {
				t.Fatalf("cancelled switch: %s", got)
			}
			notice(t, a, "/veto off", "veto:")

			// switchSession back to the first session.
			if got := notice(t, a, "/switch "+firstFile, "switch: withSession"); !strings.HasPrefix(got, "switch: withSession new=true old ctx stale new ctx live seen shutdown:resume,start:resume") {
				t.Fatalf("switch: %s", got)
			}
			if id, _ := sessionID(t, a); id != first {
				t.Fatalf("switched to %s, want %s", id, first)
			}
			if got := notice(t, a, "/switch /nonexistent/x.jsonl", "switch: failed"); !strings.Contains(got, "not found") {
				t.Fatalf("switch to a missing file: %s", got)
			}

			// fork before the user message, and "at" it (a copy).
			entry := userEntry(t, a)
			if got := notice(t, a, "/fork "+entry, "fork: withSession"); !strings.HasPrefix(got, "fork: withSession new=true old ctx stale new ctx live seen shutdown:fork,start:fork") {
				t.Fatalf("fork: %s", got)
			}
			if id, _ := sessionID(t, a); id == first {
				t.Fatal("fork did not replace the session")
			}
			notice(t, a, "/switch "+firstFile, "switch: result")
			notice(t, a, "/fork "+entry+" at", "fork: result")
			entries := a.MustSucceed(map[string]any{"type": "get_entries"})["data"].(map[string]any)["entries"].([]any)
			if id, _ := sessionID(t, a); id == first || userEntry(t, a) != entry || len(entries) < 2 {
				t.Fatalf("fork at: session %s entries %v", id, entries)
			}

			// navigateTree: the leaf moves to the user message's parent.
			if got := notice(t, a, "/nav "+entry, "nav: result"); !strings.HasPrefix(got, `nav: result {"cancelled":false} leaf `) {
				t.Fatalf("nav: %s", got)
			}
			notice(t, a, "/veto on", "veto:")
			if got := notice(t, a, "/nav "+entries[len(entries)-1].(map[string]any)["id"].(string), "nav: result"); !strings.HasPrefix(got, `nav: result {"cancelled":true}`) {
				t.Fatalf("cancelled nav: %s", got)
			}
			notice(t, a, "/veto off", "veto:")

			// reload: the extension is loaded again and gets session_start
			// with reason "reload"; the command ends quietly.
			from = a.Len()
			if got := notice(t, a, "/rl", "reloaded:"); got != "reloaded: session_start reload" {
				t.Fatalf("reload: %s", got)
			}
			for _, r := range a.Records(from) {
				if r.Type() == "extension_error" {
					t.Fatalf("reload reported an error: %v", r)
				}
			}
			if st := statuses(t, a)["sessionctl.ts"]; st["state"] != "loaded" {
				t.Fatalf("after reload: %v", st)
			}
		})
	}
}
