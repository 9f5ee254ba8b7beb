package tui_test

import (
	"strings"
	"testing"
)

// keysExtension binds alt+k (free), ctrl+l (the model picker's: refused)
// and ctrl+r (a key of pi's session picker: taken, with a warning);
// renders "box" messages itself and "broken" ones with a renderer that
// throws; /send sends one of each. Its tool weather draws its call and
// result, gauge's renderCall throws.
const keysExtension = `
export default function (pi) {
  pi.registerShortcut("alt+k", {
    description: "say hello",
    handler: async (ctx) => {
      ctx.ui.notify("shortcut ran in " + ctx.mode + ", idle " + ctx.isIdle());
    },
  });
  pi.registerShortcut("ctrl+l", { description: "never runs", handler: async (ctx) => ctx.ui.notify("ctrl+l ran") });
  pi.registerShortcut("ctrl+r", { description: "taken from the session picker", handler: async () => {} });
  pi.registerMessageRenderer("box", (message, options, theme) => ({
    render: (width) => [theme.fg("accent", "+--- box ---+"), "| " + message.content + " |", "width " + width + " expanded " + options.expanded],
    invalidate() {},
  }));
  pi.registerMessageRenderer("broken", () => {
    throw new Error("the renderer broke");
  });
  pi.registerMessageRenderer("empty", () => undefined);
  pi.registerTool({
    name: "weather",
    description: "the weather",
    parameters: { type: "object", properties: { city: { type: "string" } } },
    async execute() {
      return { content: [{ type: "text", text: "raw weather text" }], details: { temp: 21 } };
    },
    renderCall: (args) => ({ render: () => ["weather for " + args.city], invalidate() {} }),
    renderResult: (result, { expanded }, _theme, context) => ({
      render: () => ["sunny, " + result.details.temp + " degrees in " + context.args.city + (expanded ? " (expanded)" : "")],
      invalidate() {},
    }),
  });
  pi.registerTool({
    name: "gauge",
    description: "a gauge",
    parameters: { type: "object", properties: {} },
    async execute() {
      return { content: [{ type: "text", text: "gauge reads 7" }] };
    },
    renderCall: () => {
      throw new Error("renderCall broke");
    },
  });
  pi.registerCommand("send", {
    description: "send custom messages",
    handler: async () => {
      pi.sendMessage({ customType: "box", content: "hello box", display: true });
      pi.sendMessage({ customType: "broken", content: "broken drawn plainly", display: true });
      pi.sendMessage({ customType: "empty", content: "empty drawn plainly", display: true });
    },
  });
}
`

// An extension's shortcut runs its handler when its key is pressed, the
// conflicts with built-in keys follow pi's rule (with warnings), /hotkeys
// lists the shortcuts, custom messages are drawn by their renderer and
// tools by their renderCall/renderResult, as usual when it throws or
// returns nothing; in each engine.
func TestExtensionShortcutsAndMessageRenderers(t *testing.T) {
	for _, engine := range engines {
		t.Run(engine.name, func(t *testing.T) {
			t.Parallel()
			s := startWithExtension(t, engine.entry, "keys.js", keysExtension, []map[string]any{
				{"toolCalls": []map[string]any{{"name": "weather", "arguments": map[string]any{"city": "Paris"}}, {"name": "gauge", "arguments": map[string]any{}}}},
				{"text": "all measured"},
			})
			// (The warnings are wrapped at the screen's width.)
			s.waitFor("Extension shortcut 'ctrl+l' from keys.js conflicts with a built-in key", "(app.model.select). Skipping.",
				"Extension shortcut 'ctrl+r' from keys.js is the built-in key of", "app.session.rename. Using keys.js.")
			s.typeText("\x1bk") // alt+k
			s.waitFor("shortcut ran in tui, idle true")
			s.typeText("/hotkeys" + keyEnter)
			got := s.waitFor("Extensions:", "say hello", "taken from the session picker")
			if strings.Contains(got, "never runs") {
				t.Fatalf("/hotkeys lists the refused shortcut:\n%s", got)
			}
			s.typeText("/send" + keyEnter)
			got = s.waitFor("+--- box ---+", "| hello box |", "width 80 expanded false", "broken drawn plainly", "empty drawn plainly")
			if strings.Contains(got, "hello box\n") {
				t.Fatalf("the box message is drawn twice:\n%s", got)
			}
			s.typeText("measure" + keyEnter)
			got = s.waitFor("● weather for Paris", "  sunny, 21 degrees in Paris", "● gauge", "gauge reads 7", "all measured")
			if strings.Contains(got, "raw weather text") {
				t.Fatalf("the weather tool's own output is drawn beside its renderResult:\n%s", got)
			}
			s.typeText("\x0f") // ctrl+o: rendered again, expanded
			s.waitFor("width 80 expanded true", "sunny, 21 degrees in Paris (expanded)")
			if !strings.Contains(s.log(), "the renderer broke") || !strings.Contains(s.log(), "renderCall broke") {
				t.Errorf("the renderer's failure is not in the log:\n%s", s.log())
			}
		})
	}
}
