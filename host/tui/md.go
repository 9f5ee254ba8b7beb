//go:build glamour

package tui

import (
	"os"
	"strings"

	"charm.land/glamour/v2"
	"charm.land/glamour/v2/styles"
)

// markdown renders an answer with glamour, code blocks highlighted (built
// with -tags glamour only: chroma's package init would cost every mode
// about 20 ms and 4 MB at start; the default is md_goldmark.go). The
// renderer is made on first use and again when the width changes.
type markdown struct {
	r     *glamour.TermRenderer
	width int
	dark  bool
}

func (m *markdown) render(text string, width int) string {
	if m.r == nil || m.width != width {
		style := styles.DarkStyleConfig
		if !m.dark {
			style = styles.LightStyleConfig
		}
		if os.Getenv("NO_COLOR") != "" {
			style = styles.NoTTYStyleConfig
		}
		// No document margin: the conversation has its own.
		zero := uint(0)
		style.Document.Margin = &zero
		r, err := glamour.NewTermRenderer(glamour.WithStyles(style), glamour.WithWordWrap(width))
		if err != nil {
			return text
		}
		m.r, m.width = r, width
	}
	out, err := m.r.Render(text)
	if err != nil {
		return text
	}
	return strings.Trim(out, "\n")
}
