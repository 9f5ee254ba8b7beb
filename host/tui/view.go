package tui

import (
	"fmt"
	"path/filepath"
	"strings"

	tea "charm.land/bubbletea/v2"
)

// The screen.

func (m *model) View() tea.View {
	w := max(m.width, 20)
	var bottom []string
	add := func(s string) {
		if s != "" {
			bottom = append(bottom, strings.Split(s, "\n")...)
		}
	}
	for _, s := range m.steering {
		add(styleDim.Render(truncateWidth("Steer: "+oneLine(s), w)))
	}
	for _, s := range m.followUp {
		add(styleDim.Render(truncateWidth("Follow-up: "+oneLine(s), w)))
	}
	for _, wd := range m.widgets {
		if !wd.below {
			for _, l := range wd.lines {
				add(truncateWidth(l, w))
			}
		}
	}
	if len(m.dialogs) > 0 {
		add(m.dialogs[0].view(w, max(m.height/3, 3)))
	} else {
		comp := m.completions()
		if m.compSel >= len(comp) {
			m.compSel = 0
		}
		start := 0
		if m.compSel >= 8 {
			start = m.compSel - 7
		}
		for i := start; i < len(comp) && i < start+8; i++ {
			c := comp[i]
			line := c.label
			if c.desc != "" {
				line = fmt.Sprintf("%-24s %s", c.label, styleDim.Render(c.desc))
			}
			line = truncateWidth(line, w-2)
			if i == m.compSel {
				add(styleAccent.Render("→ ") + line)
			} else {
				add("  " + line)
			}
		}
		add(styleRule.Render(strings.Repeat("─", w)))
		m.editor.SetWidth(w)
		add(m.editor.View())
		add(styleRule.Render(strings.Repeat("─", w)))
	}
	for _, wd := range m.widgets {
		if wd.below {
			for _, l := range wd.lines {
				add(truncateWidth(l, w))
			}
		}
	}
	switch {
	case m.notice != "":
		st := styleAccent
		if m.noticeErr {
			st = styleError
		}
		add(st.Render(truncateWidth(m.notice, w)))
	case m.streaming || m.compacting:
		msg := "Working…"
		if m.workingMsg != "" {
			msg = m.workingMsg
		}
		add(styleAccent.Render(truncateWidth(msg, w)) + styleDim.Render(" (esc to interrupt)"))
	}
	if m.customFooter != nil {
		for _, l := range m.customFooter {
			add(truncateWidth(l, w))
		}
	} else {
		add(m.footer(w))
	}

	convH := max(m.height-len(bottom), 0)
	lines := m.convLines(w, convH+m.scroll)
	if m.scroll > len(lines)-convH {
		m.scroll = max(len(lines)-convH, 0)
	}
	end := len(lines) - m.scroll
	startL := max(end-convH, 0)
	screen := make([]string, 0, m.height)
	for i := 0; i < convH-(end-startL); i++ {
		screen = append(screen, "")
	}
	screen = append(screen, lines[startL:end]...)
	screen = append(screen, bottom...)
	if len(screen) > m.height && m.height > 0 {
		screen = screen[len(screen)-m.height:]
	}
	v := tea.NewView(strings.Join(screen, "\n"))
	v.AltScreen = true
	v.WindowTitle = m.title
	if v.WindowTitle == "" {
		v.WindowTitle = "atomic: " + filepath.Base(m.cwd)
	}
	return v
}

// convLines renders blocks from the newest back until at least n lines
// are there (finished blocks come from their cache).
func (m *model) convLines(w, n int) []string {
	vw := view{width: w, showThinking: m.showThinking, expandTools: m.expandTools, md: m.md.render}
	var chunks [][]string
	total := 0
	for i := len(m.conv.blocks) - 1; i >= 0 && total < n; i-- {
		ls := m.conv.blocks[i].render(vw)
		chunks = append(chunks, ls)
		total += len(ls)
	}
	out := make([]string, 0, total+len(m.header))
	if total < n {
		// Every block is drawn: the extension's header comes first.
		for _, l := range m.header {
			out = append(out, truncateWidth(l, w))
		}
	}
	for i := len(chunks) - 1; i >= 0; i-- {
		out = append(out, chunks[i]...)
	}
	return out
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
