package fault

import (
	"context"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/atomic-go/atomic/internal/e2e"
)

// SIGKILL while a reply streams: the session file keeps everything
// written before (the first exchange and the second prompt), loads, and
// the conversation goes on from there.
func TestSIGKILLDuringStreaming(t *testing.T) {
	c := e2e.StartClient(t, e2e.Options{Script: []map[string]any{reply("first answer"), slow(5000, 2)}})
	if _, err := c.PromptAndWait(ctx(t), "one"); err != nil {
		t.Fatal(err)
	}
	st, err := c.GetState(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	sub := c.Subscribe("message_update")
	defer sub.Close()
	if err := c.Prompt(ctx(t), "two"); err != nil {
		t.Fatal(err)
	}
	waitDelta(t, sub)
	c.Kill()
	if _, err := c.GetState(ctx(t)); !isExit(err) {
		t.Fatalf("a call after the kill: %v", err)
	}

	lines, torn, bad := fileEntries(t, st.SessionFile)
	if torn || bad > 0 {
		t.Errorf("the file has a torn last line (%v) or %d bad lines", torn, bad)
	}
	if len(lines) == 0 || lines[0]["type"] != "session" {
		t.Fatalf("no header: %v", lines)
	}
	again := e2e.StartClient(t, e2e.Options{Args: []string{"--session", st.SessionFile}, Script: []map[string]any{reply("third answer")}})
	ents, err := again.GetEntries(ctx(t), "")
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(summary(ents.Entries), ",")
	want := "model_change,thinking_level_change,message:user:one,message:assistant:first answer,message:user:two"
	if got != want {
		t.Fatalf("entries after the kill:\n got %s\nwant %s", got, want)
	}
	run, err := again.PromptAndWait(ctx(t), "three")
	if err != nil || run.Text() != "third answer" {
		t.Fatalf("prompt after reload: %v %q", err, run.Text())
	}
	if lines, torn, bad := fileEntries(t, st.SessionFile); torn || bad > 0 || len(lines) != 8 {
		t.Fatalf("file after the next exchange: %d lines, torn %v, bad %d", len(lines), torn, bad)
	}
}

// SIGKILL at random moments while the agent writes large entries as fast
// as it can. Every message the client saw end (a message is written
// before its message_end is sent) must be in the file; at most one more
// entry may be there; at most the last line may be torn; and the file
// must load and take new entries.
func TestSIGKILLDuringSessionWrites(t *testing.T) {
	rng := rand.New(rand.NewSource(time.Now().UnixNano()))
	big := strings.Repeat("0123456789abcdef", 4<<10) // 64 KiB per reply
	var script []map[string]any
	for i := 0; i < 60; i++ {
		script = append(script, map[string]any{"text": big, "chunks": 1})
	}
	// The replies fill the context quickly: keep compaction out of this.
	noCompaction := map[string]string{"settings.json": `{"compaction": {"enabled": false}}`}
	rounds := 8
	for round := 0; round < rounds; round++ {
		dir := t.TempDir()
		file := filepath.Join(dir, "killed.jsonl")
		c := e2e.StartClient(t, e2e.Options{Args: []string{"--session", file}, Script: script, AgentFiles: noCompaction})
		ends := c.Subscribe("message_end")
		// Prompts back to back until the kill, which comes at a random
		// moment after the first exchange was written.
		stop := make(chan struct{})
		first := make(chan struct{})
		finished := make(chan struct{})
		go func() {
			defer close(finished)
			defer close(first)
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				if _, err := c.PromptAndWait(context.Background(), "prompt "+strings.Repeat("x", i%7)); err != nil {
					return
				}
				if i == 0 {
					first <- struct{}{}
				}
			}
		}()
		<-first
		time.Sleep(time.Duration(rng.Intn(100)) * time.Millisecond)
		c.Kill()
		close(stop)
		<-finished
		seen := 0
		for {
			if _, err := ends.Next(ctx(t)); err != nil {
				break
			}
			seen++
		}
		ends.Close()

		if _, err := os.Stat(file); os.IsNotExist(err) {
			t.Fatalf("round %d: %d messages ended but no file was written", round, seen)
		}
		lines, torn, bad := fileEntries(t, file)
		if bad > 0 {
			t.Fatalf("round %d: %d complete lines do not decode", round, bad)
		}
		messages := 0
		for _, l := range lines {
			if l["type"] == "message" {
				messages++
			}
		}
		if messages < seen {
			t.Fatalf("round %d: the client saw %d messages end, the file holds %d (torn last line: %v)", round, seen, messages, torn)
		}
		again := e2e.StartClient(t, e2e.Options{Args: []string{"--session", file}, Script: []map[string]any{reply("after the kill")}, AgentFiles: noCompaction})
		ents, err := again.GetEntries(ctx(t), "")
		if err != nil {
			t.Fatalf("round %d: the file does not load: %v", round, err)
		}
		loaded := 0
		for _, e := range ents.Entries {
			if e.Type == "message" {
				loaded++
			}
		}
		if loaded != messages {
			t.Fatalf("round %d: %d messages in the file, %d loaded", round, messages, loaded)
		}
		run, err := again.PromptAndWait(ctx(t), "go on")
		if err != nil || run.Text() != "after the kill" {
			t.Fatalf("round %d: prompt after reload: %v %q", round, err, run.Text())
		}
		again.Kill()
		if lines, torn2, _ := fileEntries(t, file); torn2 || countMessages(lines) != messages+2 {
			t.Fatalf("round %d: after the next exchange the file has %d messages (torn %v), want %d", round, countMessages(lines), torn2, messages+2)
		}
		t.Logf("round %d: killed after %d messages (file: %d, torn line: %v)", round, seen, messages, torn)
	}
}

// A torn last line (as a power cut can leave) is skipped with a warning;
// the complete entries load and new ones follow on a fresh line.
func TestTornLastLineLoads(t *testing.T) {
	c := e2e.StartClient(t, e2e.Options{Script: []map[string]any{reply("kept answer")}})
	if _, err := c.PromptAndWait(ctx(t), "kept prompt"); err != nil {
		t.Fatal(err)
	}
	st, err := c.GetState(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	c.Kill()
	data, err := os.ReadFile(st.SessionFile)
	if err != nil {
		t.Fatal(err)
	}
	// Cut the last line (the assistant's message) in the middle.
	last := strings.LastIndexByte(strings.TrimSuffix(string(data), "\n"), '\n')
	cut := last + 1 + (len(data)-last-1)/2
	if err := os.WriteFile(st.SessionFile, data[:cut], 0o600); err != nil {
		t.Fatal(err)
	}
	again := e2e.StartClient(t, e2e.Options{Args: []string{"--session", st.SessionFile}, Script: []map[string]any{reply("new answer")}})
	ents, err := again.GetEntries(ctx(t), "")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(summary(ents.Entries), ","); got != "model_change,thinking_level_change,message:user:kept prompt" {
		t.Fatalf("entries: %s", got)
	}
	run, err := again.PromptAndWait(ctx(t), "next")
	if err != nil || run.Text() != "new answer" {
		t.Fatalf("%v %q", err, run.Text())
	}
	again.Kill()
	lines, torn, bad := fileEntries(t, st.SessionFile)
	if torn || bad != 1 {
		t.Fatalf("after appending: torn %v, %d undecodable lines (want the one torn line)", torn, bad)
	}
	// The torn bytes stay as one undecodable line; the new entries follow.
	if n := countMessages(lines); n != 3 {
		t.Fatalf("%d messages in the file after appending, want 3", n)
	}
}

func countMessages(lines []map[string]any) int {
	n := 0
	for _, l := range lines {
		if l["type"] == "message" {
			n++
		}
	}
	return n
}
