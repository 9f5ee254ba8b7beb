package jsext_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/atomic-go/atomic/internal/e2e"
)

// pi 1.6's custom summaries: session_before_compact answering
// {compaction: {summary}} and session_before_tree answering {summary:
// {summary, details}} replace the agent's own, and session_tree tells the
// extension where the leaf went (in both engines).
func TestExtensionSummariesAndSessionTree(t *testing.T) {
	for _, runtime := range []string{"goja", "node"} {
		t.Run(runtime, func(t *testing.T) {
			dir := t.TempDir()
			log := filepath.Join(dir, "events.jsonl")
			src := `import * as fs from "fs";
const log = (x: any) => fs.appendFileSync(` + strconv.Quote(log) + `, JSON.stringify(x) + "\n");
export default function (pi: any) {
  pi.on("session_before_compact", (e: any) => {
    log({type: "before_compact", first: e.preparation.firstKeptEntryId, tokens: e.preparation.tokensBefore});
    return { compaction: { summary: "summary from the extension", firstKeptEntryId: e.preparation.firstKeptEntryId, tokensBefore: e.preparation.tokensBefore } };
  });
  pi.on("session_before_tree", (e: any) => {
    const p = e.preparation;
    log({type: "before_tree", target: p.targetId, old: p.oldLeafId, common: p.commonAncestorId, n: p.entriesToSummarize.length, wants: p.userWantsSummary});
    return { summary: { summary: "branch summary from the extension", details: { by: "ext" } } };
  });
  pi.on("session_tree", (e: any) => {
    log({type: "tree", newLeaf: e.newLeafId, oldLeaf: e.oldLeafId, summary: e.summaryEntry && e.summaryEntry.summary, from: e.fromExtension});
  });
}
`
			ext := filepath.Join(dir, "summaries.ts")
			if err := os.WriteFile(ext, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			var script []map[string]any
			for i := range 5 {
				script = append(script, map[string]any{"text": fmt.Sprintf("answer %d line 1\nanswer %d line 2\nanswer %d line 3", i, i, i)})
			}
			settings := fmt.Sprintf(`{"extensionRuntime": %q}`, runtime)
			a := e2e.Start(t, e2e.Options{Args: []string{"-e", ext}, Script: script, AgentFiles: map[string]string{"settings.json": settings}})
			for i := range 5 {
				from := a.Len()
				a.PromptAndWait(fmt.Sprintf("request %d", i))
				a.WaitType(from, "agent_settled")
			}
			res := a.MustSucceed(map[string]any{"type": "compact"})["data"].(map[string]any)
			if res["compactedText"] != "summary from the extension" || res["rung"] != "extension" {
				t.Fatalf("compact: %v", res)
			}
			ents := a.MustSucceed(map[string]any{"type": "get_entries"})["data"].(map[string]any)["entries"].([]any)
			var users []string
			for _, e := range ents {
				m := e.(map[string]any)
				if msg, _ := m["message"].(map[string]any); msg["role"] == "user" {
					users = append(users, m["id"].(string))
				}
			}
			oldLeaf := ents[len(ents)-1].(map[string]any)["id"].(string)
			r := a.MustSucceed(map[string]any{"type": "navigate_tree", "targetId": users[3], "options": map[string]any{"summarize": true}})
			if d := r["data"].(map[string]any); d["cancelled"] != false {
				t.Fatalf("navigate: %v", r)
			}
			ents = a.MustSucceed(map[string]any{"type": "get_entries"})["data"].(map[string]any)["entries"].([]any)
			last := ents[len(ents)-1].(map[string]any)
			if last["type"] != "branch_summary" || last["summary"] != "branch summary from the extension" || last["fromHook"] != true {
				t.Fatalf("the branch summary entry: %v", last)
			}
			var got []map[string]any
			// session_tree is a notification: wait for the handler's line.
			for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(10 * time.Millisecond) {
				got = nil
				b, _ := os.ReadFile(log)
				for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
					var m map[string]any
					if json.Unmarshal([]byte(l), &m) == nil {
						got = append(got, m)
					}
				}
				if len(got) >= 3 || time.Now().After(deadline) {
					break
				}
			}
			if got[0]["type"] != "before_compact" || got[1]["type"] != "before_tree" || got[2]["type"] != "tree" {
				t.Fatalf("events: %v", got)
			}
			if bt := got[1]; bt["target"] != users[3] || bt["old"] != oldLeaf || bt["wants"] != true || bt["n"].(float64) < 2 || bt["common"] == nil {
				t.Errorf("session_before_tree preparation: %v", bt)
			}
			if tr := got[2]; tr["oldLeaf"] != oldLeaf || tr["newLeaf"] != last["id"] || tr["summary"] != "branch summary from the extension" || tr["from"] != true {
				t.Errorf("session_tree: %v", tr)
			}
		})
	}
}
