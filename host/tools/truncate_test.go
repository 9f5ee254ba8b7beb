package tools

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestTruncateHeadNoTruncation(t *testing.T) {
	for _, s := range []string{"", "a", "a\nb\nc", "a\nb\n"} {
		tr := TruncateHead(s, 10, 100)
		if tr.Truncated || tr.Content != s || tr.TruncatedBy != "" {
			t.Errorf("%q: unexpected %+v", s, tr)
		}
		wantLines := strings.Count(s, "\n") + 1
		if tr.TotalLines != wantLines || tr.OutputLines != wantLines || tr.TotalBytes != len(s) || tr.OutputBytes != len(s) {
			t.Errorf("%q: counts %+v", s, tr)
		}
		if tr.MaxLines != 10 || tr.MaxBytes != 100 {
			t.Errorf("%q: limits %+v", s, tr)
		}
	}
}

func TestTruncateHeadByLines(t *testing.T) {
	s := numberedLines(1, 10)
	tr := TruncateHead(s, 3, 1000)
	if !tr.Truncated || tr.TruncatedBy != "lines" {
		t.Fatalf("got %+v", tr)
	}
	if tr.Content != "line 1\nline 2\nline 3" {
		t.Fatalf("content %q", tr.Content)
	}
	if tr.OutputLines != 3 || tr.TotalLines != 10 || tr.OutputBytes != len(tr.Content) || tr.TotalBytes != len(s) {
		t.Fatalf("counts %+v", tr)
	}
}

func TestTruncateHeadByBytes(t *testing.T) {
	s := "aaaa\nbbbb\ncccc\ndddd" // lines of 4 bytes, joined with newlines
	// "aaaa\nbbbb" is 9 bytes, adding "\ncccc" makes 14.
	for limit, want := range map[int]string{9: "aaaa\nbbbb", 13: "aaaa\nbbbb", 14: "aaaa\nbbbb\ncccc", 4: "aaaa", 5: "aaaa"} {
		tr := TruncateHead(s, 100, limit)
		if !tr.Truncated || tr.TruncatedBy != "bytes" || tr.Content != want {
			t.Errorf("limit %d: got %q (%+v), want %q", limit, tr.Content, tr, want)
		}
		if tr.OutputBytes != len(want) || tr.OutputLines != strings.Count(want, "\n")+1 {
			t.Errorf("limit %d: counts %+v", limit, tr)
		}
		if tr.FirstLineExceedsLimit {
			t.Errorf("limit %d: first line flagged", limit)
		}
	}
}

func TestTruncateHeadBothLimitsLinesFirst(t *testing.T) {
	s := numberedLines(1, 100)
	tr := TruncateHead(s, 5, 1000)
	if tr.TruncatedBy != "lines" || tr.OutputLines != 5 {
		t.Fatalf("got %+v", tr)
	}
	tr = TruncateHead(s, 50, 19)
	if tr.TruncatedBy != "bytes" || tr.Content != "line 1\nline 2" {
		t.Fatalf("got %+v", tr)
	}
}

func TestTruncateHeadFirstLineTooLong(t *testing.T) {
	s := strings.Repeat("x", 100) + "\nshort"
	tr := TruncateHead(s, 10, 50)
	if !tr.Truncated || !tr.FirstLineExceedsLimit || tr.TruncatedBy != "bytes" {
		t.Fatalf("got %+v", tr)
	}
	if tr.Content != "" || tr.OutputLines != 0 || tr.OutputBytes != 0 || tr.TotalLines != 2 {
		t.Fatalf("got %+v", tr)
	}
}

func TestTruncateHeadDefaults(t *testing.T) {
	s := strings.Repeat("l\n", 3000)
	tr := TruncateHead(s, 0, 0)
	if tr.MaxLines != DefaultMaxLines || tr.MaxBytes != DefaultMaxBytes {
		t.Fatalf("limits %+v", tr)
	}
	if tr.OutputLines != DefaultMaxLines || tr.TruncatedBy != "lines" {
		t.Fatalf("got %d lines by %s", tr.OutputLines, tr.TruncatedBy)
	}
}

func TestTruncateTailNoTruncation(t *testing.T) {
	tr := TruncateTail("a\nb", 2, 3)
	if tr.Truncated || tr.Content != "a\nb" || tr.OutputLines != 2 {
		t.Fatalf("got %+v", tr)
	}
}

func TestTruncateTailByLines(t *testing.T) {
	s := numberedLines(1, 10)
	tr := TruncateTail(s, 3, 1000)
	if !tr.Truncated || tr.TruncatedBy != "lines" || tr.Content != "line 8\nline 9\nline 10" {
		t.Fatalf("got %+v", tr)
	}
	if tr.OutputLines != 3 || tr.TotalLines != 10 || tr.OutputBytes != len(tr.Content) || tr.LastLinePartial {
		t.Fatalf("counts %+v", tr)
	}
}

func TestTruncateTailTrailingNewline(t *testing.T) {
	// The empty piece after the final newline counts as a line.
	tr := TruncateTail("a\nb\nc\n", 2, 1000)
	if tr.Content != "c\n" || tr.OutputLines != 2 || tr.TotalLines != 4 {
		t.Fatalf("got %+v", tr)
	}
}

func TestTruncateTailByBytes(t *testing.T) {
	s := "aaaa\nbbbb\ncccc\ndddd"
	for limit, want := range map[int]string{9: "cccc\ndddd", 13: "cccc\ndddd", 14: "bbbb\ncccc\ndddd", 4: "dddd"} {
		tr := TruncateTail(s, 100, limit)
		if !tr.Truncated || tr.TruncatedBy != "bytes" || tr.Content != want || tr.LastLinePartial {
			t.Errorf("limit %d: got %q (%+v), want %q", limit, tr.Content, tr, want)
		}
	}
}

func TestTruncateTailPartialLastLine(t *testing.T) {
	s := "first\n" + strings.Repeat("ab", 50)
	tr := TruncateTail(s, 10, 10)
	if !tr.Truncated || tr.TruncatedBy != "bytes" || !tr.LastLinePartial {
		t.Fatalf("got %+v", tr)
	}
	if tr.Content != "ababababab" || tr.OutputLines != 1 || tr.OutputBytes != 10 {
		t.Fatalf("got %+v", tr)
	}
}

func TestTruncateTailUTF8Boundary(t *testing.T) {
	// "é" is two bytes; a 5-byte limit must not split one.
	s := strings.Repeat("é", 10)
	tr := TruncateTail(s, 10, 5)
	if !tr.LastLinePartial || !utf8.ValidString(tr.Content) {
		t.Fatalf("got %q %+v", tr.Content, tr)
	}
	if tr.Content != "éé" || tr.OutputBytes != 4 {
		t.Fatalf("got %q (%d bytes)", tr.Content, tr.OutputBytes)
	}
	// Four-byte characters.
	s = strings.Repeat("😀", 5)
	for limit := 1; limit <= 12; limit++ {
		tr := TruncateTail(s, 10, limit)
		if !utf8.ValidString(tr.Content) || len(tr.Content) > limit || len(tr.Content) != limit/4*4 {
			t.Errorf("limit %d: got %q", limit, tr.Content)
		}
	}
}

func TestTruncationJSON(t *testing.T) {
	b, err := json.Marshal(TruncateHead("a\nb\nc", 1, 100))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"content", "truncated", "truncatedBy", "totalLines", "totalBytes", "outputLines", "outputBytes", "lastLinePartial", "firstLineExceedsLimit", "maxLines", "maxBytes"} {
		if _, ok := m[k]; !ok {
			t.Errorf("missing key %s in %s", k, b)
		}
	}
	if m["truncatedBy"] != "lines" || m["outputLines"] != float64(1) {
		t.Errorf("got %s", b)
	}
	b, _ = json.Marshal(TruncateHead("a", 1, 100))
	if !strings.Contains(string(b), `"truncatedBy":null`) {
		t.Errorf("want null truncatedBy: %s", b)
	}
	var back Truncation
	if err := json.Unmarshal(b, &back); err != nil || back.Content != "a" || back.TruncatedBy != "" {
		t.Errorf("round trip: %+v %v", back, err)
	}
}

func TestFormatSize(t *testing.T) {
	cases := map[int]string{
		0:               "0B",
		1023:            "1023B",
		1024:            "1.0KB",
		1536:            "1.5KB",
		50 * 1024:       "50.0KB",
		1024*1024 - 1:   "1024.0KB",
		1024 * 1024:     "1.0MB",
		5 * 1024 * 1024: "5.0MB",
	}
	for n, want := range cases {
		if got := FormatSize(n); got != want {
			t.Errorf("FormatSize(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestCutLine(t *testing.T) {
	if s, cut := cutLine("short", 10); cut || s != "short" {
		t.Fatalf("got %q %v", s, cut)
	}
	s, cut := cutLine(strings.Repeat("é", 20), 5)
	if !cut || s != "ééééé... [truncated]" {
		t.Fatalf("got %q %v", s, cut)
	}
}
