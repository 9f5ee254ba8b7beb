package jsext

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/atomic-go/atomic/host/extensions"
	"github.com/atomic-go/atomic/host/hooks"
	"github.com/atomic-go/atomic/host/hooks/hookstest"
)

func TestLoadErrorsNameTheFileAndLine(t *testing.T) {
	cases := []struct {
		name, file, src string
		want            []string
	}{
		{"syntax error", "bad.js", "export default function (pi) {\n  pi.on('x', () => {\n}\n", []string{"bad.js:4:", "Expected"}},
		{"typescript error", "bad.ts", "const x: number = ;\nexport default function (pi: any) {}\n", []string{"bad.ts:1:", "Unexpected"}},
		{"missing default export", "nodefault.ts", "export const x = 1;\n", []string{"nodefault.ts", "does not export a factory function"}},
		{"factory throws", "throws.ts", "export default function (pi: any) {\n  const a = 1;\n  throw new Error('no way');\n}\n", []string{"no way", "throws.ts:3:"}},
		{"async factory rejects", "rejects.ts", "export default async function (pi: any) {\n  await Promise.resolve();\n  throw new TypeError('later');\n}\n", []string{"TypeError: later", "rejects.ts:3:"}},
		{"unresolvable import", "imp.ts", "import { x } from \"left-pad-nowhere\";\nexport default function (pi: any) { x(); }\n", []string{`Cannot find module "left-pad-nowhere"`, "imp.ts:1:"}},
		{"missing relative import", "rel.ts", "import { x } from \"./nothere\";\nexport default function (pi: any) { x(); }\n", []string{`Cannot find module "./nothere"`, "rel.ts:1:"}},
		{"bad nested file", "outer.ts", "import { f } from \"./inner\";\nexport default function (pi: any) { f(); }\n", []string{"inner.ts:2:", "outer.ts:1:"}},
		{"unknown builtin export", "unk.ts", "import { noSuchPiAiExport } from \"@mariozechner/pi-ai\";\nexport default function (pi: any) {\n  noSuchPiAiExport();\n}\n", []string{`"noSuchPiAiExport" is not available from "@mariozechner/pi-ai"`, "unk.ts:3:"}},
		{"action during load", "early.ts", "export default function (pi: any) {\n  pi.sendMessage({customType: 'x', content: 'y'});\n}\n", []string{"pi.sendMessage() is not available while the extension is loading", "early.ts:2:"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t)
			h.write("inner.ts", "export function f() {\n  return 1 +;\n}\n")
			_, err := h.load(c.file, c.src)
			if err == nil {
				t.Fatal("loaded")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

func TestInfiniteLoopInFactoryIsStopped(t *testing.T) {
	h := newHarness(t)
	p := h.write("loop.ts", "export default function (pi: any) {\n  let i = 0;\n  while (true) { i++; }\n}\n")
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := h.rt.Load(ctx, extensions.Spec{Path: p, Kind: extensions.KindScript}, h.host)
	if err == nil {
		t.Fatal("loaded")
	}
	if time.Since(start) > 5*time.Second {
		t.Fatalf("took %v", time.Since(start))
	}
	if !strings.Contains(err.Error(), "loop.ts:3:") || !strings.Contains(err.Error(), "ran too long") {
		t.Fatalf("error = %v", err)
	}
}

func TestInfiniteLoopInHandlerIsInterruptedAndScriptKeepsServing(t *testing.T) {
	h := newHarness(t)
	s := h.mustLoad("spin.ts", `export default function (pi: any) {
  let calls = 0;
  pi.on("tool_call", (event: any) => {
    calls++;
    if (event.input.spin) { for (;;) {} }
    return { block: true, reason: "calls=" + calls };
  });
}
`)
	start := time.Now()
	_, err := handle(t, s, "tool_call", map[string]any{"toolName": "x", "input": map[string]any{"spin": true}}, 300*time.Millisecond)
	if err == nil {
		t.Fatal("no error")
	}
	if time.Since(start) > 5*time.Second {
		t.Fatalf("took %v", time.Since(start))
	}
	res, err := handle(t, s, "tool_call", map[string]any{"toolName": "x", "input": map[string]any{}}, 5*time.Second)
	if err != nil || !strings.Contains(res, "calls=2") {
		t.Fatalf("after the interrupt: %q, %v", res, err)
	}
	if !strings.Contains(h.logs.String(), "interrupted") {
		t.Errorf("log does not mention the interrupt:\n%s", h.logs)
	}
}

func TestRepeatedlyStuckScriptIsDisabled(t *testing.T) {
	h := newHarness(t)
	s := h.mustLoad("spin.js", `export default function (pi) { pi.on("input", () => { for (;;) {} }); }`)
	for i := 0; i < maxStops; i++ {
		if _, err := handle(t, s, "input", map[string]any{"text": "x"}, 100*time.Millisecond); err == nil {
			t.Fatal("no error")
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for s.disabled() == nil && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	_, err := handle(t, s, "input", map[string]any{"text": "x"}, time.Second)
	if err == nil || !strings.Contains(err.Error(), "disabled") {
		t.Fatalf("err = %v", err)
	}
}

func TestNeverSettlingHandlerTimesOut(t *testing.T) {
	h := newHarness(t)
	s := h.mustLoad("hang.ts", `export default function (pi: any) {
  pi.on("input", () => new Promise(() => {}));
  pi.on("context", () => ({ messages: [] }));
}`)
	_, err := handle(t, s, "input", map[string]any{"text": "x"}, 200*time.Millisecond)
	if err == nil {
		t.Fatal("no error")
	}
	res, err := handle(t, s, "context", map[string]any{"messages": []any{}}, 5*time.Second)
	if err != nil || res != `{"messages":[]}` {
		t.Fatalf("after: %q %v", res, err)
	}
}

func TestHandlerErrorsCarryPositions(t *testing.T) {
	h := newHarness(t)
	s := h.mustLoad("err.ts", `type T = { a: number };
export default function (pi: any) {
  pi.on("tool_call", (e: T) => {
    throw new Error("sync boom");
  });
  pi.on("tool_result", async () => {
    await null;
    null.x;
  });
}`)
	_, err := handle(t, s, "tool_call", map[string]any{"toolName": "x", "input": map[string]any{}}, 5*time.Second)
	if err == nil || err.Error() != "sync boom (err.ts:4:11)" {
		t.Fatalf("err = %v", err)
	}
	_, err = handle(t, s, "tool_result", map[string]any{"toolName": "x", "content": []any{}}, 5*time.Second)
	if err == nil || !strings.Contains(err.Error(), "TypeError") || !strings.Contains(err.Error(), "err.ts:8:") {
		t.Fatalf("err = %v", err)
	}
}

// TestCompositionFixtures runs the hook bus's composition table with
// script handlers: the script runs each handler alone and the bus
// composes (a script's own handlers and other extensions' alike).
func TestCompositionFixtures(t *testing.T) {
	hookstest.Run(t, func(t *testing.T, event string, groups [][]hookstest.Handler) []hooks.Subscriber {
		h := newHarness(t)
		var subs []hooks.Subscriber
		for i, g := range groups {
			subs = append(subs, h.mustLoad(fmt.Sprintf("ext%d.ts", i), hookstest.Script(event, g)))
		}
		return subs
	})
}

// TestAllocatingHandlerIsStoppedAndDisabled: a handler that allocates
// without bound in process is interrupted once the heap grew past the
// script's budget (long before its deadline), the call fails with an
// error naming memory, and repeated offences disable the script.
func TestAllocatingHandlerIsStoppedAndDisabled(t *testing.T) {
	h := newHarness(t)
	p := h.write("hog.ts", `export default function (pi: any) {
  pi.on("tool_call", () => {
    const keep: any[] = [];
    for (;;) keep.push(new Array(100000).fill(keep.length));
  });
}`)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	spec := extensions.Spec{Path: p, Kind: extensions.KindScript, Dir: h.dir}
	spec.Options.MemoryLimitMB = 16
	ext, err := h.rt.Load(ctx, spec, h.host)
	if err != nil {
		t.Fatal(err)
	}
	s := ext.(*Script)
	defer s.Close()
	for i := 0; i < maxStops; i++ {
		start := time.Now()
		// (A deadline would stop it as "ran too long": the message tells
		// which watch stopped it.)
		_, err := handle(t, s, "tool_call", map[string]any{"toolName": "x", "input": map[string]any{}}, 5*time.Minute)
		if err == nil || !strings.Contains(err.Error(), "too much memory") || !strings.Contains(err.Error(), "hog.ts:4:") {
			t.Fatalf("call %d: err = %v", i, err)
		}
		t.Logf("call %d stopped after %v", i, time.Since(start))
	}
	deadline := time.Now().Add(5 * time.Second)
	for s.disabled() == nil && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if err := s.disabled(); err == nil || !strings.Contains(err.Error(), "memory") {
		t.Fatalf("not disabled: %v", err)
	}
	// get_extensions reports it disabled (extensions.Disabler).
	var d extensions.Disabler = s
	if d.Disabled() == nil {
		t.Fatal("Disabled() is nil for a disabled script")
	}
}
