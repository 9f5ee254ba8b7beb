package tui

import (
	"encoding/json"

	tea "charm.land/bubbletea/v2"

	"github.com/atomic-go/atomic/host/app"
	"github.com/atomic-go/atomic/host/llm"
)

// A custom message (pi.sendMessage with a customType) is drawn by the
// extension that registered a renderer for its type
// (pi.registerMessageRenderer): the runtime asks it for the message's
// lines at the conversation's width, off the event loop, once per width
// and Ctrl+O state; until the lines come, and when the renderer throws or
// returns nothing, the message is drawn as usual (its text, dim).

// customRender is a custom message block's state with its renderer.
type customRender struct {
	msg   llm.Message
	asked renderKey // what was asked for last
	lines []string  // the renderer's last lines (nil: the default drawing)
}

type renderKey struct {
	width    int
	expanded bool
}

// customRenderedMsg carries a renderer's answer to the program.
type customRenderedMsg struct {
	b     *block
	key   renderKey
	lines []string
	ok    bool
}

// addCustom adds a displayed custom message with a type.
func (c *conversation) addCustom(m llm.Message) {
	b := c.add(&block{kind: kindCustom, text: m.Text(), custom: &customRender{msg: m}})
	c.customs = append(c.customs, b)
}

// customLines are the renderer's lines cut to the width, or nil.
func (b *block) customLines(w int) []string {
	if b.custom == nil || b.custom.lines == nil {
		return nil
	}
	out := []string{""}
	for _, l := range b.custom.lines {
		out = append(out, truncateWidth(l, w))
	}
	return out
}

// A tool with renderCall or renderResult (pi's tool renderers) is drawn
// the same way: the header as renderCall's lines once the arguments are
// known, the output as renderResult's once the tool finished (its
// partial output as usual), asked again per width and Ctrl+O state.

// toolRender is a tool block's state with its extension's renderers.
type toolRender struct {
	asked        toolKey
	call, result []string // nil: drawn as usual
}

type toolKey struct {
	renderKey
	asked, done bool
}

// toolRenderedMsg carries a tool's lines to the program.
type toolRenderedMsg struct {
	b   *block
	key toolKey
	r   app.ToolRender
}

// requestRenders asks the renderers for the custom messages and tool
// calls not yet rendered at the width and Ctrl+O state in effect.
func (m *model) requestRenders() tea.Cmd {
	if len(m.conv.customs) == 0 && len(m.conv.toolList) == 0 {
		return nil
	}
	key := renderKey{width: max(m.width, 20), expanded: m.expandTools}
	var cmds []tea.Cmd
	for _, b := range m.conv.toolList {
		tk := toolKey{renderKey: key, asked: true, done: b.done}
		if b.args == nil || b.tr.asked == tk {
			continue
		}
		b.tr.asked = tk
		in := app.ToolRenderInput{ToolName: b.toolName, ToolCallID: b.toolID, Args: b.args, IsError: b.isError, Expanded: key.expanded, Width: key.width}
		if b.done {
			in.Result = map[string]any{"content": []any{map[string]any{"type": "text", "text": b.resultText}}, "details": b.details}
		}
		rt, ctx, b := m.rt, m.ctx, b
		cmds = append(cmds, func() tea.Msg {
			r, _ := rt.RenderTool(ctx, in)
			return toolRenderedMsg{b: b, key: tk, r: r}
		})
	}
	for _, b := range m.conv.customs {
		cr := b.custom
		if cr.asked == key {
			continue
		}
		cr.asked = key
		rt, ctx, b := m.rt, m.ctx, b
		var msg map[string]any
		if raw, err := json.Marshal(cr.msg); err == nil {
			_ = json.Unmarshal(raw, &msg)
		}
		customType := cr.msg.CustomType
		cmds = append(cmds, func() tea.Msg {
			lines, ok := rt.RenderMessage(ctx, customType, msg, key.expanded, key.width)
			return customRenderedMsg{b: b, key: key, lines: lines, ok: ok}
		})
	}
	return tea.Batch(cmds...)
}

// rendered takes a renderer's answer (an answer for an older width or
// state still shows until the newer one comes).
func (m *model) rendered(r customRenderedMsg) {
	cr := r.b.custom
	if r.ok {
		cr.lines = r.lines
	} else if cr.asked == r.key {
		cr.lines = nil
	}
	r.b.invalidate()
}

// toolRendered takes a tool's lines: the newest answer's slots, kept
// until a newer answer comes.
func (m *model) toolRendered(r toolRenderedMsg) {
	if r.b.tr.asked != r.key {
		return // a newer answer is on its way
	}
	r.b.tr.call, r.b.tr.result = r.r.Call, r.r.Result
	r.b.invalidate()
}
