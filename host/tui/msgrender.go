package tui

import (
	"encoding/json"

	tea "charm.land/bubbletea/v2"

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

// requestRenders asks the renderers for the custom messages not yet
// rendered at the width and Ctrl+O state in effect.
func (m *model) requestRenders() tea.Cmd {
	if len(m.conv.customs) == 0 {
		return nil
	}
	key := renderKey{width: max(m.width, 20), expanded: m.expandTools}
	var cmds []tea.Cmd
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
