package tools

import (
	"testing"
)

func TestSanitizeOutput(t *testing.T) {
	cases := map[string]string{
		"plain\ttext\r\n":                  "plain\ttext\r\n",
		"\x1b[31mred\x1b[0m":               "red",
		"\x1b[1;32;40mbold\x1b[K":          "bold",
		"\x1b]0;title\x07after":            "after",
		"\x1b]8;;http://x\x1b\\link":       "link",
		"a\x1b(Bb":                         "ab",
		"bell\x07 back\x08":                "bell back",
		"bad \xff utf8":                    "bad \uFFFD utf8",
		"ok é ü 😀":                         "ok é ü 😀",
		"\x1b[?25lcursor\x1b[?25h":         "cursor",
		"trailing esc\x1b":                 "trailing esc",
		"c1 \u009b control":                "c1  control",
		"\x1b7saved\x1b8":                  "saved",
		"unterminated \x1b]0;title no end": "unterminated ]0;title no end",
	}
	for in, want := range cases {
		if got := SanitizeOutput(in); got != want {
			t.Errorf("SanitizeOutput(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSanitizerChunkBoundaries(t *testing.T) {
	input := "start \x1b[38;5;196mcolour\x1b[0m é😀 \x1b]0;t\x07end\n"
	want := SanitizeOutput(input)
	if want != "start colour é😀 end\n" {
		t.Fatalf("whole: %q", want)
	}
	// Split at every position into two chunks, and also byte by byte.
	for i := 0; i <= len(input); i++ {
		var s outputSanitizer
		got := s.Write([]byte(input[:i])) + s.Write([]byte(input[i:])) + s.Flush()
		if got != want {
			t.Errorf("split at %d: %q", i, got)
		}
	}
	var s outputSanitizer
	got := ""
	for i := 0; i < len(input); i++ {
		got += s.Write([]byte{input[i]})
	}
	got += s.Flush()
	if got != want {
		t.Errorf("byte by byte: %q", got)
	}
}
