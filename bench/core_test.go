// Package bench holds in-process Go benchmarks of the core paths (the
// process-level measurements are in cmd/corebench). Run them with
//
//	go test -run '^$' -bench . -benchmem ./bench/
package bench

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/atomic-go/atomic/host/agent"
	"github.com/atomic-go/atomic/host/app"
	"github.com/atomic-go/atomic/host/config"
	"github.com/atomic-go/atomic/host/events"
	"github.com/atomic-go/atomic/host/llm"
	"github.com/atomic-go/atomic/host/llm/faux"
	"github.com/atomic-go/atomic/host/rpc"
)

// countingWriter counts bytes and records.
type countingWriter struct {
	bytes, lines atomic.Int64
	agentEnds    chan struct{}
}

func (w *countingWriter) Write(p []byte) (int, error) {
	w.bytes.Add(int64(len(p)))
	for _, b := range p {
		if b == '\n' {
			w.lines.Add(1)
		}
	}
	if w.agentEnds != nil && strings.Contains(string(p), `{"type":"agent_end"`) {
		w.agentEnds <- struct{}{}
	}
	return len(p), nil
}

func newRuntime(b *testing.B, steps int, deltas int) *app.Runtime {
	dir := b.TempDir()
	var sb strings.Builder
	step, _ := json.Marshal(map[string]any{"text": strings.Repeat("word ", deltas), "chunks": deltas})
	for i := 0; i < steps; i++ {
		sb.Write(step)
		sb.WriteByte('\n')
	}
	script := filepath.Join(dir, "script.jsonl")
	if err := os.WriteFile(script, []byte(sb.String()), 0o600); err != nil {
		b.Fatal(err)
	}
	b.Setenv("ATOMIC_FAUX_SCRIPT", script)
	b.Setenv("ATOMIC_FAUX_RECORD", "")
	loaded, err := config.Load(config.Paths{AgentDir: filepath.Join(dir, "agent"), ProjectDir: filepath.Join(dir, ".atomic"), Cwd: dir}, true, nil)
	if err != nil {
		b.Fatal(err)
	}
	rt, err := app.New(app.Options{Cwd: dir, Settings: loaded})
	if err != nil {
		b.Fatal(err)
	}
	return rt
}

// BenchmarkPrompt2000Deltas runs a prompt streaming 2,000 deltas through
// the runtime, the server and the writer, to a writer that discards.
func BenchmarkPrompt2000Deltas(b *testing.B) {
	rt := newRuntime(b, b.N+1, 2000)
	out := &countingWriter{agentEnds: make(chan struct{}, 1)}
	srv := rpc.NewServer(rt, out, nil)
	defer srv.Shutdown()
	b.ReportAllocs()
	b.ResetTimer()
	var total int64
	for i := 0; i < b.N; i++ {
		srv.HandleLine([]byte(`{"type":"new_session"}`))
		before := out.bytes.Load()
		srv.HandleLine([]byte(`{"type":"prompt","message":"go"}`))
		<-out.agentEnds
		total += out.bytes.Load() - before
	}
	b.ReportMetric(float64(total)/float64(b.N), "stdout-bytes/op")
}

// BenchmarkGetState is one get_state command, decoded, run and encoded.
func BenchmarkGetState(b *testing.B) {
	rt := newRuntime(b, 0, 0)
	out := &countingWriter{}
	srv := rpc.NewServer(rt, out, nil)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		srv.HandleLine([]byte(`{"id":"x","type":"get_state"}`))
	}
	srv.Shutdown()
}

// BenchmarkAgentLoop2000Deltas is the agent loop alone, encoding every
// event but writing nothing.
func BenchmarkAgentLoop2000Deltas(b *testing.B) {
	step := faux.Step{Text: strings.Repeat("word ", 2000), Chunks: 2000}
	var buf []byte
	var n int64
	cfg := &agent.Config{Model: faux.Models()[0], Emit: func(ev events.Event) {
		buf, _ = events.AppendEncode(buf[:0], ev)
		n += int64(len(buf))
	}}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		cfg.Provider = faux.NewWithSteps(step)
		agent.Run(context.Background(), cfg, nil, []llm.Message{llm.UserText("go")})
	}
	b.ReportMetric(float64(n)/float64(b.N), "bytes/op")
}

// BenchmarkEncodeMessageUpdate is the hot record of streaming.
func BenchmarkEncodeMessageUpdate(b *testing.B) {
	ev := events.MessageUpdate{Usage: llm.Usage{Input: 1234, Output: 56, TotalTokens: 1290},
		Event: llm.AssistantEvent{Type: llm.EvTextDelta, ContentIndex: 1, Delta: "word "}}
	var buf []byte
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		buf, _ = events.AppendEncode(buf[:0], ev)
	}
	_ = io.Discard
}
