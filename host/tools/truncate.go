package tools

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Output limits shared by the built-in tools.
const (
	DefaultMaxLines = 2000
	DefaultMaxBytes = 50 * 1024
	// GrepMaxLineLength is the number of characters of a grep output line
	// kept before it is cut.
	GrepMaxLineLength = 500
)

// Truncation values for Truncation.TruncatedBy.
const (
	TruncatedByLines = "lines"
	TruncatedByBytes = "bytes"
)

// Truncation describes text cut down to fit line and byte limits. Lines are
// the pieces between "\n" characters, so "a\nb\n" has three lines (the last
// one empty). Sizes are in bytes of UTF-8.
type Truncation struct {
	// Content is the text that was kept.
	Content   string `json:"content"`
	Truncated bool   `json:"truncated"`
	// TruncatedBy says which limit cut the text: "lines", "bytes", or ""
	// when nothing was cut (serialised as null).
	TruncatedBy string `json:"truncatedBy"`
	TotalLines  int    `json:"totalLines"`
	TotalBytes  int    `json:"totalBytes"`
	OutputLines int    `json:"outputLines"`
	OutputBytes int    `json:"outputBytes"`
	// LastLinePartial is set by TruncateTail when the only kept line had
	// to be cut (its beginning dropped) to fit the byte limit.
	LastLinePartial bool `json:"lastLinePartial"`
	// FirstLineExceedsLimit is set by TruncateHead when the first line alone
	// is larger than the byte limit; Content is then empty.
	FirstLineExceedsLimit bool `json:"firstLineExceedsLimit"`
	MaxLines              int  `json:"maxLines"`
	MaxBytes              int  `json:"maxBytes"`
}

// MarshalJSON writes TruncatedBy as null when it is empty.
func (t Truncation) MarshalJSON() ([]byte, error) {
	type plain Truncation
	var by *string
	if t.TruncatedBy != "" {
		s := t.TruncatedBy
		by = &s
	}
	return json.Marshal(struct {
		plain
		TruncatedBy *string `json:"truncatedBy"`
	}{plain(t), by})
}

func limitsOrDefault(maxLines, maxBytes int) (int, int) {
	if maxLines <= 0 {
		maxLines = DefaultMaxLines
	}
	if maxBytes <= 0 {
		maxBytes = DefaultMaxBytes
	}
	return maxLines, maxBytes
}

// TruncateHead keeps the leading whole lines of s that fit within maxLines
// lines and maxBytes bytes (a limit <= 0 means the default). If the first
// line alone is larger than maxBytes nothing is kept and
// FirstLineExceedsLimit is set.
func TruncateHead(s string, maxLines, maxBytes int) Truncation {
	maxLines, maxBytes = limitsOrDefault(maxLines, maxBytes)
	total := strings.Count(s, "\n") + 1
	t := Truncation{TotalLines: total, TotalBytes: len(s), MaxLines: maxLines, MaxBytes: maxBytes}
	if total <= maxLines && len(s) <= maxBytes {
		t.Content = s
		t.OutputLines = total
		t.OutputBytes = len(s)
		return t
	}
	t.Truncated = true
	first := s
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		first = s[:i]
	}
	if len(first) > maxBytes {
		t.TruncatedBy = TruncatedByBytes
		t.FirstLineExceedsLimit = true
		return t
	}
	// end is the byte offset just past the last kept line (before its
	// newline); the kept content is s[:end].
	end, lines := 0, 0
	t.TruncatedBy = TruncatedByLines
	for pos := 0; ; {
		if lines >= maxLines {
			break
		}
		lineEnd := len(s)
		if i := strings.IndexByte(s[pos:], '\n'); i >= 0 {
			lineEnd = pos + i
		}
		if lineEnd > maxBytes {
			t.TruncatedBy = TruncatedByBytes
			break
		}
		end, lines = lineEnd, lines+1
		if lineEnd == len(s) {
			break
		}
		pos = lineEnd + 1
	}
	t.Content = s[:end]
	t.OutputLines = lines
	t.OutputBytes = end
	return t
}

// TruncateTail keeps the trailing whole lines of s that fit within maxLines
// lines and maxBytes bytes (a limit <= 0 means the default). If the last
// line alone is larger than maxBytes, its end is kept, cut on a UTF-8
// character boundary, and LastLinePartial is set.
func TruncateTail(s string, maxLines, maxBytes int) Truncation {
	maxLines, maxBytes = limitsOrDefault(maxLines, maxBytes)
	total := strings.Count(s, "\n") + 1
	t := Truncation{TotalLines: total, TotalBytes: len(s), MaxLines: maxLines, MaxBytes: maxBytes}
	if total <= maxLines && len(s) <= maxBytes {
		t.Content = s
		t.OutputLines = total
		t.OutputBytes = len(s)
		return t
	}
	t.Truncated = true
	t.TruncatedBy = TruncatedByLines
	// start is the byte offset of the first kept line; the kept content is
	// s[start:].
	start, lines := len(s), 0
	for end := len(s); ; {
		if lines >= maxLines {
			break
		}
		lineStart := strings.LastIndexByte(s[:end], '\n') + 1
		if len(s)-lineStart > maxBytes {
			t.TruncatedBy = TruncatedByBytes
			if lines == 0 {
				cut := len(s) - maxBytes
				for cut < len(s) && !utf8.RuneStart(s[cut]) {
					cut++
				}
				start, lines = cut, 1
				t.LastLinePartial = true
			}
			break
		}
		start, lines = lineStart, lines+1
		if lineStart == 0 {
			break
		}
		end = lineStart - 1
	}
	t.Content = s[start:]
	t.OutputLines = lines
	t.OutputBytes = len(s) - start
	return t
}

// FormatSize renders a byte count: "512B", "1.5KB", "2.0MB".
func FormatSize(n int) string {
	switch {
	case n < 1024:
		return fmt.Sprintf("%dB", n)
	case n < 1024*1024:
		return fmt.Sprintf("%.1fKB", float64(n)/1024)
	default:
		return fmt.Sprintf("%.1fMB", float64(n)/(1024*1024))
	}
}

// cutLine shortens s to at most max characters, appending a marker when it
// was cut. It reports whether it cut.
func cutLine(s string, max int) (string, bool) {
	if utf8.RuneCountInString(s) <= max {
		return s, false
	}
	n := 0
	for i := range s {
		if n == max {
			return s[:i] + "... [truncated]", true
		}
		n++
	}
	return s, false
}
