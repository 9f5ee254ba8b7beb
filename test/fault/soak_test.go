package fault

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/atomic-go/atomic/internal/e2e"
	"github.com/atomic-go/atomic/sdk/rpcclient"
)

// 1,000 prompts in one process, every other one with a read tool call.
// The conversation is restarted every 20 prompts (new_session), so what
// the agent must hold is bounded; its resident memory, threads and open
// files must then stay flat: a leak of runs, subscriptions, goroutines or
// files would show. The faux model answers at once, so this takes
// seconds.
func TestThousandPromptsFlatMemory(t *testing.T) {
	const prompts, perSession = 1000, 20
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("soak notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var script []map[string]any
	for i := 1; i <= prompts; i++ {
		if i%2 == 1 {
			script = append(script, map[string]any{"toolCalls": []map[string]any{{"name": "read", "arguments": map[string]any{"path": "notes.txt"}}}})
		}
		script = append(script, map[string]any{"text": fmt.Sprintf("reply to prompt number %d", i), "chunks": 3})
	}
	c := e2e.StartClient(t, e2e.Options{Dir: dir, Script: script})
	pid := c.PID()
	type sample struct {
		at           int
		rss, hwm     int64
		threads, fds int64
		elapsed      time.Duration
	}
	var samples []sample
	start := time.Now()
	for i := 1; i <= prompts; i++ {
		run, err := c.PromptAndWait(ctx(t), fmt.Sprintf("prompt number %d", i))
		if err != nil {
			t.Fatalf("prompt %d: %v", i, err)
		}
		if want := fmt.Sprintf("reply to prompt number %d", i); run.Text() != want {
			t.Fatalf("prompt %d: reply %q", i, run.Text())
		}
		if tools := len(run.OfType("tool_execution_end")); tools != i%2 {
			t.Fatalf("prompt %d: %d tool calls", i, tools)
		}
		if i%perSession == 0 {
			if _, err := c.NewSession(ctx(t), ""); err != nil {
				t.Fatal(err)
			}
		}
		if i%100 == 0 {
			samples = append(samples, sample{at: i, rss: vm(pid, "VmRSS"), hwm: vm(pid, "VmHWM"),
				threads: vm(pid, "Threads"), fds: int64(fdCount(pid)), elapsed: time.Since(start)})
		}
	}
	for _, s := range samples {
		t.Logf("after %4d prompts: VmRSS %5.1f MB, VmHWM %5.1f MB, %2d threads, %2d fds, %v", s.at,
			float64(s.rss)/1024, float64(s.hwm)/1024, s.threads, s.fds, s.elapsed.Round(time.Millisecond))
	}
	// Compare the end with the state after a warm-up of 200 prompts.
	warm, last := samples[1], samples[len(samples)-1]
	if grow := last.rss - warm.rss; grow > 4*1024 {
		t.Errorf("resident memory grew by %.1f MB between prompt %d and %d", float64(grow)/1024, warm.at, last.at)
	}
	if last.fds > warm.fds+2 {
		t.Errorf("open files grew from %d to %d", warm.fds, last.fds)
	}
	if last.threads > warm.threads+4 {
		t.Errorf("threads grew from %d to %d", warm.threads, last.threads)
	}
	st, err := c.GetState(ctx(t))
	if err != nil || st.IsStreaming || st.MessageCount != 0 {
		t.Fatalf("state at the end: %+v %v", st, err)
	}
}

// 100 bash commands at once: every one answers with its own output and
// exit status, and its streamed output carries its own request id.
func TestHundredConcurrentBash(t *testing.T) {
	c := e2e.StartClient(t, e2e.Options{})
	const n = 100
	type outcome struct {
		res     *rpcclient.BashResult
		err     error
		updates []rpcclient.BashUpdate
	}
	results := make([]outcome, n)
	var wg sync.WaitGroup
	start := time.Now()
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			o := &results[i]
			o.res, o.err = c.Bash(ctx(t), rpcclient.BashRequest{
				ID:       fmt.Sprintf("bash-%03d", i),
				Command:  fmt.Sprintf("echo start-%d; sleep 0.2; echo end-%d >&2; exit %d", i, i, i%7),
				OnOutput: func(u rpcclient.BashUpdate) { o.updates = append(o.updates, u) },
			})
		}(i)
	}
	wg.Wait()
	elapsed := time.Since(start)
	for i, o := range results {
		if o.err != nil {
			t.Errorf("bash %d: %v", i, o.err)
			continue
		}
		// stdout and stderr are two pipes: each keeps its own order, but
		// which of them is read first is up to the scheduler (on a loaded
		// machine the stdout reader can wake after the 0.2 s sleep), so the
		// merged output is one of the two interleavings.
		out, errOut := fmt.Sprintf("start-%d\n", i), fmt.Sprintf("end-%d\n", i)
		merged := map[string]bool{out + errOut: true, errOut + out: true}
		if !merged[o.res.Output] || o.res.ExitCode == nil || *o.res.ExitCode != i%7 || o.res.Cancelled {
			t.Errorf("bash %d: %+v (output %q)", i, o.res, o.res.Output)
		}
		var all strings.Builder
		channels := map[string]*strings.Builder{"stdout": {}, "stderr": {}}
		for _, u := range o.updates {
			if u.ID != fmt.Sprintf("bash-%03d", i) {
				t.Errorf("bash %d got an update for %s", i, u.ID)
			}
			all.WriteString(u.Delta)
			if b := channels[u.Channel]; b != nil {
				b.WriteString(u.Delta)
			} else {
				t.Errorf("bash %d: update on channel %q", i, u.Channel)
			}
		}
		if all.String() != o.res.Output || channels["stdout"].String() != out || channels["stderr"].String() != errOut {
			t.Errorf("bash %d streamed %q (stdout %q, stderr %q), result %q", i, all.String(),
				channels["stdout"].String(), channels["stderr"].String(), o.res.Output)
		}
	}
	t.Logf("%d concurrent bash commands of 0.2 s each answered in %v", n, elapsed.Round(time.Millisecond))
	// They ran side by side, not one after the other (20 s).
	if elapsed > 15*time.Second {
		t.Errorf("100 commands took %v", elapsed)
	}
	// Each one went into the session, in some order.
	msgs, err := c.GetMessages(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, m := range msgs {
		if m.Role == "bashExecution" {
			seen[m.Command] = true
		}
	}
	if len(seen) != n {
		t.Errorf("%d bash messages in the session, want %d", len(seen), n)
	}
}
