package tui

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"charm.land/lipgloss/v2"

	"github.com/atomic-go/atomic/host/llm"
)

// Kinds of conversation blocks.
const (
	kindUser = iota
	kindAssistant
	kindTool
	kindInfo   // a dim line: compaction, retries, command output
	kindError  // a red line
	kindCustom // a custom message with a type (msgrender.go)
)

// part is one text or thinking block of an assistant message, in the
// order the provider streamed them.
type part struct {
	thinking bool
	text     strings.Builder
}

// block is one item of the conversation with its rendering cached for
// one width: a finished block is rendered once, the streaming one again
// at most once per render tick.
type block struct {
	kind int
	text string // user, info, error

	parts     map[int]*part // assistant, by content index
	streaming bool

	// tool
	toolID, toolName string
	args             map[string]any
	argsRaw          strings.Builder // the arguments as they stream
	output           string
	done, isError    bool

	// custom: a custom message's renderer state (kindCustom); tr: a
	// tool's renderCall/renderResult state, details and resultText its
	// result as the tool gave it (kindTool)
	custom     *customRender
	tr         toolRender
	details    any
	resultText string

	lines []string
	width int
	dirty bool
}

func (b *block) invalidate() { b.dirty = true }

// conversation is the list of blocks.
type conversation struct {
	blocks   []*block
	tools    map[string]*block // by tool call id
	customs  []*block          // the custom messages with a type, in order
	toolList []*block          // the tool calls, in order
}

func newConversation() *conversation {
	return &conversation{tools: map[string]*block{}}
}

func (c *conversation) add(b *block) *block {
	b.dirty = true
	c.blocks = append(c.blocks, b)
	return b
}

func (c *conversation) info(text string) { c.add(&block{kind: kindInfo, text: text}) }
func (c *conversation) fail(text string) { c.add(&block{kind: kindError, text: text}) }

func (c *conversation) clear() {
	c.blocks, c.customs, c.toolList = nil, nil, nil
	c.tools = map[string]*block{}
}

func (c *conversation) invalidateAll() {
	for _, b := range c.blocks {
		b.dirty = true
	}
}

// tool returns the block of a tool call, created on first sight.
func (c *conversation) tool(id, name string) *block {
	if b, ok := c.tools[id]; ok {
		if name != "" {
			b.toolName = name
		}
		return b
	}
	b := c.add(&block{kind: kindTool, toolID: id, toolName: name})
	c.tools[id] = b
	c.toolList = append(c.toolList, b)
	return b
}

// lastAssistant is the assistant block being streamed, if any.
func (c *conversation) lastAssistant() *block {
	for i := len(c.blocks) - 1; i >= 0; i-- {
		if b := c.blocks[i]; b.kind == kindAssistant {
			if b.streaming {
				return b
			}
			return nil
		}
	}
	return nil
}

// summaryShown is how much of a branch or compaction summary the
// conversation shows (on one line; /tree and the session have it whole).
const summaryShown = 300

// addMessage adds a finished message (a resumed session's history).
func (c *conversation) addMessage(m llm.Message) {
	switch m.Role {
	case llm.RoleUser:
		if t := m.Text(); t != "" {
			c.add(&block{kind: kindUser, text: t})
		}
	case llm.RoleAssistant:
		b := &block{kind: kindAssistant, parts: map[int]*part{}}
		b.setFinal(m)
		c.add(b)
		for _, tc := range m.ToolCalls() {
			t := c.tool(tc.ID, tc.Name)
			t.args = tc.Arguments
		}
		if m.StopReason == llm.StopError && m.ErrorMessage != "" {
			c.fail("Error: " + m.ErrorMessage)
		}
	case llm.RoleToolResult:
		t := c.tool(m.ToolCallID, m.ToolName)
		t.finish(m.Text(), m.Details, m.IsError)
	case llm.RoleBranchSummary, llm.RoleCompactionSummary:
		what := "Summary of the branch left"
		if m.Role == llm.RoleCompactionSummary {
			what = "Summary of the compacted context"
		}
		if s := oneLine(m.Summary); s != "" {
			if r := []rune(s); len(r) > summaryShown {
				s = string(r[:summaryShown]) + "…"
			}
			c.info(what + ": " + s)
		}
	case llm.RoleCustom:
		if m.Display && m.CustomType != "" {
			c.addCustom(m)
			return
		}
		if m.Display {
			if t := m.Text(); t != "" {
				c.info(t)
			}
		}
	}
}

// setFinal replaces the streamed parts with the finished message's text
// and thinking.
func (b *block) setFinal(m llm.Message) {
	b.parts = map[int]*part{}
	for i, cb := range m.Content.Blocks {
		switch cb.Type {
		case llm.BlockText:
			p := &part{}
			p.text.WriteString(cb.Text)
			b.parts[i] = p
		case llm.BlockThinking:
			if cb.Thinking != "" {
				p := &part{thinking: true}
				p.text.WriteString(cb.Thinking)
				b.parts[i] = p
			}
		}
	}
	b.streaming = false
	b.dirty = true
}

// view is how blocks are drawn: the width and the toggles.
type view struct {
	width        int
	showThinking bool
	expandTools  bool
	md           func(text string, width int) string
}

// collapsedLines is how many output lines a collapsed tool shows.
const collapsedLines = 8

// render returns the block's lines for v, from the cache when nothing
// changed.
func (b *block) render(v view) []string {
	if !b.dirty && b.width == v.width && b.lines != nil {
		return b.lines
	}
	b.width, b.dirty = v.width, false
	w := max(v.width, 10)
	var out []string
	wrap := func(s string, st lipgloss.Style) {
		for _, l := range strings.Split(lipgloss.Wrap(s, w, ""), "\n") {
			out = append(out, st.Render(l))
		}
	}
	switch b.kind {
	case kindUser:
		out = append(out, "")
		for _, l := range strings.Split(lipgloss.Wrap(b.text, w-2, ""), "\n") {
			out = append(out, styleUserBar.Render("▌ ")+styleUser.Render(l))
		}
	case kindInfo:
		wrap(b.text, styleDim)
	case kindError:
		wrap(b.text, styleError)
	case kindCustom:
		if out = b.customLines(w); out == nil && b.text != "" {
			wrap(b.text, styleDim)
		}
	case kindAssistant:
		idx := make([]int, 0, len(b.parts))
		for i := range b.parts {
			idx = append(idx, i)
		}
		sort.Ints(idx)
		first := true
		for _, i := range idx {
			p := b.parts[i]
			s := strings.TrimSpace(p.text.String())
			if s == "" {
				continue
			}
			if first {
				out = append(out, "")
				first = false
			}
			if p.thinking {
				if !v.showThinking {
					out = append(out, styleThinking.Render("Thinking… (ctrl+t to show)"))
					continue
				}
				wrap(s, styleThinking)
				continue
			}
			md := v.md(s, w)
			out = append(out, strings.Split(strings.TrimRight(md, "\n"), "\n")...)
		}
	case kindTool:
		out = append(out, "")
		out = append(out, b.toolLines(v, w)...)
	}
	b.lines = out
	return out
}

func (b *block) toolLines(v view, w int) []string {
	mark := styleDim.Render("○")
	if b.done {
		mark = styleToolOK.Render("●")
		if b.isError {
			mark = styleError.Render("●")
		}
	}
	var out []string
	if call := b.tr.call; call != nil {
		// The extension's renderCall, after the status mark.
		for i, l := range call {
			if i == 0 {
				out = append(out, truncateWidth(mark+" "+l, w))
			} else {
				out = append(out, truncateWidth("  "+l, w))
			}
		}
	} else {
		head := mark + " " + styleToolHead.Render(b.toolName) + " " + toolSummary(b.toolName, b.args, b.argsRaw.String())
		out = strings.Split(lipgloss.Wrap(head, w, ""), "\n")
	}
	if res := b.tr.result; res != nil && b.done {
		// The extension's renderResult.
		for _, l := range res {
			out = append(out, truncateWidth("  "+l, w))
		}
		return out
	}
	text := strings.TrimRight(b.output, "\n")
	if text == "" {
		return out
	}
	lines := strings.Split(text, "\n")
	shown := lines
	hidden := 0
	if !v.expandTools && len(lines) > collapsedLines {
		if b.toolName == "read" { // the file's start
			shown = lines[:collapsedLines]
		} else { // the latest output
			shown = lines[len(lines)-collapsedLines:]
		}
		hidden = len(lines) - collapsedLines
	}
	st := styleDim
	if b.isError {
		st = styleError
	}
	for _, l := range shown {
		l = strings.ReplaceAll(l, "\t", "    ")
		l = truncateWidth(l, w-2)
		switch {
		case b.toolName == "edit" && strings.HasPrefix(l, "@@"):
			out = append(out, "  "+styleAccent.Render(l))
		case b.toolName == "edit" && strings.HasPrefix(l, "+"):
			out = append(out, "  "+styleAdded.Render(l))
		case b.toolName == "edit" && strings.HasPrefix(l, "-"):
			out = append(out, "  "+styleRemoved.Render(l))
		default:
			out = append(out, "  "+st.Render(l))
		}
	}
	if hidden > 0 {
		out = append(out, styleDim.Render(fmt.Sprintf("  … %d more lines, %d in all (ctrl+o to expand)", hidden, len(lines))))
	}
	return out
}

// finish records a tool's result: an edit shows its diff (the result's
// details.diff) rather than its message.
func (b *block) finish(text string, details any, isError bool) {
	b.output, b.done, b.isError = text, true, isError
	b.details, b.resultText = details, text
	if b.toolName == "edit" && !isError && details != nil {
		var d struct {
			Diff string `json:"diff"`
		}
		if raw, err := json.Marshal(details); err == nil && json.Unmarshal(raw, &d) == nil && d.Diff != "" {
			b.output = d.Diff
		}
	}
	b.dirty = true
}

// toolSummary is the arguments on the tool's header line.
func toolSummary(name string, args map[string]any, raw string) string {
	if args == nil {
		if raw == "" {
			return ""
		}
		return styleDim.Render(truncateWidth(raw, 200))
	}
	str := func(k string) string { s, _ := args[k].(string); return s }
	switch name {
	case "bash":
		return "$ " + str("command")
	case "read", "write", "edit", "ls":
		return str("path")
	case "grep", "find":
		return str("pattern") + " " + styleDim.Render(str("path"))
	}
	b, _ := json.Marshal(args)
	return styleDim.Render(truncateWidth(string(b), 200))
}

func truncateWidth(s string, w int) string {
	if w < 2 || lipgloss.Width(s) <= w {
		return s
	}
	r := []rune(s)
	for len(r) > 0 && lipgloss.Width(string(r)) > w-1 {
		r = r[:len(r)-1]
	}
	return string(r) + "…"
}
