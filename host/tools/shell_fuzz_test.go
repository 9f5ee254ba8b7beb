package tools

import (
	"os"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzOutputCollectorChunks checks that cleaning output does not depend on
// how it was split into reads: pieces are valid UTF-8 without escapes or
// CR, and together they equal the cleaned whole.
func FuzzOutputCollectorChunks(f *testing.F) {
	f.Add([]byte("plain\r\ntext"), uint8(3), uint8(7))
	f.Add([]byte("\x1b[31mred\x1b[0m é€😀 \xff\xfe"), uint8(1), uint8(2))
	f.Add([]byte("\x1b]0;title\x07after \xe2\x82"), uint8(5), uint8(11))
	f.Fuzz(func(t *testing.T, data []byte, step1, step2 uint8) {
		col := newOutputCollector(ShellRequest{StripCR: true, SpillFile: noSpill}, 1)
		var pieces strings.Builder
		steps := []int{int(step1%16) + 1, int(step2%16) + 1}
		for i, k := 0, 0; i < len(data); k++ {
			n := min(steps[k%2], len(data)-i)
			piece := col.write(0, data[i:i+n])
			check(t, piece)
			pieces.WriteString(piece)
			i += n
		}
		piece := col.flush(0)
		check(t, piece)
		pieces.WriteString(piece)
		whole := strings.ReplaceAll(SanitizeOutput(string(data)), "\r", "")
		if pieces.String() != whole {
			t.Fatalf("pieces %q != whole %q", pieces.String(), whole)
		}
	})
}

func noSpill() (*os.File, error) { return nil, os.ErrPermission }

func check(t *testing.T, piece string) {
	t.Helper()
	if !utf8.ValidString(piece) || strings.ContainsAny(piece, "\r\x1b") {
		t.Fatalf("bad piece %q", piece)
	}
}
