package fault

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/atomic-go/atomic/internal/e2e"
	"github.com/atomic-go/atomic/sdk/rpcclient"
)

// A client that stops reading and closes its end of stdout while the
// agent streams: the agent's next write fails, and it must exit promptly
// (status 1, as for any stdout write failure) instead of hanging.
func TestStdoutClosedMidStream(t *testing.T) {
	cmd, _ := e2e.Command(t, e2e.Options{Script: []map[string]any{slow(5000, 2)}})
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	exited := make(chan struct{})
	go func() {
		err := cmd.Wait()
		close(exited)
		done <- err
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
	})
	if _, err := io.WriteString(stdin, `{"id":"p","type":"prompt","message":"stream"}`+"\n"); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(stdout)
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("stdout ended before the stream began: %v\n%s", err, stderr.String())
		}
		if strings.Contains(line, `"text_delta"`) {
			break
		}
	}
	stdout.Close() // the client goes away mid-stream; stdin stays open
	start := time.Now()
	select {
	case err := <-done:
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 1 {
			t.Fatalf("exit: %v, want status 1\n%s", err, stderr.String())
		}
		t.Logf("exited %v after stdout was closed", time.Since(start).Round(time.Millisecond))
	case <-time.After(10 * time.Second):
		t.Fatalf("the agent kept running 10 s after its stdout was closed\n%s", stderr.String())
	}
	if !strings.Contains(stderr.String(), "cannot write to stdout") {
		t.Errorf("stderr does not say why it stopped:\n%s", stderr.String())
	}
}

// A client that closes stdin mid-stream: the run is aborted, its end is
// reported, the agent exits 0, and the session file reloads with the
// aborted reply in it.
func TestStdinClosedMidStream(t *testing.T) {
	c := e2e.StartClient(t, e2e.Options{Script: []map[string]any{reply("first answer"), slow(5000, 2)}})
	if _, err := c.PromptAndWait(ctx(t), "one"); err != nil {
		t.Fatal(err)
	}
	st, err := c.GetState(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	sub := c.Subscribe()
	defer sub.Close()
	if err := c.Prompt(ctx(t), "two"); err != nil {
		t.Fatal(err)
	}
	waitDelta(t, sub)
	if err := c.CloseInput(); err != nil {
		t.Fatal(err)
	}
	if code := waitExit(t, c.Client, 10*time.Second).ExitCode(); code != 0 {
		t.Fatalf("exit status %d after stdin EOF", code)
	}
	var ends []rpcclient.MessageEvent
	sawAgentEnd := false
	for {
		ev, err := sub.Next(ctx(t))
		if errors.Is(err, rpcclient.ErrClosed) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		switch ev.Type {
		case "message_end":
			var me rpcclient.MessageEvent
			_ = ev.Decode(&me)
			ends = append(ends, me)
		case "agent_end":
			sawAgentEnd = true
		}
	}
	if !sawAgentEnd || len(ends) == 0 || ends[len(ends)-1].Message.StopReason != "aborted" {
		t.Fatalf("the aborted run was not reported: agent_end %v, message ends %+v", sawAgentEnd, ends)
	}

	// The file reloads: both prompts and the aborted reply are there.
	again := e2e.StartClient(t, e2e.Options{Args: []string{"--session", st.SessionFile}})
	msgs, err := again.GetMessages(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range msgs {
		got = append(got, m.Role+":"+m.StopReason)
	}
	if strings.Join(got, ",") != "user:,assistant:stop,user:,assistant:aborted" {
		t.Fatalf("reloaded messages: %v", got)
	}
}
