package rpc_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/atomic-go/atomic/internal/e2e"
	"github.com/atomic-go/atomic/internal/testreq"
)

// Session files that are damaged, odd or foreign, and a crash mid-stream.

const testHeader = `{"type":"session","version":3,"id":"11111111-2222-4333-8444-555555555555","timestamp":"2026-01-01T00:00:00.000Z","cwd":"CWD"}`

func userLine(id, parent, text string) string {
	p := "null"
	if parent != "" {
		p = `"` + parent + `"`
	}
	return `{"type":"message","id":"` + id + `","parentId":` + p + `,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"` + text + `","timestamp":1767225601000}}`
}

func asstLine(id, parent, text string) string {
	return `{"type":"message","id":"` + id + `","parentId":"` + parent + `","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"` + text + `"}],"api":"faux","provider":"faux","model":"faux-1","usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"stop","timestamp":1767225602000}}`
}

func writeSession(t *testing.T, cwd string, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "s.jsonl")
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestBadSessionFilesAtStartup(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name, content, want string
	}{
		{"garbage", "this is not a session\n{}\n", "not a session file"},
		{"wrong version", strings.Replace(testHeader, `"version":3`, `"version":9`, 1) + "\n", "version 9"},
		{"entry first", userLine("aaaaaaaa", "", "x") + "\n", "not a session header"},
		{"torn header", testHeader[:40], "cut off"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "-")+".jsonl")
			os.WriteFile(p, []byte(c.content), 0o600)
			a := e2e.Start(t, e2e.Options{Args: []string{"--session", p}})
			if code := a.Wait(10 * time.Second); code == 0 {
				t.Fatal("the agent started on a bad session file")
			}
			if !strings.Contains(a.Stderr(), c.want) {
				t.Fatalf("stderr %q lacks %q", a.Stderr(), c.want)
			}
			if b, _ := os.ReadFile(p); string(b) != c.content {
				t.Fatal("the bad file was changed")
			}
		})
	}
	t.Run("directory", func(t *testing.T) {
		a := e2e.Start(t, e2e.Options{Args: []string{"--session", dir}})
		if code := a.Wait(10 * time.Second); code == 0 || !strings.Contains(a.Stderr(), "is a directory") {
			t.Fatalf("exit %d, stderr %q", code, a.Stderr())
		}
	})
	t.Run("missing path creates a session there", func(t *testing.T) {
		p := filepath.Join(dir, "new", "fresh.jsonl")
		a := e2e.Start(t, e2e.Options{Args: []string{"--session", p}})
		if st := state(a); st["sessionFile"] != p {
			t.Fatalf("sessionFile %v", st["sessionFile"])
		}
		a.PromptAndWait("hello")
		if got := entryTypes(fileLines(t, p)); got != "session,model_change,thinking_level_change,message:user,message:assistant" {
			t.Fatalf("file %s", got)
		}
	})
	t.Run("empty file", func(t *testing.T) {
		p := filepath.Join(dir, "empty.jsonl")
		os.WriteFile(p, nil, 0o600)
		a := e2e.Start(t, e2e.Options{Args: []string{"--session", p}})
		a.PromptAndWait("hello")
		if got := entryTypes(fileLines(t, p)); got != "session,model_change,thinking_level_change,message:user,message:assistant" {
			t.Fatalf("file %s", got)
		}
	})
}

func TestDamagedSessionLoadsWithWarnings(t *testing.T) {
	cwd := t.TempDir()
	h := strings.Replace(testHeader, "CWD", cwd, 1)
	torn := userLine("cccccccc", "bbbbbbbb", "cut")
	body := h + "\n" + userLine("aaaaaaaa", "", "one") + "\n" + "%%% garbage %%%\n" + asstLine("bbbbbbbb", "aaaaaaaa", "answer one") + "\n" + torn[:len(torn)-30]
	p := writeSession(t, cwd, body)
	a := e2e.Start(t, e2e.Options{Args: []string{"--session", p}, Dir: cwd})
	st := state(a)
	if st["messageCount"].(float64) != 2 || st["sessionId"] != "11111111-2222-4333-8444-555555555555" {
		t.Fatalf("state %v", st)
	}
	a.WaitStderr("last line is incomplete", "skipped 1 malformed line(s): line 3")
	a.PromptAndWait("two")
	a.CloseStdin()
	a.Wait(10 * time.Second)
	b, _ := os.ReadFile(p)
	if !strings.HasPrefix(string(b), body+"\n") {
		t.Fatal("the earlier bytes of the file were changed")
	}
	// Reopened: the torn line is now a malformed middle line; nothing is
	// lost.
	r := e2e.Start(t, e2e.Options{Args: []string{"--session", p}, Dir: cwd})
	if c := state(r)["messageCount"].(float64); c != 4 {
		t.Fatalf("messageCount %v", c)
	}
	r.WaitStderr("skipped 2 malformed line(s): line 3, 5")
}

func TestSwitchToBadFiles(t *testing.T) {
	a := e2e.Start(t, e2e.Options{})
	a.PromptAndWait("keep me")
	before := state(a)
	dir := t.TempDir()
	garbage := filepath.Join(dir, "g.jsonl")
	os.WriteFile(garbage, []byte("garbage\n"), 0o600)
	v9 := filepath.Join(dir, "v9.jsonl")
	os.WriteFile(v9, []byte(strings.Replace(testHeader, `"version":3`, `"version":9`, 1)+"\n"), 0o600)
	for path, want := range map[string]string{garbage: "not a session file", v9: "version 9", dir: "is a directory"} {
		r := a.Request(map[string]any{"type": "switch_session", "sessionPath": path})
		if r["success"] != false || !strings.Contains(r["error"].(string), want) {
			t.Fatalf("switch to %s: %v", path, r)
		}
	}
	r := a.Request(map[string]any{"type": "import_session", "inputPath": garbage})
	if r["success"] != false || !strings.Contains(r["error"].(string), "not a session file") {
		t.Fatalf("import garbage: %v", r)
	}
	if after := state(a); after["sessionFile"] != before["sessionFile"] || after["messageCount"] != before["messageCount"] {
		t.Fatalf("state changed: %v", after)
	}
}

func TestSessionFromAnotherDirectory(t *testing.T) {
	other := t.TempDir()
	body := strings.Replace(testHeader, "CWD", other, 1) + "\n" + userLine("aaaaaaaa", "", "one") + "\n" + asstLine("bbbbbbbb", "aaaaaaaa", "ok") + "\n"
	p := writeSession(t, other, body)
	// The session's directory exists: the agent works there.
	a := e2e.Start(t, e2e.Options{Args: []string{"--session", p}})
	a.PromptAndWait("where?")
	reqs := a.FauxRequests()
	if sp := reqs[len(reqs)-1]["systemPrompt"].(string); !strings.Contains(sp, other) {
		t.Fatalf("system prompt lacks the session directory %s", other)
	}
	// The directory is gone: the agent stays where it is and says so.
	gone := filepath.Join(t.TempDir(), "deleted")
	body = strings.Replace(testHeader, "CWD", gone, 1) + "\n" + userLine("aaaaaaaa", "", "one") + "\n" + asstLine("bbbbbbbb", "aaaaaaaa", "ok") + "\n"
	q := writeSession(t, gone, body)
	b := e2e.Start(t, e2e.Options{Args: []string{"--session", q}})
	if st := state(b); st["messageCount"].(float64) != 2 {
		t.Fatalf("state %v", st)
	}
	b.WaitStderr("does not exist any more")
	b.PromptAndWait("here")
	reqs = b.FauxRequests()
	if sp := reqs[len(reqs)-1]["systemPrompt"].(string); !strings.Contains(sp, b.Dir) {
		t.Fatalf("system prompt lacks the agent's directory %s", b.Dir)
	}
}

func TestPiFixtureVersionsLoadAndContinue(t *testing.T) {
	for _, name := range []string{"pi-v1.jsonl", "pi-v2.jsonl", "pi-v3.jsonl"} {
		t.Run(name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), name)
			copyFile(t, filepath.Join("..", "session", "testdata", name), p)
			a := e2e.Start(t, e2e.Options{Args: []string{"--session", p}})
			st := state(a)
			if st["sessionFile"] != p || st["messageCount"].(float64) == 0 {
				t.Fatalf("state %v", st)
			}
			all, leaf := entries(a, "")
			a.PromptAndWait("continue")
			after, _ := entries(a, "")
			if len(after) != len(all)+2 || after[len(all)]["parentId"] != leaf {
				t.Fatalf("%d entries after the prompt (had %d); parent %v, leaf was %v", len(after), len(all), after[len(all)]["parentId"], leaf)
			}
			lines := fileLines(t, p)
			if lines[0]["version"].(float64) != 3 {
				t.Fatalf("header %v", lines[0])
			}
			if name != "pi-v3.jsonl" {
				backups, _ := filepath.Glob(p + ".v*.bak")
				if len(backups) != 1 {
					t.Fatalf("backups %v", backups)
				}
				a.WaitStderr("migrated from version")
			}
		})
	}
}

func TestCrashDuringStreamLeavesALoadableFile(t *testing.T) {
	a := e2e.Start(t, e2e.Options{Script: []map[string]any{
		{"text": "first answer"},
		{"text": strings.Repeat("slow streaming text ", 40), "chunks": 80, "delayMs": 50},
	}})
	a.PromptAndWait("first")
	path := state(a)["sessionFile"].(string)
	from := a.Len()
	a.MustSucceed(map[string]any{"type": "prompt", "message": "second"})
	a.WaitFrom(from, 5*time.Second, func(r e2e.Record) bool { return r.Type() == "message_update" })
	if err := a.Process().Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	a.Wait(10 * time.Second)

	b := e2e.Start(t, e2e.Options{Args: []string{"--session", path}, Dir: a.Dir})
	st := state(b)
	if st["messageCount"].(float64) != 3 { // user, assistant, the second user message
		t.Fatalf("state after the crash %v", st)
	}
	if strings.Contains(b.Stderr(), "skipped") {
		t.Fatalf("stderr %q", b.Stderr())
	}
	b.PromptAndWait("third")
	// The unanswered prompt and the new one both reach the model.
	reqs := b.FauxRequests()
	if n := len(reqs[len(reqs)-1]["messages"].([]any)); n != 4 {
		t.Fatalf("the model got %d messages", n)
	}
}

func TestUnansweredToolCallIsRepairedOnResume(t *testing.T) {
	cwd := t.TempDir()
	call := `{"type":"message","id":"bbbbbbbb","parentId":"aaaaaaaa","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"call_9","name":"bash","arguments":{"command":"sleep 100"}}],"api":"faux","provider":"faux","model":"faux-1","usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"toolUse","timestamp":1767225602000}}`
	body := strings.Replace(testHeader, "CWD", cwd, 1) + "\n" + userLine("aaaaaaaa", "", "run it") + "\n" + call + "\n"
	p := writeSession(t, cwd, body)
	a := e2e.Start(t, e2e.Options{Args: []string{"--session", p}, Dir: cwd})
	a.PromptAndWait("what happened?")
	reqs := a.FauxRequests()
	msgs := reqs[len(reqs)-1]["messages"].([]any)
	var roles []string
	for _, m := range msgs {
		roles = append(roles, m.(map[string]any)["role"].(string))
	}
	if got := strings.Join(roles, ","); got != "user,assistant,toolResult,user" {
		t.Fatalf("roles %s", got)
	}
	if tr := msgs[2].(map[string]any); tr["toolCallId"] != "call_9" || tr["isError"] != true {
		t.Fatalf("synthesized result %v", tr)
	}
}

const tinyPNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="

func findChromium() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "headless_shell"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

func TestExportHTMLRendersInChromium(t *testing.T) {
	a := e2e.Start(t, e2e.Options{Script: []map[string]any{
		{"thinking": "Let me look at the files first.", "toolCalls": []map[string]any{{"name": "bash", "arguments": map[string]any{"command": "echo listing-output-42"}}}},
		{"text": "Here is **the summary**:\n\n| file | lines |\n|---|---|\n| a.go | 10 |\n\n<script>alert('x')</script>\n\n![remote](http://example.invalid/x.png)"},
	}})
	r := a.Request(map[string]any{"type": "export_html"})
	if r["success"] != false || r["error"] != "Nothing to export yet - start a conversation first" {
		t.Fatalf("export of an empty session %v", r)
	}
	from := a.Len()
	a.MustSucceed(map[string]any{"type": "prompt", "message": "Summarize the _repository_", "images": []map[string]any{{"type": "image", "data": tinyPNG, "mimeType": "image/png"}}})
	a.WaitFrom(from, 15*time.Second, func(r e2e.Record) bool { return r.Type() == "agent_end" })
	out := filepath.Join(t.TempDir(), "export.html")
	d := data(a.MustSucceed(map[string]any{"type": "export_html", "outputPath": out}))
	if d["path"] != out {
		t.Fatalf("path %v", d["path"])
	}
	page, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	html := string(page)
	for _, want := range []string{"Content-Security-Policy", "<details class=\"thinking\">", "echo listing-output-42", "faux/faux-1", "&lt;script&gt;alert", "data:image/png;base64,"} {
		if !strings.Contains(html, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	for _, bad := range []string{"<script>alert", "<link ", "src=\"http", "src='http", "@import"} {
		if strings.Contains(html, bad) {
			t.Errorf("the page contains %q", bad)
		}
	}
	// The default path is in the working directory.
	d = data(a.MustSucceed(map[string]any{"type": "export_html"}))
	if p := d["path"].(string); filepath.Dir(p) != a.Dir || !strings.HasPrefix(filepath.Base(p), "atomic-session-") {
		t.Fatalf("default path %q", p)
	}

	chromium := findChromium()
	if chromium == "" {
		testreq.Missing(t, "chromium", "chromium not found (install the Debian package chromium; .ci/run does this when run as root); the page was checked as text only")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	profile := t.TempDir()
	cmd := exec.CommandContext(ctx, chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
		"--user-data-dir="+profile, "--virtual-time-budget=2000", "--dump-dom", "file://"+out)
	dom, err := cmd.Output()
	if err != nil {
		t.Fatalf("chromium: %v", err)
	}
	for _, want := range []string{
		"<strong>the summary</strong>", "<em>repository</em>", "<table>", "<td>a.go</td>",
		"echo listing-output-42", "Thinking", "Result of bash", `class="attachment"`, "remote-image",
	} {
		if !strings.Contains(string(dom), want) {
			t.Errorf("the rendered page lacks %q", want)
		}
	}
	// The inline script ran: the buttons work.
	shot := filepath.Join(t.TempDir(), "page.png")
	cmd = exec.CommandContext(ctx, chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
		"--user-data-dir="+profile, "--window-size=1000,1400", "--screenshot="+shot, "file://"+out)
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium screenshot: %v", err)
	}
	if fi, err := os.Stat(shot); err != nil || fi.Size() < 10_000 {
		t.Fatalf("screenshot missing or blank: %v", err)
	}
	if dst := os.Getenv("ATOMIC_EXPORT_SCREENSHOT"); dst != "" {
		copyFile(t, shot, dst)
	}
}

func TestDeepTreeAndLargeEntries(t *testing.T) {
	cwd := t.TempDir()
	var b strings.Builder
	b.WriteString(strings.Replace(testHeader, "CWD", cwd, 1) + "\n")
	parent := ""
	const n = 6000 // a chain this long nests deeper than encoding/json accepts
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("%08x", i+1)
		if i%2 == 0 {
			b.WriteString(userLine(id, parent, "q") + "\n")
		} else {
			b.WriteString(asstLine(id, parent, "a") + "\n")
		}
		parent = id
	}
	p := writeSession(t, cwd, b.String())
	// The tree's response nests deeper than encoding/json reads, so the
	// harness's end-of-test JSON check of every line is off here.
	a := e2e.Start(t, e2e.Options{Args: []string{"--session", p}, Dir: cwd, RawStdout: true})
	if c := state(a)["messageCount"].(float64); c != n {
		t.Fatalf("messageCount %v", c)
	}
	from := a.Len()
	a.Send(map[string]any{"id": "tree", "type": "get_tree"})
	rec := a.WaitFrom(from, 20*time.Second, func(r e2e.Record) bool {
		line, _ := r["line"].(string)
		return r.Type() == "response" && r["id"] == "tree" || strings.Contains(line, `"id":"tree"`)
	})
	line, _ := rec["line"].(string)
	if rec.Type() == "response" {
		t.Fatalf("get_tree answered a shallow record: %v", rec)
	}
	if !strings.HasPrefix(line, `{"id":"tree","type":"response","command":"get_tree","success":true,"data":{"tree":[{"entry":{"type":"message","id":"00000001"`) ||
		!strings.HasSuffix(strings.TrimSpace(line), `"leafId":"`+parent+`"}}`) {
		t.Fatalf("get_tree response starts %.200q ends %q", line, line[max(0, len(line)-100):])
	}
	if got := strings.Count(line, `"children":[`); got != n {
		t.Fatalf("%d nodes in the tree", got)
	}
	es, leaf := entries(a, fmt.Sprintf("%08x", n-2))
	if len(es) != 2 || leaf != parent {
		t.Fatalf("tail %v leaf %v", es, leaf)
	}
}
