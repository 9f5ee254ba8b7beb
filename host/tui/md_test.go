//go:build !glamour

package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

func TestMarkdownPlainText(t *testing.T) {
	var m markdown
	src := "# Title\n\nSome **bold** and `code` text.\n\n- one\n- two\n\n1. first\n2. second\n\n```go\nfunc main() {}\n```\n\n> quoted\n\n[link](https://example.com)\n"
	got := ansi.Strip(m.render(src, 40))
	want := "# Title\n\nSome bold and code text.\n\n• one\n• two\n\n1. first\n2. second\n\n  go\n  func main() {}\n\n│ quoted\n\nlink (https://example.com)"
	if got != want {
		t.Fatalf("got:\n%s\nwant:\n%s", got, want)
	}
	for _, l := range strings.Split(ansi.Strip(m.render(strings.Repeat("word ", 40), 20)), "\n") {
		if ansi.StringWidth(l) > 20 {
			t.Fatalf("line wider than 20: %q", l)
		}
	}
}
