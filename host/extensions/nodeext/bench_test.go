package nodeext

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/atomic-go/atomic/host/extensions"
	"github.com/atomic-go/atomic/host/extensions/jsext"
	"github.com/atomic-go/atomic/host/hooks"
)

// BenchmarkToolCallHandler: one tool_call through the bus into an async
// handler of an extension in the shared Node process (a gRPC round trip
// to Node and back). Compare with jsext's BenchmarkToolCallHandler.
func BenchmarkToolCallHandler(b *testing.B) {
	h := &fakeHost{}
	rt := newRuntime(b, h)
	ext := loadExt(b, rt, h, "testdata/both.ts", extensions.Options{})
	bus := hooks.New()
	bus.Add(ext)
	ev := hooks.ToolCallEvent{ToolCallID: "call_1", ToolName: "bash", Input: map[string]any{"command": "ls -la"}}
	for range 200 {
		bus.ToolCall(context.Background(), ev)
	}
	b.ResetTimer()
	for range b.N {
		if d := bus.ToolCall(context.Background(), ev); d.Block {
			b.Fatal(d.Reason)
		}
	}
}

// BenchmarkAutoFallback: loading (and closing) testdata/fallback.ts, which
// fails in goja on a module goja lacks, under auto: the first start (the
// goja attempt, then Node), a later start (remembered: Node directly),
// the extension forced into Node, and the failed goja load alone (what
// the fallback adds to the first start).
func BenchmarkAutoFallback(b *testing.B) {
	h := &fakeHost{}
	rt := newRuntime(b, h)
	src, err := os.ReadFile("testdata/fallback.ts")
	if err != nil {
		b.Fatal(err)
	}
	p := filepath.Join(b.TempDir(), "fallback.ts")
	if err := os.WriteFile(p, src, 0o600); err != nil {
		b.Fatal(err)
	}
	goja := &jsext.Runtime{Log: slog.New(slog.DiscardHandler), CacheDir: b.TempDir()}
	spec := extensions.Spec{Path: p, Kind: extensions.KindScript, Dir: filepath.Dir(p)}
	load := func(b *testing.B, r extensions.Runtime, wantErr bool) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		ext, err := r.Load(ctx, spec, h)
		if (err != nil) != wantErr {
			b.Fatal(err)
		}
		if ext != nil {
			ext.Close()
		}
	}
	// Keep one extension loaded so that every measured load finds the
	// shared Node process started, as the second extension of a start does.
	keep := loadExt(b, rt, h, "testdata/both.ts", extensions.Options{})
	_ = keep
	for _, c := range []struct {
		name    string
		r       extensions.Runtime
		wantErr bool
		before  func()
	}{
		{"first-start", &Chooser{Goja: goja, Node: rt}, false, func() { rt.choices().forget(p) }},
		{"remembered", &Chooser{Goja: goja, Node: rt}, false, func() {}},
		{"node", &Chooser{Goja: goja, Node: rt, Default: extensions.RuntimeNode}, false, func() {}},
		{"goja-failed-load", goja, true, func() {}},
	} {
		b.Run(c.name, func(b *testing.B) {
			load(b, c.r, c.wantErr) // caches warm
			b.ResetTimer()
			for range b.N {
				b.StopTimer()
				c.before()
				b.StartTimer()
				load(b, c.r, c.wantErr)
			}
		})
	}
}
