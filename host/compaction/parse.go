package compaction

import (
	"errors"
	"math"
	"strings"
)

// Parse errors.
var (
	ErrMalformed = errors.New("Compaction range planning returned malformed output")
	ErrNoRanges  = errors.New("Compaction range planning produced no usable deleted ranges")
)

// parseUint reads a record number: ASCII digits, no sign, no leading zero
// except "0" itself. Values too large for an int saturate (they are clamped
// to the region later).
func parseUint(s string) (int, bool) {
	if s == "" || (len(s) > 1 && s[0] == '0') {
		return 0, false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		if n > (math.MaxInt32-9)/10 {
			n = math.MaxInt32
			continue
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

// ParseRecord reads one "start,end" record.
func ParseRecord(line string) (Range, bool) {
	i := strings.IndexByte(line, ',')
	if i < 0 {
		return Range{}, false
	}
	s, ok1 := parseUint(line[:i])
	e, ok2 := parseUint(line[i+1:])
	if !ok1 || !ok2 {
		return Range{}, false
	}
	return Range{s, e}, true
}

// ParseRecords reads a complete planner reply: one record per line, one
// trailing empty line allowed. Any other line makes the whole reply
// unusable.
func ParseRecords(text string) ([]Range, error) {
	text = strings.TrimSuffix(text, "\n")
	if text == "" {
		return nil, nil
	}
	return parseLines(strings.Split(text, "\n"))
}

// RecoverRecords reads a reply cut off by the output limit: the fragment
// after the last newline is discarded and every complete line before it
// must be a record.
func RecoverRecords(text string) ([]Range, error) {
	i := strings.LastIndexByte(text, '\n')
	if i < 0 {
		return nil, nil
	}
	return parseLines(strings.Split(text[:i], "\n"))
}

func parseLines(lines []string) ([]Range, error) {
	out := make([]Range, 0, len(lines))
	for _, l := range lines {
		r, ok := ParseRecord(l)
		if !ok {
			return nil, ErrMalformed
		}
		out = append(out, r)
	}
	return out, nil
}
