package htmlexport

import (
	"bytes"
	"strings"
	"sync"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/util"
)

// md renders Markdown the way the export needs it: GitHub-flavoured, raw
// HTML shown as text (escaped, never interpreted), dangerous link targets
// dropped (goldmark's default), and images inlined only when they are
// data: URIs, so that the page never loads anything from the network.
// It is built by the first export, not when the agent starts.
var md = sync.OnceValue(func() goldmark.Markdown {
	return goldmark.New(
		goldmark.WithExtensions(extension.GFM),
		goldmark.WithRendererOptions(renderer.WithNodeRenderers(util.Prioritized(safeNodes{}, 100))),
	)
})

type safeNodes struct{}

func (safeNodes) RegisterFuncs(r renderer.NodeRendererFuncRegisterer) {
	r.Register(ast.KindHTMLBlock, renderHTMLBlock)
	r.Register(ast.KindRawHTML, renderRawHTML)
	r.Register(ast.KindImage, renderImage)
}

func renderHTMLBlock(w util.BufWriter, source []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	n := node.(*ast.HTMLBlock)
	if entering {
		_, _ = w.WriteString(`<pre class="raw-html">`)
		for i := 0; i < n.Lines().Len(); i++ {
			line := n.Lines().At(i)
			_, _ = w.Write(util.EscapeHTML(line.Value(source)))
		}
		if n.HasClosure() {
			_, _ = w.Write(util.EscapeHTML(n.ClosureLine.Value(source)))
		}
		_, _ = w.WriteString("</pre>\n")
	}
	return ast.WalkContinue, nil
}

func renderRawHTML(w util.BufWriter, source []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	if entering {
		n := node.(*ast.RawHTML)
		_, _ = w.WriteString("<code>")
		for i := 0; i < n.Segments.Len(); i++ {
			seg := n.Segments.At(i)
			_, _ = w.Write(util.EscapeHTML(seg.Value(source)))
		}
		_, _ = w.WriteString("</code>")
	}
	return ast.WalkSkipChildren, nil
}

func renderImage(w util.BufWriter, source []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	n := node.(*ast.Image)
	alt := altText(n, source)
	dest := string(n.Destination)
	if isDataImage(dest) {
		_, _ = w.WriteString(`<img src="`)
		_, _ = w.Write(util.EscapeHTML([]byte(dest)))
		_, _ = w.WriteString(`" alt="`)
		_, _ = w.Write(util.EscapeHTML([]byte(alt)))
		_, _ = w.WriteString(`">`)
		return ast.WalkSkipChildren, nil
	}
	// A remote image would be a network request: show its address.
	_, _ = w.WriteString(`<span class="remote-image">[image: `)
	_, _ = w.Write(util.EscapeHTML([]byte(alt)))
	_, _ = w.WriteString(` — `)
	_, _ = w.Write(util.EscapeHTML([]byte(dest)))
	_, _ = w.WriteString(`]</span>`)
	return ast.WalkSkipChildren, nil
}

func altText(n ast.Node, source []byte) string {
	var b strings.Builder
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if entering {
			if t, ok := c.(*ast.Text); ok {
				b.Write(t.Value(source))
			}
		}
		return ast.WalkContinue, nil
	})
	return b.String()
}

// isDataImage accepts data:image/<type>;base64,<base64> only.
func isDataImage(u string) bool {
	rest, ok := strings.CutPrefix(u, "data:image/")
	if !ok {
		return false
	}
	i := strings.Index(rest, ";base64,")
	if i <= 0 || !isToken(rest[:i]) {
		return false
	}
	return isBase64(rest[i+len(";base64,"):])
}

func isToken(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}

func isBase64(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '=') {
			return false
		}
	}
	return true
}

// markdown renders text to HTML.
func markdown(text string) string {
	var buf bytes.Buffer
	if err := md().Convert([]byte(text), &buf); err != nil {
		return "<pre>" + escape(text) + "</pre>"
	}
	return buf.String()
}
