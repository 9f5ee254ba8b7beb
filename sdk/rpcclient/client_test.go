package rpcclient_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/atomic-go/atomic/sdk/rpcclient"
)

// startFake starts the test binary as a scripted agent (see fakeAgent).
func startFake(t *testing.T, mode string, opts rpcclient.Options) *rpcclient.Client {
	t.Helper()
	opts.Executable = os.Args[0]
	opts.Env = append(opts.Env, "RPCCLIENT_FAKE_AGENT="+mode)
	c, err := rpcclient.Start(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Stop(context.Background()) })
	return c
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return c
}

func TestExitRejectsPendingCalls(t *testing.T) {
	c := startFake(t, "exit43", rpcclient.Options{})
	_, err := c.GetState(ctx(t))
	var ee *rpcclient.ExitError
	if !errors.As(err, &ee) {
		t.Fatalf("want an ExitError, got %v", err)
	}
	if ee.Code() != 43 || ee.Command != "get_state" || !strings.Contains(ee.Stderr, "boom: the agent gave up") {
		t.Fatalf("exit error: code %d command %q stderr %q", ee.Code(), ee.Command, ee.Stderr)
	}
	if !strings.Contains(err.Error(), "code=43 signal=none") {
		t.Errorf("message: %v", err)
	}
	// Later calls fail at once the same way.
	if _, err := c.GetState(ctx(t)); !errors.As(err, &ee) || ee.Code() != 43 {
		t.Fatalf("call after exit: %v", err)
	}
	st, err := c.Wait(ctx(t))
	if err != nil || st.ExitCode() != 43 {
		t.Fatalf("wait: %v %v", st, err)
	}
}

func TestImmediateExitKeepsStderr(t *testing.T) {
	c := startFake(t, "exit-now", rpcclient.Options{})
	<-c.Done()
	_, err := c.GetState(ctx(t))
	var ee *rpcclient.ExitError
	if !errors.As(err, &ee) || ee.Code() != 3 || !strings.Contains(err.Error(), "fatal: no model available") {
		t.Fatalf("%v", err)
	}
}

func TestQuickCommandsTimeOutLongLivedDoNot(t *testing.T) {
	c := startFake(t, "slow", rpcclient.Options{RequestTimeout: 150 * time.Millisecond})
	start := time.Now()
	_, err := c.GetState(ctx(t))
	var te *rpcclient.TimeoutError
	if !errors.As(err, &te) || te.Command != "get_state" {
		t.Fatalf("want a timeout, got %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("timeout took %v", d)
	}
	// prompt is answered after 400 ms, longer than the request timeout:
	// it has no deadline of its own.
	if err := c.Prompt(ctx(t), "hi"); err != nil {
		t.Fatalf("prompt: %v", err)
	}
	// The caller's context still bounds it.
	short, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := c.Prompt(short, "hi"); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("prompt with a short context: %v", err)
	}
	for _, name := range []string{"prompt", "steer", "follow_up", "abort", "bash", "compact", "new_session", "fork", "clone", "switch_session"} {
		if !rpcclient.LongLived(name) {
			t.Errorf("%s should be long-lived", name)
		}
	}
	if rpcclient.LongLived("get_state") || rpcclient.LongLived("get_commands") {
		t.Errorf("quick commands reported long-lived")
	}
}

func TestStopKillsAnAgentIgnoringSIGTERM(t *testing.T) {
	c := startFake(t, "ignore-term", rpcclient.Options{StopTimeout: 200 * time.Millisecond})
	if _, err := c.Call(ctx(t), map[string]any{"type": "ping"}); err != nil {
		t.Fatal(err) // the fake is up and has installed its signal handling
	}
	start := time.Now()
	if err := c.Stop(ctx(t)); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d < 150*time.Millisecond || d > 5*time.Second {
		t.Errorf("stop took %v", d)
	}
	st, _ := c.Wait(ctx(t))
	if ws := st.Sys().(syscall.WaitStatus); !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("exit status %v", st)
	}
}

func TestCloseInputEndsTheAgent(t *testing.T) {
	c := startFake(t, "echo", rpcclient.Options{})
	if err := c.CloseInput(); err != nil {
		t.Fatal(err)
	}
	st, err := c.Wait(ctx(t))
	if err != nil || st.ExitCode() != 0 {
		t.Fatalf("%v %v", st, err)
	}
	if err := c.SendRaw([]byte("{}")); err == nil {
		t.Errorf("write after close succeeded")
	}
}

func TestCommandsAreEncodedAndDecoded(t *testing.T) {
	var lines []string
	var mu sync.Mutex
	c := startFake(t, "echo", rpcclient.Options{OnLine: func(line []byte) {
		mu.Lock()
		lines = append(lines, string(line))
		mu.Unlock()
	}})
	resp, err := c.Call(ctx(t), map[string]any{"type": "set_model", "provider": "p", "modelId": "m"})
	if err != nil {
		t.Fatal(err)
	}
	var echoed map[string]any
	if err := resp.Decode(&echoed); err != nil {
		t.Fatal(err)
	}
	if echoed["id"] != "req_1" || resp.ID != "req_1" || resp.Command != "set_model" || echoed["provider"] != "p" {
		t.Fatalf("echo %v, response %+v", echoed, resp)
	}
	// A caller's id is used as it is.
	resp, err = c.Call(ctx(t), struct {
		ID   string `json:"id"`
		Type string `json:"type"`
	}{"mine", "get_state"})
	if err != nil || resp.ID != "mine" {
		t.Fatalf("%+v %v", resp, err)
	}
	if _, err := c.Call(ctx(t), map[string]any{"id": 5, "type": "x"}); err == nil {
		t.Errorf("a numeric id was accepted")
	}
	if _, err := c.Call(ctx(t), []int{1}); err == nil {
		t.Errorf("a non-object was accepted")
	}
	// Failure responses carry a CommandError and the response.
	resp, err = c.Call(ctx(t), map[string]any{"type": "fail"})
	var ce *rpcclient.CommandError
	if !errors.As(err, &ce) || ce.Message != "it failed" || ce.Code != "credential_synchronization" || resp == nil || resp.Success {
		t.Fatalf("%v %+v", err, resp)
	}
	// Explicit null data.
	resp, err = c.Call(ctx(t), map[string]any{"type": "null"})
	if err != nil || !resp.IsNull() || string(resp.Data) != "null" {
		t.Fatalf("%+v %v", resp, err)
	}
	// A 2 MiB record.
	resp, err = c.Call(ctx(t), map[string]any{"type": "big"})
	if err != nil {
		t.Fatal(err)
	}
	var big struct{ Blob string }
	if err := resp.Decode(&big); err != nil || len(big.Blob) != 2<<20 {
		t.Fatalf("big record: %d %v", len(big.Blob), err)
	}
	// Typed commands send what the protocol says.
	if _, err := c.SetModel(ctx(t), "local", "m1", true); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	last := lines[len(lines)-1]
	mu.Unlock()
	for _, want := range []string{`"type":"set_model"`, `"provider":"local"`, `"modelId":"m1"`, `"persist":true`} {
		if !strings.Contains(last, want) {
			t.Errorf("set_model sent %s, want %s", last, want)
		}
	}
}

func TestBashOutputIsRoutedByID(t *testing.T) {
	c := startFake(t, "echo", rpcclient.Options{})
	var got []string
	res, err := c.Bash(ctx(t), rpcclient.BashRequest{ID: "b1", Command: "x", OnOutput: func(u rpcclient.BashUpdate) {
		got = append(got, u.Channel+":"+u.Delta)
	}})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, "|") != "stdout:one\n|stderr:two\n" {
		t.Fatalf("updates %q", got)
	}
	if res.Output != "one\ntwo\n" || res.ExitCode == nil || *res.ExitCode != 0 {
		t.Fatalf("%+v", res)
	}
}

func TestUnmatchedRecordsAreEvents(t *testing.T) {
	c := startFake(t, "echo", rpcclient.Options{})
	sub := c.Subscribe()
	defer sub.Close()
	if err := c.SendRaw([]byte("not json\n")); err != nil {
		t.Fatal(err)
	}
	ev, err := sub.Next(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	if ev.Type != "response" || ev.Map()["command"] != "parse" {
		t.Fatalf("%s", ev.Raw)
	}
}

func TestUIHandlerAnswersDialogs(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	c := startFake(t, "ui", rpcclient.Options{UIHandler: func(_ context.Context, req rpcclient.UIRequest) (rpcclient.UIResponse, bool) {
		mu.Lock()
		seen = append(seen, req.Method+":"+req.Title)
		mu.Unlock()
		switch req.Method {
		case "confirm":
			return rpcclient.UIConfirm(req.Message == "rm -rf build"), true
		case "select":
			return rpcclient.UIValue(req.Options[1]), true
		}
		return rpcclient.UIResponse{}, true // notify: ignored
	}})
	echoes := c.Subscribe("echo")
	defer echoes.Close()
	requests := c.Subscribe("extension_ui_request")
	defer requests.Close()
	if _, err := c.Call(ctx(t), map[string]any{"type": "go"}); err != nil {
		t.Fatal(err)
	}
	answers := map[string]map[string]any{}
	for len(answers) < 2 {
		ev, err := echoes.Next(ctx(t))
		if err != nil {
			t.Fatal(err)
		}
		var e struct{ Got map[string]any }
		_ = ev.Decode(&e)
		answers[e.Got["id"].(string)] = e.Got
	}
	if answers["ui-1"]["confirmed"] != true || answers["ui-3"]["value"] != "b" {
		t.Fatalf("answers %v", answers)
	}
	if _, ok := answers["ui-2"]; ok {
		t.Fatalf("a notification was answered")
	}
	for i := 0; i < 3; i++ { // subscribers see every request too
		ev, err := requests.Next(ctx(t))
		if err != nil {
			t.Fatal(err)
		}
		var r rpcclient.UIRequest
		if err := ev.Decode(&r); err != nil || r.ID == "" {
			t.Fatalf("%s %v", ev.Raw, err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 3 {
		t.Fatalf("handler saw %v", seen)
	}
}

func TestSubscriptionChannelAndClose(t *testing.T) {
	c := startFake(t, "echo", rpcclient.Options{})
	sub := c.Subscribe()
	if err := c.SendRaw([]byte("x\n")); err != nil {
		t.Fatal(err)
	}
	select {
	case ev := <-sub.C():
		if ev.Type != "response" {
			t.Fatalf("%s", ev.Raw)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no event")
	}
	sub.Close()
	if _, ok := <-sub.C(); ok {
		t.Fatal("channel still open after Close")
	}
	if _, err := sub.Next(ctx(t)); err != rpcclient.ErrClosed {
		t.Fatalf("Next after Close: %v", err)
	}
	// A subscription ends when the agent exits.
	sub2 := c.Subscribe()
	_ = c.CloseInput()
	<-c.Done()
	for {
		_, err := sub2.Next(ctx(t))
		if err == rpcclient.ErrClosed {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

func TestResponseDecode(t *testing.T) {
	r := rpcclient.Response{Command: "x", Data: json.RawMessage(`{"a":1}`)}
	var v struct{ A int }
	if err := r.Decode(&v); err != nil || v.A != 1 {
		t.Fatal(v, err)
	}
	if err := (&rpcclient.Response{Command: "x", Data: json.RawMessage(`[`)}).Decode(&v); err == nil {
		t.Fatal("bad data decoded")
	}
}
