package fault

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/atomic-go/atomic/internal/e2e"
)

// Making a session's storage unwritable mid-session. The tests run as root
// here, for whom permission bits do not stop a write, and a descriptor the
// agent already holds ignores them anyway. What does stop root is the
// immutable attribute (chattr +i, ext4/xfs/btrfs): writes through an
// already open descriptor then fail with EPERM, and no file can be created
// in an immutable directory. Where chattr is not available (another file
// system, no CAP_LINUX_IMMUTABLE) the test skips and says so.
func immutable(t *testing.T, on bool, paths ...string) {
	t.Helper()
	flag := "+i"
	if !on {
		flag = "-i"
	}
	for _, p := range paths {
		out, err := exec.Command("chattr", flag, p).CombinedOutput()
		if err != nil {
			if on {
				t.Skipf("SKIP: cannot make %s immutable (chattr %s: %v: %s); this test needs a file system with the immutable attribute and CAP_LINUX_IMMUTABLE", p, flag, err, strings.TrimSpace(string(out)))
			}
			t.Errorf("chattr %s %s: %v: %s", flag, p, err, out)
		}
	}
	if on {
		t.Cleanup(func() {
			for _, p := range paths {
				_ = exec.Command("chattr", "-i", p).Run()
			}
		})
	}
}

// The session file becomes unwritable between two prompts: the agent says
// so with a session_write_error event (the prompt itself goes on, and the
// entries are kept in memory), and once the file is writable again the
// held entries are written and session_write_recovered follows. Nothing
// is lost.
func TestSessionFileBecomesUnwritable(t *testing.T) {
	if _, err := exec.LookPath("chattr"); err != nil {
		t.Skip("SKIP: chattr is not installed")
	}
	c := e2e.StartClient(t, e2e.Options{Script: []map[string]any{reply("first"), reply("second"), reply("third")}})
	if _, err := c.PromptAndWait(ctx(t), "one"); err != nil {
		t.Fatal(err)
	}
	st, err := c.GetState(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	file := st.SessionFile
	immutable(t, true, file, filepath.Dir(file))

	sub := c.Subscribe("session_write_error", "session_write_recovered")
	defer sub.Close()
	short := e2e.Ctx(t, 5*time.Second)
	run, err := c.PromptAndWait(ctx(t), "two")
	if err != nil || run.Text() != "second" {
		t.Fatalf("prompt while unwritable: %v %q", err, run.Text())
	}
	ev, err := sub.Next(short)
	if err != nil {
		t.Fatalf("no session_write_error: %v", err)
	}
	m := ev.Map()
	if ev.Type != "session_write_error" || m["sessionFile"] != file || !strings.Contains(m["error"].(string), "operation not permitted") {
		t.Fatalf("event %s", ev.Raw)
	}
	// The agent still answers and knows the whole conversation.
	msgs, err := c.GetMessages(ctx(t))
	if err != nil || len(msgs) != 4 {
		t.Fatalf("messages while unwritable: %d %v", len(msgs), err)
	}
	// One error event per failure streak, not one per entry.
	if _, err := c.PromptAndWait(ctx(t), "three"); err != nil {
		t.Fatal(err)
	}
	immutable(t, false, file, filepath.Dir(file))
	if err := c.SetSessionName(ctx(t), "writable again"); err != nil {
		t.Fatal(err)
	}
	ev, err = sub.Next(short)
	if err != nil {
		t.Fatalf("no session_write_recovered: %v", err)
	}
	if ev.Type != "session_write_recovered" || ev.Map()["sessionFile"] != file {
		t.Fatalf("event after recovery %s", ev.Raw)
	}
	c.Kill()
	again := e2e.StartClient(t, e2e.Options{Args: []string{"--session", file}})
	ents, err := again.GetEntries(ctx(t), "")
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(summary(ents.Entries), ",")
	want := "model_change,thinking_level_change,message:user:one,message:assistant:first,message:user:two," +
		"message:assistant:second,message:user:three,message:assistant:third,session_info"
	if got != want {
		t.Fatalf("entries after recovery:\n got %s\nwant %s", got, want)
	}
}

// A new session cannot create its file in an unwritable directory: the
// first answer is still given, session_write_error says why, and the
// agent goes on working in memory.
func TestSessionDirectoryUnwritableForANewSession(t *testing.T) {
	if _, err := exec.LookPath("chattr"); err != nil {
		t.Skip("SKIP: chattr is not installed")
	}
	c := e2e.StartClient(t, e2e.Options{Script: []map[string]any{reply("first"), reply("second")}})
	if _, err := c.PromptAndWait(ctx(t), "one"); err != nil {
		t.Fatal(err)
	}
	st, err := c.GetState(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Dir(st.SessionFile)
	immutable(t, true, dir)
	if _, err := c.NewSession(ctx(t), ""); err != nil {
		t.Fatal(err)
	}
	st2, err := c.GetState(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	sub := c.Subscribe("session_write_error")
	defer sub.Close()
	run, err := c.PromptAndWait(ctx(t), "two")
	if err != nil || run.Text() != "second" {
		t.Fatalf("%v %q", err, run.Text())
	}
	ev, err := sub.Next(e2e.Ctx(t, 5*time.Second))
	if err != nil {
		t.Fatalf("no session_write_error: %v", err)
	}
	if m := ev.Map(); m["sessionFile"] != st2.SessionFile || !strings.Contains(m["error"].(string), "create session file") {
		t.Fatalf("event %s", ev.Raw)
	}
	if _, err := os.Stat(st2.SessionFile); !os.IsNotExist(err) {
		t.Fatalf("the new session file exists: %v", err)
	}
	stats, err := c.GetSessionStats(ctx(t))
	if err != nil || stats.TotalMessages != 2 {
		t.Fatalf("stats %+v %v", stats, err)
	}
}
