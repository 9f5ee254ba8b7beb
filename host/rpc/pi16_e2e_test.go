package rpc_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/atomic-go/atomic/internal/e2e"
	"github.com/atomic-go/atomic/sdk/rpcclient"
)

// The protocol additions of pi 1.6 (issue 18, items 1-3), on raw lines
// and through sdk/rpcclient.

// dispositionExtension registers the command /noop and an input handler
// that consumes messages starting with "eat".
const dispositionExtension = `
export default function (pi) {
  pi.registerCommand("noop", { description: "does nothing", handler: async () => {} });
  pi.on("input", (e) => {
    if (e.text.startsWith("eat")) return { action: "handled" };
    return { action: "continue" };
  });
}
`

func writeExtension(t *testing.T, name, src string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func dispositionOf(t *testing.T, resp e2e.Record) string {
	t.Helper()
	if resp["success"] != true {
		t.Fatalf("command failed: %v", resp)
	}
	return str(obj(resp, "data"), "disposition")
}

func TestPromptSteerFollowUpDisposition(t *testing.T) {
	ext := writeExtension(t, "disp.js", dispositionExtension)
	a := e2e.Start(t, e2e.Options{Args: []string{"-e", ext}, Script: []map[string]any{slowStep("word ", 30, 20)}})
	if got := dispositionOf(t, a.Request(map[string]any{"type": "prompt", "message": "/noop"})); got != "handled" {
		t.Fatalf("extension command disposition = %q, want handled", got)
	}
	if got := dispositionOf(t, a.Request(map[string]any{"type": "prompt", "message": "eat this"})); got != "handled" {
		t.Fatalf("input-handled prompt disposition = %q, want handled", got)
	}
	from := a.Len()
	if got := dispositionOf(t, a.Request(map[string]any{"type": "prompt", "message": "go"})); got != "started" {
		t.Fatalf("prompt disposition = %q, want started", got)
	}
	waitDelta(a, from)
	if got := dispositionOf(t, a.Request(map[string]any{"type": "prompt", "message": "later", "streamingBehavior": "followUp"})); got != "queued" {
		t.Fatalf("queued prompt disposition = %q, want queued", got)
	}
	if got := dispositionOf(t, a.Request(map[string]any{"type": "steer", "message": "turn"})); got != "queued" {
		t.Fatalf("steer disposition = %q, want queued", got)
	}
	if got := dispositionOf(t, a.Request(map[string]any{"type": "follow_up", "message": "eat that"})); got != "handled" {
		t.Fatalf("input-handled follow_up disposition = %q, want handled", got)
	}
	if got := dispositionOf(t, a.Request(map[string]any{"type": "follow_up", "message": "also"})); got != "queued" {
		t.Fatalf("follow_up disposition = %q, want queued", got)
	}
	a.MustSucceed(map[string]any{"type": "abort"})
}

func TestDispositionThroughClient(t *testing.T) {
	ext := writeExtension(t, "disp.js", dispositionExtension)
	c := e2e.StartClient(t, e2e.Options{Args: []string{"-e", ext}})
	ctx := e2e.Ctx(t, 20*time.Second)
	run, err := c.PromptAndWait(ctx, "/noop")
	if err != nil {
		t.Fatal(err)
	}
	if run.Disposition != rpcclient.DispositionHandled || len(run.Events) != 0 {
		t.Fatalf("handled prompt: disposition %q, %d events", run.Disposition, len(run.Events))
	}
	if d, err := c.Submit(ctx, "eat me"); err != nil || d != rpcclient.DispositionHandled {
		t.Fatalf("Submit = %q, %v", d, err)
	}
	run, err = c.PromptAndWait(ctx, "hello")
	if err != nil || run.Disposition != rpcclient.DispositionStarted || run.Text() == "" {
		t.Fatalf("started prompt: %+v, %v", run, err)
	}
	if d, err := c.SteerDisposition(ctx, "eat it"); err != nil || d != rpcclient.DispositionHandled {
		t.Fatalf("SteerDisposition = %q, %v", d, err)
	}
	if d, err := c.FollowUpDisposition(ctx, "idle follow-up"); err != nil || d != rpcclient.DispositionQueued {
		t.Fatalf("FollowUpDisposition = %q, %v", d, err)
	}
}

func TestAgentEndWillRetryAndSettledAborted(t *testing.T) {
	a := e2e.Start(t, e2e.Options{
		AgentFiles: map[string]string{"settings.json": `{"retry":{"baseDelayMs":10,"maxDelayMs":50}}`},
		Script: []map[string]any{
			{"error": "overloaded", "status": 529},
			{"text": "recovered"},
			slowStep("word ", 40, 25),
		},
	})
	from := a.Len()
	a.MustSucceed(map[string]any{"type": "prompt", "message": "hi"})
	a.WaitType(from, "agent_settled")
	recs := a.Records(from)
	ends := ofType(recs, "agent_end")
	if len(ends) != 2 {
		t.Fatalf("agent_end records: %v", e2e.Types(recs))
	}
	if ends[0]["willRetry"] != true || ends[1]["willRetry"] != false {
		t.Fatalf("willRetry = %v, %v; want true, false", ends[0]["willRetry"], ends[1]["willRetry"])
	}
	settled := ofType(recs, "agent_settled")
	if len(settled) != 1 || settled[0]["aborted"] != false {
		t.Fatalf("agent_settled = %v", settled)
	}

	from = a.Len()
	a.MustSucceed(map[string]any{"type": "prompt", "message": "long"})
	waitDelta(a, from)
	a.MustSucceed(map[string]any{"type": "abort"})
	st := a.WaitType(from, "agent_settled")
	if st["aborted"] != true {
		t.Fatalf("agent_settled after abort = %v", st)
	}
	if end := a.WaitType(from, "agent_end"); end["willRetry"] != false {
		t.Fatalf("agent_end after abort = %v", end["willRetry"])
	}
}

func TestToolcallStartAndDuration(t *testing.T) {
	ext := writeExtension(t, "gate.js", `
export default function (pi) {
  pi.on("tool_call", (e) => (e.input.command === "blocked" ? { block: true, reason: "no" } : undefined));
}
`)
	script := []map[string]any{
		{"toolCalls": []map[string]any{
			{"id": "c1", "name": "bash", "arguments": map[string]any{"command": "sleep 0.05; echo ok"}},
			{"id": "c2", "name": "bash", "arguments": map[string]any{"command": "blocked"}},
			{"id": "c3", "name": "nosuchtool", "arguments": map[string]any{}},
		}},
		{"text": "done"},
	}
	c := e2e.StartClient(t, e2e.Options{Args: []string{"-e", ext}, Script: script})
	ctx := e2e.Ctx(t, 20*time.Second)
	run, err := c.PromptAndWait(ctx, "run tools")
	if err != nil {
		t.Fatal(err)
	}
	var starts []rpcclient.AssistantMessageEvent
	for _, ev := range run.OfType("message_update") {
		var u rpcclient.MessageUpdate
		if err := ev.Decode(&u); err != nil {
			t.Fatal(err)
		}
		if u.AssistantMessageEvent.Type == "toolcall_start" {
			starts = append(starts, u.AssistantMessageEvent)
		}
	}
	if len(starts) != 3 || starts[0].ID != "c1" || starts[0].ToolName != "bash" || starts[2].ID != "c3" || starts[2].ToolName != "nosuchtool" {
		t.Fatalf("toolcall_start events: %+v", starts)
	}
	dur := map[string]*int64{}
	for _, ev := range run.OfType("tool_execution_end") {
		var te rpcclient.ToolExecution
		if err := ev.Decode(&te); err != nil {
			t.Fatal(err)
		}
		dur[te.ToolCallID] = te.DurationMs
	}
	if dur["c1"] == nil || *dur["c1"] < 40 {
		t.Fatalf("durationMs of the tool that ran = %v", dur["c1"])
	}
	if dur["c2"] != nil || dur["c3"] != nil {
		t.Fatalf("durationMs of tools that did not run = %v, %v", dur["c2"], dur["c3"])
	}
	var end rpcclient.AgentEnd
	if err := run.Events[len(run.Events)-1].Decode(&end); err != nil || end.WillRetry {
		t.Fatalf("agent_end willRetry: %+v, %v", end, err)
	}
}

func TestCompactCustomInstructionsAndSummary(t *testing.T) {
	script := append(longAnswers(5), map[string]any{"text": "1,4\n"}, map[string]any{"text": "1,4\n"})
	a := e2e.Start(t, e2e.Options{Script: script})
	for i := 0; i < 5; i++ {
		settle(t, a, fmt.Sprintf("request %d", i))
	}
	res := dataOf(t, a.MustSucceed(map[string]any{"type": "compact", "customInstructions": "  Focus on the answers of request 3  "}))
	if res["summary"] != res["compactedText"] || res["summary"] == "" {
		t.Fatalf("summary %q, compactedText %q", res["summary"], res["compactedText"])
	}
	if q := obj(res, "parameters")["query"]; q != "Focus on the answers of request 3" {
		t.Fatalf("parameters.query = %v", q)
	}
	reqs := a.FauxRequests()
	planner := fmt.Sprint(reqs[len(reqs)-1])
	if !strings.Contains(planner, "Relevance query (what the kept lines should serve): Focus on the answers of request 3") {
		t.Fatalf("the planner was not given the instructions: %.600s", planner)
	}
	// A wrongly typed field is an error, not ignored.
	if r := a.Request(map[string]any{"type": "compact", "customInstructions": 5}); r["success"] != false {
		t.Fatalf("customInstructions: 5 = %v", r)
	}
}

func TestCompactWithThroughClient(t *testing.T) {
	script := append(longAnswers(5), map[string]any{"text": "1,4\n"})
	c := e2e.StartClient(t, e2e.Options{Script: script})
	ctx := e2e.Ctx(t, 30*time.Second)
	for i := 0; i < 5; i++ {
		if _, err := c.PromptAndWait(ctx, fmt.Sprintf("request %d", i)); err != nil {
			t.Fatal(err)
		}
	}
	res, err := c.CompactWith(ctx, "keep the file names")
	if err != nil {
		t.Fatal(err)
	}
	if res.Summary == "" || res.Summary != res.CompactedText || res.Parameters.Query != "keep the file names" {
		t.Fatalf("result %+v", res)
	}
}

func TestStateResourceOverlaps(t *testing.T) {
	a := e2e.Start(t, e2e.Options{AgentFiles: map[string]string{
		"prompts/explain.md": "---\ndescription: my own explain\n---\nExplain $1 briefly.\n",
	}})
	a.MustSucceed(map[string]any{"type": "get_commands"}) // waits for the discovery
	st := dataOf(t, a.MustSucceed(map[string]any{"type": "get_state"}))
	ov := arr(st, "resourceOverlaps")
	if len(ov) != 1 {
		t.Fatalf("resourceOverlaps = %v", st["resourceOverlaps"])
	}
	o := ov[0].(map[string]any)
	if o["resourceType"] != "prompt" || o["name"] != "explain" || obj(o, "bundled")["source"] != "builtin" ||
		obj(o, "inherited")["path"] != filepath.Join(a.AgentDir, "prompts", "explain.md") {
		t.Fatalf("overlap %v", o)
	}

	c := e2e.StartClient(t, e2e.Options{AgentFiles: map[string]string{"skills/plain/SKILL.md": "---\nname: plain\ndescription: d\n---\nbody\n"}})
	ctx := e2e.Ctx(t, 20*time.Second)
	if _, err := c.GetCommands(ctx); err != nil {
		t.Fatal(err)
	}
	cst, err := c.GetState(ctx)
	if err != nil || cst.ResourceOverlaps == nil || len(cst.ResourceOverlaps) != 0 {
		t.Fatalf("no overlaps expected: %+v, %v", cst.ResourceOverlaps, err)
	}
}

func TestPauseAndResumeQueuedMessages(t *testing.T) {
	a := e2e.Start(t, e2e.Options{Script: []map[string]any{slowStep("word ", 20, 20), {"text": "held reply"}, {"text": "second held"}}})
	from := a.Len()
	a.MustSucceed(map[string]any{"type": "prompt", "message": "first"})
	waitDelta(a, from)
	a.MustSucceed(map[string]any{"type": "pause_queued_messages"})
	if d := dispositionOf(t, a.Request(map[string]any{"type": "follow_up", "message": "held"})); d != "queued" {
		t.Fatalf("follow_up = %q", d)
	}
	a.WaitType(from, "agent_settled")
	recs := a.Records(from)
	if n := len(ofType(recs, "agent_start")); n != 1 {
		t.Fatalf("the held follow-up was delivered: %v", e2e.Types(recs))
	}
	// Idle and paused: a prompt is held too.
	if d := dispositionOf(t, a.Request(map[string]any{"type": "prompt", "message": "held prompt"})); d != "queued" {
		t.Fatalf("prompt while paused = %q", d)
	}
	st := dataOf(t, a.MustSucceed(map[string]any{"type": "get_state"}))
	if st["queuedMessagesPaused"] != true || st["pendingMessageCount"] != float64(2) || st["isStreaming"] != false {
		t.Fatalf("state while paused %v", st)
	}
	from = a.Len()
	if d := dataOf(t, a.MustSucceed(map[string]any{"type": "resume_queued_messages"})); d["released"] != true {
		t.Fatalf("resume = %v", d)
	}
	a.WaitType(from, "agent_settled")
	var users []string
	for _, r := range ofType(a.Records(from), "message_end") {
		if m := obj(r, "message"); str(m, "role") == "user" {
			users = append(users, messageText(m))
		}
	}
	requireEqual(t, "released messages", users, []string{"held", "held prompt"})
	st = dataOf(t, a.MustSucceed(map[string]any{"type": "get_state"}))
	if st["queuedMessagesPaused"] != false || st["pendingMessageCount"] != float64(0) {
		t.Fatalf("state after resume %v", st)
	}
	if d := dataOf(t, a.MustSucceed(map[string]any{"type": "resume_queued_messages"})); d["released"] != false {
		t.Fatalf("second resume = %v", d)
	}
}

func TestPauseQueuedThroughClient(t *testing.T) {
	c := e2e.StartClient(t, e2e.Options{})
	ctx := e2e.Ctx(t, 20*time.Second)
	if err := c.PauseQueuedMessages(ctx); err != nil {
		t.Fatal(err)
	}
	sub := c.Subscribe("agent_settled")
	defer sub.Close()
	if d, err := c.Submit(ctx, "wait"); err != nil || d != rpcclient.DispositionQueued {
		t.Fatalf("Submit while paused = %q, %v", d, err)
	}
	st, err := c.GetState(ctx)
	if err != nil || !st.QueuedMessagesPaused || st.PendingMessageCount != 1 {
		t.Fatalf("state %+v, %v", st, err)
	}
	released, err := c.ResumeQueuedMessages(ctx)
	if err != nil || !released {
		t.Fatalf("resume = %v, %v", released, err)
	}
	ev, err := sub.Next(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var settled rpcclient.AgentSettled
	if err := ev.Decode(&settled); err != nil || settled.Aborted {
		t.Fatalf("agent_settled %+v, %v", settled, err)
	}
	if text, ok, _ := c.GetLastAssistantText(ctx); !ok || !strings.Contains(text, "wait") {
		t.Fatalf("reply %q", text)
	}
}

func TestGetExtensionsInLoadOrder(t *testing.T) {
	dir := t.TempDir()
	mk := func(name string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("export default function (pi) {}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	a1, b1, u1, u2 := mk("a.js"), mk("b.js"), mk("user1.js"), mk("user2.js")
	// One that fails to load (a missing -e path ends start-up instead).
	missing := filepath.Join(dir, "missing.js")
	if err := os.WriteFile(missing, []byte("export default function (pi) { throw new Error(\"no\") }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	settings := `{"extensions": [{"path": "` + u1 + `", "disabled": true}, {"path": "` + u2 + `"}]}`
	c := e2e.StartClient(t, e2e.Options{Args: []string{"-e", a1, "-e", missing, "-e", b1}, AgentFiles: map[string]string{"settings.json": settings}})
	exts, err := c.GetExtensions(e2e.Ctx(t, 20*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range exts.Extensions {
		got = append(got, filepath.Base(e.Path)+":"+e.State)
	}
	requireEqual(t, "get_extensions order", got, []string{"a.js:loaded", "missing.js:failed", "b.js:loaded", "user1.js:skipped", "user2.js:loaded"})
}

func modelNames(t *testing.T, data map[string]any) []string {
	t.Helper()
	var out []string
	for _, m := range arr(data, "models") {
		mm := m.(map[string]any)
		out = append(out, str(mm, "provider")+"/"+str(mm, "id"))
	}
	return out
}

func TestFauxModelsHiddenWhenRealOnesExist(t *testing.T) {
	files := map[string]string{"models.json": localModels("http://127.0.0.1:9")}
	a := e2e.Start(t, e2e.Options{AgentFiles: files})
	requireEqual(t, "models with a real provider", modelNames(t, dataOf(t, a.MustSucceed(map[string]any{"type": "get_available_models"}))),
		[]string{"local/local-model", "local/local-reasoner"})
	if m := obj(dataOf(t, a.MustSucceed(map[string]any{"type": "get_state"})), "model"); str(m, "provider") != "local" {
		t.Fatalf("default model %v", m)
	}
	// Cycling never lands on faux.
	for i := 0; i < 3; i++ {
		if r := a.MustSucceed(map[string]any{"type": "cycle_model"}); str(obj(dataOf(t, r), "model"), "provider") != "local" {
			t.Fatalf("cycle_model landed on %v", r["data"])
		}
	}

	// --provider faux still works, and the active faux model is listed.
	b := e2e.Start(t, e2e.Options{AgentFiles: files, Args: []string{"--provider", "faux", "--model", "faux-1"}})
	requireEqual(t, "models with faux active", modelNames(t, dataOf(t, b.MustSucceed(map[string]any{"type": "get_available_models"}))),
		[]string{"local/local-model", "local/local-reasoner", "faux/faux-1"})
	c := e2e.StartClient(t, e2e.Options{AgentFiles: files})
	if _, err := c.SetModel(e2e.Ctx(t, 10*time.Second), "faux", "faux-2", false); err != nil {
		t.Fatalf("set_model faux: %v", err)
	}

	// Without credentials the faux models are all there is.
	d := e2e.Start(t, e2e.Options{})
	requireEqual(t, "models offline", modelNames(t, dataOf(t, d.MustSucceed(map[string]any{"type": "get_available_models"}))),
		[]string{"faux/faux-1", "faux/faux-2"})
}

// A plugin whose runtime cannot find a dependency is reported with that
// reason, not as a failed handshake.
func TestPluginMissingDependencyIsTheReason(t *testing.T) {
	dir := e2e.PluginDir(t, t.TempDir(), "needs-grpc", "/bin/sh", "-c",
		`echo "node:internal/modules/cjs/loader:1228" >&2; echo "Error: Cannot find module '@grpc/grpc-js'" >&2; echo "Require stack: index.js" >&2; exit 1`)
	a := e2e.Start(t, e2e.Options{Args: []string{"-e", dir}})
	exts := dataOf(t, a.MustSucceed(map[string]any{"type": "get_extensions"}))
	e := arr(exts, "extensions")[0].(map[string]any)
	msg := str(e, "message")
	if e["state"] != "failed" || !strings.Contains(msg, "a dependency is missing: Cannot find module '@grpc/grpc-js'") || strings.Contains(msg, "handshake") {
		t.Fatalf("status %v", e)
	}
	ee := a.WaitType(0, "extension_error")
	if ee["event"] != "load" || !strings.Contains(str(ee, "error"), "Cannot find module '@grpc/grpc-js'") {
		t.Fatalf("extension_error %v", ee)
	}
	// The log line and the event are written by different goroutines:
	// wait for the line rather than expect it first.
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(a.Stderr(), "Cannot find module") {
		if time.Now().After(deadline) {
			t.Fatalf("the log does not say it: %s", a.Stderr())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// slowCommandExtension registers /ask: a dialog, then a notification
// with the answer, then a file written after a timer.
const slowCommandExtension = `
import { writeFileSync } from "node:fs";
export default function (pi) {
  pi.registerCommand("ask", {
    description: "asks",
    handler: async (args, ctx) => {
      const v = await ctx.ui.select("pick", ["a", "b"]);
      ctx.ui.notify("picked " + v, "info");
      await new Promise((r) => setTimeout(r, 100));
      if (args) writeFileSync(args, "done");
    },
  });
}
`

// As pi 1.6: the prompt of an extension command is answered once the
// command has finished (its dialog and notification come first), and
// other commands are served while it runs.
func TestExtensionCommandAnsweredWhenFinished(t *testing.T) {
	ext := writeExtension(t, "ask.js", slowCommandExtension)
	a := e2e.Start(t, e2e.Options{Args: []string{"-e", ext}})
	from := a.Len()
	a.Send(map[string]any{"id": "p1", "type": "prompt", "message": "/ask"})
	dialog := a.WaitFrom(from, 20*time.Second, func(r e2e.Record) bool { return r["type"] == "extension_ui_request" && r["method"] == "select" })
	if got := a.Responses("p1"); len(got) != 0 {
		t.Fatalf("the prompt was answered before its command finished: %v", got)
	}
	a.MustSucceed(map[string]any{"type": "get_state"}) // not held up by the command
	a.Send(map[string]any{"type": "extension_ui_response", "id": dialog["id"], "value": "b"})
	resp := a.WaitResponse(from, "p1")
	if got := dispositionOf(t, resp); got != "handled" {
		t.Fatalf("disposition = %q, want handled", got)
	}
	recs := a.Records(from)
	note := indexOf(recs, 0, func(r e2e.Record) bool { return r["method"] == "notify" && r["message"] == "picked b" })
	answer := indexOf(recs, 0, isResponseTo("p1"))
	if note < 0 || note > answer {
		t.Fatalf("the command's notification (at %d) did not precede the prompt's response (at %d)", note, answer)
	}
}

// At the end of the input a running extension command finishes (its
// dialogs are cancelled) and its prompt is answered before the agent
// exits, as pi 1.6 waits for running commands.
func TestExtensionCommandFinishesAtEndOfInput(t *testing.T) {
	ext := writeExtension(t, "ask.js", slowCommandExtension)
	marker := filepath.Join(t.TempDir(), "marker")
	a := e2e.Start(t, e2e.Options{Args: []string{"-e", ext}})
	from := a.Len()
	a.Send(map[string]any{"id": "p1", "type": "prompt", "message": "/ask " + marker})
	a.WaitFrom(from, 20*time.Second, func(r e2e.Record) bool { return r["type"] == "extension_ui_request" && r["method"] == "select" })
	a.CloseStdin()
	if code := a.Wait(20 * time.Second); code != 0 {
		t.Fatalf("exit status %d", code)
	}
	if got := a.Responses("p1"); len(got) != 1 || dispositionOf(t, got[0]) != "handled" {
		t.Fatalf("responses to the prompt: %v", got)
	}
	if b, err := os.ReadFile(marker); err != nil || string(b) != "done" {
		t.Fatalf("the command did not finish before the exit: %v %q", err, b)
	}
}
