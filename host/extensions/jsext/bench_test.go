package jsext

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atomic-go/atomic/host/extensions"
	"github.com/atomic-go/atomic/host/hooks"
)

const benchExtension = `import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";
import { Type } from "@sinclair/typebox";
import { StringEnum } from "@mariozechner/pi-ai";
const Params = Type.Object({ text: Type.String(), mode: Type.Optional(StringEnum(["a", "b"] as const)) });
export default function (pi: ExtensionAPI) {
  let calls = 0;
  pi.on("tool_call", async (event: any) => {
    calls++;
    if (event.toolName === "bash" && String(event.input.command).includes("rm -rf /")) return { block: true, reason: "no" };
    return undefined;
  });
  pi.registerTool({ name: "t", label: "T", description: "d", parameters: Params,
    async execute(_id: string, p: any) { return { content: [{ type: "text", text: p.text }] }; } });
  pi.registerCommand("c", { description: "c", handler: async () => {} });
}
`

type benchHost struct{ extensions.Host }

func (benchHost) HandlerContext() extensions.HandlerContext {
	return extensions.HandlerContext{Cwd: "/", Mode: "rpc", HasUI: true}
}

// BenchmarkLoadWarm loads a TypeScript extension whose transform is
// cached (the per-extension cost of a warm start).
func BenchmarkLoadWarm(b *testing.B) {
	dir := b.TempDir()
	p := filepath.Join(dir, "ext.ts")
	if err := os.WriteFile(p, []byte(benchExtension), 0o644); err != nil {
		b.Fatal(err)
	}
	rt := &Runtime{Log: slog.New(slog.DiscardHandler), CacheDir: filepath.Join(dir, "cache")}
	spec := extensions.Spec{Path: p, Kind: extensions.KindScript}
	for b.Loop() {
		ext, err := rt.Load(context.Background(), spec, benchHost{})
		if err != nil {
			b.Fatal(err)
		}
		ext.Close()
	}
}

// BenchmarkLoadCold loads a TypeScript extension that was never
// transformed (a different file content every time).
func BenchmarkLoadCold(b *testing.B) {
	dir := b.TempDir()
	rt := &Runtime{Log: slog.New(slog.DiscardHandler), CacheDir: filepath.Join(dir, "cache")}
	i := 0
	for b.Loop() {
		i++
		p := filepath.Join(dir, "ext.ts")
		if err := os.WriteFile(p, []byte(strings.Replace(benchExtension, "let calls = 0", "let calls = "+itoaB(i), 1)), 0o644); err != nil {
			b.Fatal(err)
		}
		ext, err := rt.Load(context.Background(), extensions.Spec{Path: p, Kind: extensions.KindScript}, benchHost{})
		if err != nil {
			b.Fatal(err)
		}
		ext.Close()
	}
}

func itoaB(i int) string {
	const digits = "0123456789"
	if i < 10 {
		return digits[i : i+1]
	}
	return itoaB(i/10) + digits[i%10:i%10+1]
}

// BenchmarkToolCallHandler is one tool_call through the hook bus into an
// async handler of a script.
func BenchmarkToolCallHandler(b *testing.B) {
	dir := b.TempDir()
	p := filepath.Join(dir, "ext.ts")
	if err := os.WriteFile(p, []byte(benchExtension), 0o644); err != nil {
		b.Fatal(err)
	}
	rt := &Runtime{Log: slog.New(slog.DiscardHandler), CacheDir: filepath.Join(dir, "cache")}
	ext, err := rt.Load(context.Background(), extensions.Spec{Path: p, Kind: extensions.KindScript}, benchHost{})
	if err != nil {
		b.Fatal(err)
	}
	defer ext.Close()
	bus := hooks.New()
	bus.Add(ext)
	ev := hooks.ToolCallEvent{ToolCallID: "c1", ToolName: "bash", Input: map[string]any{"command": "ls -la"}}
	for b.Loop() {
		if d := bus.ToolCall(context.Background(), ev); d.Block {
			b.Fatal("blocked")
		}
	}
}
