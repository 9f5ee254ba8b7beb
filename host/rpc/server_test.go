package rpc_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/atomic-go/atomic/host/app"
	"github.com/atomic-go/atomic/host/config"
	"github.com/atomic-go/atomic/host/rpc"
)

// newRuntime builds a runtime on the faux model in an isolated directory.
// script, when not empty, holds faux script lines.
func newRuntime(t testing.TB, script ...string) *app.Runtime {
	t.Helper()
	dir := t.TempDir()
	if len(script) > 0 {
		path := filepath.Join(dir, "script.jsonl")
		if err := os.WriteFile(path, []byte(strings.Join(script, "\n")+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		t.Setenv("ATOMIC_FAUX_SCRIPT", path)
	} else {
		t.Setenv("ATOMIC_FAUX_SCRIPT", "")
	}
	t.Setenv("ATOMIC_FAUX_RECORD", "")
	paths := config.Paths{AgentDir: filepath.Join(dir, "agent"), ProjectDir: filepath.Join(dir, ".atomic"), Cwd: dir}
	loaded, err := config.Load(paths, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	rt, err := app.New(app.Options{Cwd: dir, Settings: loaded})
	if err != nil {
		t.Fatal(err)
	}
	return rt
}

type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func (b *syncBuffer) lines() []map[string]any {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []map[string]any
	for _, l := range strings.Split(strings.TrimSuffix(b.buf.String(), "\n"), "\n") {
		if l == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			panic(fmt.Sprintf("bad line %q", l))
		}
		out = append(out, m)
	}
	return out
}

func within(t *testing.T, d time.Duration, what string, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { fn(); close(done) }()
	select {
	case <-done:
	case <-time.After(d):
		buf := make([]byte, 1<<20)
		n := runtime.Stack(buf, true)
		t.Fatalf("%s did not finish within %v\n%s", what, d, buf[:n])
	}
}

func TestShutdownWithAClientThatStoppedReading(t *testing.T) {
	rt := newRuntime(t, `{"text":"`+strings.Repeat("z", 20000)+`","chunks":20000}`)
	pr, pw := io.Pipe() // never read
	defer pr.Close()
	srv := rpc.NewServer(rt, pw, nil)
	srv.StallTimeout = 200 * time.Millisecond
	srv.HandleLine([]byte(`{"type":"prompt","message":"flood"}`))
	time.Sleep(100 * time.Millisecond) // let the agent fill the output queue
	// Quick commands must not block the reading goroutine on the full
	// output: they wait on the ordinary lane instead.
	within(t, 5*time.Second, "HandleLine", func() {
		for i := 0; i < 100; i++ {
			srv.HandleLine([]byte(`{"type":"get_state"}`))
		}
	})
	within(t, 5*time.Second, "Shutdown", srv.Shutdown)
}

func TestShutdownAnswersEveryAcceptedCommand(t *testing.T) {
	rt := newRuntime(t)
	var out syncBuffer
	srv := rpc.NewServer(rt, &out, nil)
	var in strings.Builder
	for i := 0; i < 3000; i++ { // more than the ordinary queue holds
		fmt.Fprintf(&in, `{"id":%d,"type":"get_state"}`+"\n", i)
	}
	within(t, 10*time.Second, "Serve", func() { _ = srv.Serve(context.Background(), strings.NewReader(in.String())) })
	seen := map[float64]int{}
	for _, r := range out.lines() {
		if r["type"] == "response" {
			seen[r["id"].(float64)]++
		}
	}
	for i := 0; i < 3000; i++ {
		if seen[float64(i)] != 1 {
			t.Fatalf("id %d answered %d times", i, seen[float64(i)])
		}
	}
}

func TestHandleLineRacingShutdown(t *testing.T) {
	for round := 0; round < 20; round++ {
		rt := newRuntime(t)
		srv := rpc.NewServer(rt, io.Discard, nil)
		var wg sync.WaitGroup
		for g := 0; g < 4; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; i < 200; i++ {
					srv.HandleLine([]byte(`{"type":"get_state"}`))
					srv.HandleLine([]byte(`{"type":"clear_queue"}`))
					srv.HandleLine([]byte(`nonsense`))
				}
			}()
		}
		time.Sleep(time.Duration(round) * 100 * time.Microsecond)
		within(t, 5*time.Second, "Shutdown", srv.Shutdown)
		wg.Wait()
		srv.Shutdown() // a second call is harmless
	}
}

func TestPromptResponsePrecedesItsEvents(t *testing.T) {
	for i := 0; i < 50; i++ {
		rt := newRuntime(t)
		var out syncBuffer
		srv := rpc.NewServer(rt, &out, nil)
		srv.HandleLine([]byte(`{"id":"p","type":"prompt","message":"hi"}`))
		within(t, 5*time.Second, "the run", func() {
			for !strings.Contains(out.String(), `"agent_end"`) {
				time.Sleep(time.Millisecond)
			}
		})
		srv.Shutdown()
		recs := out.lines()
		if len(recs) < 2 || recs[0]["type"] != "response" || recs[1]["type"] != "agent_start" {
			t.Fatalf("first records: %v", recs[:min(3, len(recs))])
		}
	}
}

func TestNoGoroutinesLeft(t *testing.T) {
	settle := func() int {
		var n int
		for i := 0; i < 100; i++ {
			runtime.GC()
			n = runtime.NumGoroutine()
			time.Sleep(10 * time.Millisecond)
			if runtime.NumGoroutine() == n {
				break
			}
		}
		return n
	}
	run := func() {
		rt := newRuntime(t, `{"toolCalls":[{"name":"bash","arguments":{"command":"echo hi; sleep 0.05"}}]}`, `{"text":"done","chunks":5}`)
		var out syncBuffer
		srv := rpc.NewServer(rt, &out, nil)
		pr, pw := io.Pipe()
		served := make(chan struct{})
		go func() { _ = srv.Serve(context.Background(), pr); close(served) }()
		fmt.Fprintln(pw, `{"type":"prompt","message":"go"}`)
		fmt.Fprintln(pw, `{"type":"steer","message":"s"}`)
		_ = rt.WaitIdle(context.Background())
		fmt.Fprintln(pw, `{"type":"prompt","message":"again"}`)
		fmt.Fprintln(pw, `{"type":"abort"}`)
		pw.Close()
		<-served
	}
	run() // warm up lazily started runtime goroutines
	before := settle()
	for i := 0; i < 3; i++ {
		run()
	}
	after := settle()
	if after > before {
		buf := make([]byte, 1<<20)
		n := runtime.Stack(buf, true)
		t.Fatalf("goroutines: %d before, %d after\n%s", before, after, buf[:n])
	}
}

// A Quick command (get_state) answered on the reading goroutine still comes
// after the ordinary commands sent before it, and before those sent after.
func TestQuickCommandsKeepTheOrdinaryOrder(t *testing.T) {
	slow := rpc.Command{Lane: rpc.Ordinary, Handler: func(ctx context.Context, s *rpc.Server, req *rpc.Request) (any, error) {
		time.Sleep(30 * time.Millisecond)
		return nil, nil
	}}
	rt := newRuntime(t)
	var out syncBuffer
	srv := rpc.NewServer(rt, &out, nil, rpc.WithCommand("test_slow", slow))
	var in strings.Builder
	for i := 0; i < 20; i++ {
		fmt.Fprintf(&in, `{"id":"s%d","type":"get_state"}`+"\n", i)
		if i%5 == 0 {
			fmt.Fprintf(&in, `{"id":"x%d","type":"test_slow"}`+"\n", i)
		}
	}
	within(t, 10*time.Second, "Serve", func() { _ = srv.Serve(context.Background(), strings.NewReader(in.String())) })
	var got []string
	for _, r := range out.lines() {
		if r["type"] == "response" {
			got = append(got, r["id"].(string))
		}
	}
	var want []string
	for i := 0; i < 20; i++ {
		want = append(want, fmt.Sprintf("s%d", i))
		if i%5 == 0 {
			want = append(want, fmt.Sprintf("x%d", i))
		}
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("responses in order\n%v\nwant\n%v", got, want)
	}
}

// A command added with WithCommand belongs to that server alone: another
// server (another test) answers it as unknown.
func TestWithCommandIsPerServer(t *testing.T) {
	ping := rpc.Command{Lane: rpc.Ordinary, Handler: func(context.Context, *rpc.Server, *rpc.Request) (any, error) {
		return map[string]any{"pong": true}, nil
	}}
	for _, tc := range []struct {
		opts []rpc.Option
		want string
	}{
		{[]rpc.Option{rpc.WithCommand("test_ping", ping)}, `"pong":true`},
		{nil, "Unknown command: test_ping"},
	} {
		var out syncBuffer
		srv := rpc.NewServer(newRuntime(t), &out, nil, tc.opts...)
		within(t, 10*time.Second, "Serve", func() {
			_ = srv.Serve(context.Background(), strings.NewReader(`{"id":"p","type":"test_ping"}`+"\n"))
		})
		if got := out.String(); !strings.Contains(got, tc.want) {
			t.Errorf("with %d options: %s", len(tc.opts), got)
		}
	}
}
