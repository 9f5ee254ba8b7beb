//go:build unix

package rpc_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atomic-go/atomic/internal/e2e"
)

// bashEntries lists the bashExecution message entries of a session file.
func bashEntries(t *testing.T, path string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, l := range fileLines(t, path)[1:] {
		if m, ok := l["message"].(map[string]any); ok && m["role"] == "bashExecution" {
			out = append(out, m)
		}
	}
	return out
}

// TestBashOwnershipAcrossSessionReplacement runs a command in session A,
// replaces A with each of the session commands while it runs, and checks
// that the command keeps streaming under its id, records its message in A
// (file and, after switching back, get_messages) and leaves the
// replacement untouched.
func TestBashOwnershipAcrossSessionReplacement(t *testing.T) {
	cases := []struct {
		name string
		// setup runs in session A before the command starts and returns
		// the replacement command.
		setup func(t *testing.T, a *e2e.Agent, fileA string) map[string]any
	}{
		{"new_session", func(*testing.T, *e2e.Agent, string) map[string]any {
			return map[string]any{"type": "new_session"}
		}},
		{"switch_session", func(t *testing.T, a *e2e.Agent, fileA string) map[string]any {
			a.MustSucceed(map[string]any{"type": "new_session"})
			a.PromptAndWait("in B")
			fileB := state(a)["sessionFile"].(string)
			a.MustSucceed(map[string]any{"type": "switch_session", "sessionPath": fileA})
			return map[string]any{"type": "switch_session", "sessionPath": fileB}
		}},
		{"import_session", func(t *testing.T, a *e2e.Agent, fileA string) map[string]any {
			src := filepath.Join(t.TempDir(), "copy.jsonl")
			copyFile(t, fileA, src)
			return map[string]any{"type": "import_session", "inputPath": src}
		}},
		{"fork", func(t *testing.T, a *e2e.Agent, _ string) map[string]any {
			fm := data(a.MustSucceed(map[string]any{"type": "get_fork_messages"}))["messages"].([]any)
			return map[string]any{"type": "fork", "entryId": fm[0].(map[string]any)["entryId"]}
		}},
		{"clone", func(*testing.T, *e2e.Agent, string) map[string]any {
			return map[string]any{"type": "clone"}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := e2e.Start(t, e2e.Options{})
			a.PromptAndWait("in A") // A has a reply, so its file exists
			stA := state(a)
			fileA := stA["sessionFile"].(string)
			replace := tc.setup(t, a, fileA)
			if state(a)["sessionFile"] != fileA {
				t.Fatal("setup left session A")
			}
			before := len(data(a.MustSucceed(map[string]any{"type": "get_messages"}))["messages"].([]any))

			from := a.Len()
			a.Send(map[string]any{"id": "own", "type": "bash", "command": waitFn + `echo "start $ATOMIC_SESSION_FILE"; w go; echo finished >&2`})
			waitBashDelta(t, a, from, "own", "start")
			a.MustSucceed(replace)
			stB := state(a)
			fileB, _ := stB["sessionFile"].(string)
			if fileB == fileA || fileB == "" {
				t.Fatalf("%s did not replace the session: %v", tc.name, stB)
			}
			bBefore, _ := entries(a, "")
			gate(t, a, "go")
			d := bashData(t, waitResponse(t, a, from, "own"))
			if d["output"] != fmt.Sprintf("start %s\nfinished\n", fileA) || d["exitCode"] != 0.0 {
				t.Fatalf("data %v", d)
			}
			if streamText(updates(a.Records(from), "own"), "stderr") != "finished\n" {
				t.Fatal("output after the replacement did not stream under the request's id")
			}

			// The replacement is untouched.
			bAfter, _ := entries(a, "")
			if len(bAfter) != len(bBefore) {
				t.Fatalf("replacement session got %d new entries", len(bAfter)-len(bBefore))
			}
			for _, m := range data(a.MustSucceed(map[string]any{"type": "get_messages"}))["messages"].([]any) {
				if m.(map[string]any)["role"] == "bashExecution" {
					t.Fatal("bash message in the replacement session")
				}
			}
			if _, err := os.Stat(fileB); err == nil && len(bashEntries(t, fileB)) != 0 {
				t.Fatal("bash message in the replacement session's file")
			}

			// A has it, once: in its file, and in its context when it is
			// opened again.
			if got := bashEntries(t, fileA); len(got) != 1 || !strings.HasPrefix(got[0]["output"].(string), "start ") {
				t.Fatalf("bash entries in A's file: %v", got)
			}
			a.MustSucceed(map[string]any{"type": "switch_session", "sessionPath": fileA})
			msgs := data(a.MustSucceed(map[string]any{"type": "get_messages"}))["messages"].([]any)
			if len(msgs) != before+1 || msgs[len(msgs)-1].(map[string]any)["role"] != "bashExecution" {
				t.Fatalf("A's messages after switching back: %v", roles(msgs))
			}
		})
	}
}
