package jsext

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/atomic-go/atomic/host/extensions"
	"github.com/atomic-go/atomic/host/hooks"
)

// FuzzLoadScript loads arbitrary TypeScript and delivers an event to it:
// whatever the source, loading ends (with an error or a script) within its
// deadline, and nothing panics.
func FuzzLoadScript(f *testing.F) {
	for _, seed := range []string{
		benchExtension,
		"export default function (pi) { pi.on('input', () => ({ action: 'handled' })); }",
		"export default async function (pi) { await null; throw 1; }",
		"module.exports = (pi) => { for (;;) {} }",
		"import x from './nope'; export default x;",
		"export default function (pi: any) { pi.on('tool_call', (e: any) => e.input.x.y); }",
		"const x: = ;",
		"export default 42;",
	} {
		f.Add(seed)
	}
	dir := f.TempDir()
	rt := &Runtime{Log: slog.New(slog.DiscardHandler), CacheDir: filepath.Join(dir, "cache")}
	f.Fuzz(func(t *testing.T, src string) {
		p := filepath.Join(dir, "fuzz.ts")
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		defer cancel()
		start := time.Now()
		ext, err := rt.Load(ctx, extensions.Spec{Path: p, Kind: extensions.KindScript}, benchHost{})
		if time.Since(start) > 5*time.Second {
			t.Fatalf("loading took %v", time.Since(start))
		}
		if err != nil {
			return
		}
		defer ext.Close()
		hctx, hcancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer hcancel()
		for _, ev := range ext.Events() {
			_, _ = ext.Handle(hctx, hooks.NewEvent(ev, map[string]any{"toolName": "bash", "input": map[string]any{}}))
		}
	})
}
