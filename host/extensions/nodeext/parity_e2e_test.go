package nodeext_test

import (
	"strings"
	"testing"
	"time"

	"github.com/atomic-go/atomic/internal/e2e"
)

// The behaviours where the goja and the Node pi API used to disagree,
// checked in every engine (goja in process, goja isolated in a child,
// Node) against pi 1.6's: testdata/parity.ts.

type engine struct {
	name, runtime string
	entry         any // the settings' extensions entry
}

func engines(t *testing.T) []engine {
	p := abs(t, "parity.ts")
	return []engine{
		{"goja", "goja", p},
		{"goja-isolated", "goja", map[string]any{"path": p, "isolation": "process"}},
		{"node", "node", p},
	}
}

func startParity(t *testing.T, e engine, script []map[string]any) *e2e.Agent {
	t.Helper()
	a := start(t, script, map[string]any{"extensionRuntime": e.runtime, "extensions": []any{e.entry}}, nil)
	if st := statuses(t, a)["parity.ts"]; st["state"] != "loaded" {
		t.Fatalf("%s: %v", e.name, st)
	}
	return a
}

// notified waits for the ctx.ui.notify whose message starts with prefix.
func notified(t *testing.T, a *e2e.Agent, from int, prefix string) string {
	t.Helper()
	r := a.WaitFrom(from, 10*time.Second, func(r e2e.Record) bool {
		m, _ := r["message"].(string)
		return r.Type() == "extension_ui_request" && r["method"] == "notify" && strings.HasPrefix(m, prefix)
	})
	return r["message"].(string)
}

func command(t *testing.T, a *e2e.Agent, line string) int {
	t.Helper()
	from := a.Len()
	a.MustSucceed(map[string]any{"type": "prompt", "message": line})
	return from
}

// eachEngine runs check in every engine, each with an agent of its own.
func eachEngine(t *testing.T, check func(t *testing.T, a *e2e.Agent)) {
	needNode(t)
	for _, e := range engines(t) {
		t.Run(e.name, func(t *testing.T) { check(t, startParity(t, e, []map[string]any{{"text": "ok"}})) })
	}
}

// Two failing agent_start handlers: two extension_errors, as pi reports
// each failed handler (Node used to send one, joined).
func TestEveryFailedNotificationHandlerIsReported(t *testing.T) {
	eachEngine(t, func(t *testing.T, a *e2e.Agent) {
		from := a.Len()
		a.PromptAndWait("hi")
		for _, want := range []string{"first handler failed", "second handler failed"} {
			r := a.Within(from, 10*time.Second, func(r e2e.Record) bool {
				msg, _ := r["error"].(string)
				return r.Type() == "extension_error" && strings.Contains(msg, want) && !strings.Contains(msg, "; ")
			})
			if r == nil {
				t.Errorf("no extension_error of its own for %q", want)
			}
		}
	})
}

// ctx.model is live, as pi's (Node's used to be the call's snapshot).
func TestContextModelIsLive(t *testing.T) {
	eachEngine(t, func(t *testing.T, a *e2e.Agent) {
		if got := notified(t, a, command(t, a, "/model"), "model "); got != "model faux-1 then faux-2" {
			t.Errorf("ctx.model: %q", got)
		}
	})
}

// ctx.compact() without onError is silent, as pi's (goja used to log the
// failure); the one with onError shows the compaction did fail.
func TestCompactWithoutOnErrorIsSilent(t *testing.T) {
	eachEngine(t, func(t *testing.T, a *e2e.Agent) {
		notified(t, a, command(t, a, "/compact"), "compact failed: ")
		// One more command: the first compaction has been answered too.
		notified(t, a, command(t, a, "/idle"), "idle ")
		if strings.Contains(a.Stderr(), "compaction failed") {
			t.Errorf("ctx.compact() without onError logged its failure:\n%s", a.Stderr())
		}
	})
}

// ctx.waitForIdle() settles once the agent is idle (one host method,
// WaitForIdle, where Node used to poll GetState).
func TestWaitForIdle(t *testing.T) {
	eachEngine(t, func(t *testing.T, a *e2e.Agent) {
		if got := notified(t, a, command(t, a, "/idle"), "idle "); got != "idle true" {
			t.Errorf("waitForIdle: %q", got)
		}
	})
}

// ctx.shutdown() ends the agent (it used to do nothing in Node and in an
// isolated goja script).
func TestContextShutdownEndsTheAgent(t *testing.T) {
	eachEngine(t, func(t *testing.T, a *e2e.Agent) {
		command(t, a, "/bye")
		if code := a.Wait(15 * time.Second); code != 0 {
			t.Errorf("exit code %d after ctx.shutdown()", code)
		}
	})
}
