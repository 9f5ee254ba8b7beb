//go:build !glamour

package tui

import (
	"fmt"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"
)

// markdown renders an answer for the terminal from goldmark's syntax
// tree (goldmark is linked anyway, for the HTML export) with Lip Gloss
// styles. Glamour does this with syntax highlighting (-tags glamour,
// md.go), but its highlighter's package init would cost every mode,
// RPC included, about 20 ms and 4 MB at start.
type markdown struct {
	dark bool
	md   goldmark.Markdown
}

func (m *markdown) render(src string, width int) string {
	if m.md == nil {
		m.md = goldmark.New(goldmark.WithExtensions(extension.GFM))
	}
	source := []byte(src)
	doc := m.md.Parser().Parse(text.NewReader(source))
	r := mdRenderer{src: source}
	lines := r.blocks(doc, max(width, 10))
	return strings.Join(lines, "\n")
}

type mdRenderer struct{ src []byte }

// blocks renders the block children of n, a blank line between them.
func (r *mdRenderer) blocks(n ast.Node, width int) []string {
	var out []string
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		ls := r.block(c, width)
		if len(ls) == 0 {
			continue
		}
		if len(out) > 0 && !tightItem(c) {
			out = append(out, "")
		}
		out = append(out, ls...)
	}
	return out
}

// tightItem: no blank line before an item of a tight list's content.
func tightItem(n ast.Node) bool {
	if p := n.Parent(); p != nil {
		if l, ok := p.(*ast.List); ok && l.IsTight {
			return true
		}
		if _, ok := p.(*ast.ListItem); ok {
			if l, ok := p.Parent().(*ast.List); ok && l.IsTight {
				return true
			}
		}
	}
	return false
}

func (r *mdRenderer) block(n ast.Node, width int) []string {
	switch n := n.(type) {
	case *ast.Paragraph, *ast.TextBlock:
		return wrapLines(r.inline(n), width)
	case *ast.Heading:
		return wrapLines(mdHeading.Render(strings.Repeat("#", n.Level)+" ")+mdHeading.Render(r.inline(n)), width)
	case *ast.ThematicBreak:
		return []string{styleDim.Render(strings.Repeat("─", min(width, 40)))}
	case *ast.FencedCodeBlock, *ast.CodeBlock:
		var b strings.Builder
		lines := n.Lines()
		for i := 0; i < lines.Len(); i++ {
			seg := lines.At(i)
			b.Write(seg.Value(r.src))
		}
		var out []string
		if fc, ok := n.(*ast.FencedCodeBlock); ok {
			if lang := string(fc.Language(r.src)); lang != "" {
				out = append(out, styleDim.Render("  "+lang))
			}
		}
		for _, l := range strings.Split(strings.TrimRight(b.String(), "\n"), "\n") {
			l = strings.ReplaceAll(l, "\t", "    ")
			out = append(out, "  "+mdBlock.Render(truncateWidth(l, width-2)))
		}
		return out
	case *ast.Blockquote:
		var out []string
		for _, l := range r.blocks(n, width-2) {
			out = append(out, styleDim.Render("│ ")+mdQuote.Render(l))
		}
		return out
	case *ast.List:
		var out []string
		i := n.Start
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			marker := "• "
			if n.IsOrdered() {
				marker = fmt.Sprintf("%d. ", i)
				i++
			}
			item := r.blocks(c, width-len(marker))
			if len(out) > 0 && !n.IsTight {
				out = append(out, "")
			}
			for j, l := range item {
				if j == 0 {
					out = append(out, styleAccent.Render(marker)+l)
				} else {
					out = append(out, strings.Repeat(" ", len(marker))+l)
				}
			}
		}
		return out
	case *east.Table:
		var out []string
		for row := n.FirstChild(); row != nil; row = row.NextSibling() {
			var cells []string
			for c := row.FirstChild(); c != nil; c = c.NextSibling() {
				cells = append(cells, r.inline(c))
			}
			line := strings.Join(cells, styleDim.Render(" │ "))
			if _, ok := row.(*east.TableHeader); ok {
				line = lipgloss.NewStyle().Bold(true).Render(line)
			}
			out = append(out, truncateWidth(line, width))
		}
		return out
	case *ast.HTMLBlock:
		var b strings.Builder
		lines := n.Lines()
		for i := 0; i < lines.Len(); i++ {
			seg := lines.At(i)
			b.Write(seg.Value(r.src))
		}
		return wrapLines(strings.TrimRight(b.String(), "\n"), width)
	}
	if n.HasChildren() {
		return r.blocks(n, width)
	}
	return nil
}

// inline renders the inline children of n as one styled string (line
// breaks kept).
func (r *mdRenderer) inline(n ast.Node) string {
	var b strings.Builder
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		switch c := c.(type) {
		case *ast.Text:
			b.Write(c.Segment.Value(r.src))
			if c.HardLineBreak() {
				b.WriteString("\n")
			} else if c.SoftLineBreak() {
				b.WriteString(" ")
			}
		case *ast.String:
			b.Write(c.Value)
		case *ast.CodeSpan:
			var s strings.Builder
			for t := c.FirstChild(); t != nil; t = t.NextSibling() {
				if tx, ok := t.(*ast.Text); ok {
					s.Write(tx.Segment.Value(r.src))
				}
			}
			b.WriteString(mdCode.Render(s.String()))
		case *ast.Emphasis:
			st := lipgloss.NewStyle().Italic(true)
			if c.Level >= 2 {
				st = lipgloss.NewStyle().Bold(true)
			}
			b.WriteString(st.Render(r.inline(c)))
		case *east.Strikethrough:
			b.WriteString(lipgloss.NewStyle().Strikethrough(true).Render(r.inline(c)))
		case *ast.Link:
			label := r.inline(c)
			dest := string(c.Destination)
			b.WriteString(mdLink.Render(label))
			if dest != "" && dest != label {
				b.WriteString(styleDim.Render(" (" + dest + ")"))
			}
		case *ast.AutoLink:
			b.WriteString(mdLink.Render(string(c.URL(r.src))))
		case *ast.Image:
			b.WriteString(styleDim.Render("[image: " + r.inline(c) + "]"))
		case *ast.RawHTML:
			for i := 0; i < c.Segments.Len(); i++ {
				seg := c.Segments.At(i)
				b.Write(seg.Value(r.src))
			}
		case *east.TaskCheckBox:
			if c.IsChecked {
				b.WriteString("[x] ")
			} else {
				b.WriteString("[ ] ")
			}
		default:
			b.WriteString(r.inline(c))
		}
	}
	return b.String()
}

func wrapLines(s string, width int) []string {
	if s == "" {
		return nil
	}
	return strings.Split(lipgloss.Wrap(s, width, ""), "\n")
}
