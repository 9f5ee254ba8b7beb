package rpc_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/atomic-go/atomic/internal/e2e"
)

func readJSONL(t *testing.T, path string) []map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for _, line := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal(line, &m); err != nil {
			t.Fatalf("bad line %q: %v", line, err)
		}
		out = append(out, m)
	}
	return out
}

func TestCompactPersistsAndReopenDoesNotReplan(t *testing.T) {
	dir := t.TempDir()
	a := e2e.Start(t, e2e.Options{Dir: dir, Script: append(longAnswers(5), map[string]any{"text": "1,4\n9,12\n"})})
	for i := 0; i < 5; i++ {
		settle(t, a, fmt.Sprintf("request %d", i))
	}
	file, _ := dataOf(t, a.MustSucceed(map[string]any{"type": "get_state"}))["sessionFile"].(string)
	before, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	res := dataOf(t, a.MustSucceed(map[string]any{"type": "compact"}))
	backup, _ := res["backupPath"].(string)
	if !strings.HasPrefix(backup, file+".") || !strings.HasSuffix(backup, ".compact.bak") {
		t.Fatalf("backupPath %q for %q", backup, file)
	}
	if got, err := os.ReadFile(backup); err != nil || !bytes.Equal(got, before) {
		t.Fatalf("the backup is not the file before compaction (%v)", err)
	}
	if fi, err := os.Stat(backup); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("backup mode: %v %v", fi.Mode(), err)
	}

	lines := readJSONL(t, file)
	var comps []map[string]any
	for _, l := range lines {
		if l["type"] == "compaction" {
			comps = append(comps, l)
		}
	}
	if len(comps) != 1 || lines[len(lines)-1]["type"] != "compaction" {
		t.Fatalf("compaction entries: %d", len(comps))
	}
	c := comps[0]
	d := c["details"].(map[string]any)
	if c["summary"] != res["compactedText"] || c["firstKeptEntryId"] != res["firstKeptEntryId"] || c["tokensBefore"] != res["tokensBefore"] ||
		d["strategy"] != "verbatim-lines" || d["promptVersion"] != float64(3) || d["rung"] != "planned" || d["backupPath"] != backup ||
		d["parameters"] == nil || d["stats"] == nil {
		t.Fatalf("entry %v\nresult %v", c, res)
	}
	// The first kept entry is the newest user message.
	for _, l := range lines {
		if l["id"] == c["firstKeptEntryId"] {
			if m, _ := l["message"].(map[string]any); m["role"] != "user" {
				t.Fatalf("first kept entry %v", l)
			}
		}
	}
	a.CloseStdin()
	if code := a.Wait(10 * time.Second); code != 0 {
		t.Fatalf("exit %d", code)
	}

	// Reopen: the context comes from the file, the planner is not asked.
	b := e2e.Start(t, e2e.Options{Dir: dir, Args: []string{"--session", file}, Script: []map[string]any{{"text": "reopened"}}})
	msgs := dataOf(t, b.MustSucceed(map[string]any{"type": "get_messages"}))["messages"].([]any)
	if len(msgs) != 1 || msgs[0].(map[string]any)["customType"] != "compaction" {
		t.Fatalf("messages after reopen: %v", msgs)
	}
	text := msgs[0].(map[string]any)["content"].([]any)[0].(map[string]any)["text"].(string)
	if !strings.Contains(text, res["compactedText"].(string)+"\n\n[User]: request 4") {
		t.Fatalf("boundary after reopen %q", text)
	}
	b.PromptAndWait("again")
	reqs := b.FauxRequests()
	if len(reqs) != 1 {
		t.Fatalf("%d provider calls after reopening, want 1 (no re-planning)", len(reqs))
	}
	first := fmt.Sprint(reqs[0]["messages"].([]any)[0])
	if !strings.Contains(first, "(filtered 4 lines)") {
		t.Fatalf("request after reopen: %s", first)
	}
}

func TestCompactWithPreserveZeroKeepsNoTail(t *testing.T) {
	a := e2e.Start(t, e2e.Options{AgentFiles: map[string]string{"settings.json": `{"compaction":{"preserve_recent":0}}`},
		Script: append(longAnswers(4), map[string]any{"text": "2,3\n"})})
	for i := 0; i < 4; i++ {
		settle(t, a, fmt.Sprintf("request %d", i))
	}
	res := dataOf(t, a.MustSucceed(map[string]any{"type": "compact"}))
	if v, ok := res["firstKeptEntryId"]; !ok || v != nil {
		t.Fatalf("firstKeptEntryId %v (present %v)", v, ok)
	}
	if p := res["parameters"].(map[string]any); p["preserve_recent"] != float64(0) {
		t.Fatalf("parameters %v", p)
	}
	text := res["compactedText"].(string)
	if !strings.HasSuffix(text, "[Assistant]: answer 3 line 1\nanswer 3 line 2\nanswer 3 line 3") {
		t.Fatalf("the whole transcript should be in the region: %q", text)
	}
	msgs := dataOf(t, a.MustSucceed(map[string]any{"type": "get_messages"}))["messages"].([]any)
	bt := msgs[0].(map[string]any)["content"].([]any)[0].(map[string]any)["text"].(string)
	if len(msgs) != 1 || !strings.HasSuffix(bt, text) {
		t.Fatalf("context: %v", msgs)
	}
}
