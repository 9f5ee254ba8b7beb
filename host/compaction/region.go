package compaction

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/atomic-go/atomic/host/llm"
)

// Region is the numbered transcript the planner ranks. Line numbers are
// 1-based everywhere outside this type; the slices are 0-based.
type Region struct {
	Lines []string
	// header[i]: line i starts with a role header.
	header []bool
	// priorN[i] > 0: line i is a "(filtered N lines)" marker from an
	// earlier compaction standing for N lines.
	priorN []int
	// protected[i]: line i lies in a <keepContext> span.
	protected      []bool
	protectedCount int
	TokenEstimate  int
}

var headers = []string{HeaderUser, HeaderAssistant, HeaderThinking, HeaderToolCalls, HeaderToolResult}

// headerOf returns the role header the line starts with, or "".
func headerOf(line string) string {
	if len(line) < 3 || line[0] != '[' {
		return ""
	}
	for _, h := range headers {
		if strings.HasPrefix(line, h) {
			return h
		}
	}
	return ""
}

// markerCount returns N when line is exactly "(filtered N lines)".
func markerCount(line string) int {
	const pre, suf = "(filtered ", " lines)"
	if len(line) <= len(pre)+len(suf) || !strings.HasPrefix(line, pre) || !strings.HasSuffix(line, suf) {
		return 0
	}
	digits := line[len(pre) : len(line)-len(suf)]
	for i := 0; i < len(digits); i++ {
		if digits[i] < '0' || digits[i] > '9' {
			return 0
		}
	}
	n, err := strconv.Atoi(digits)
	if err != nil || n <= 0 {
		return 0
	}
	return n
}

// NewRegion numbers the lines of a transcript text and finds role headers,
// earlier markers and protected spans.
func NewRegion(text string) *Region {
	lines := strings.Split(text, "\n")
	r := &Region{
		Lines:         lines,
		header:        make([]bool, len(lines)),
		priorN:        make([]int, len(lines)),
		TokenEstimate: llm.EstimateTextTokens(text),
	}
	for i, l := range lines {
		r.header[i] = headerOf(l) != ""
		r.priorN[i] = markerCount(l)
	}
	r.protected = keepContextLines(lines)
	for _, p := range r.protected {
		if p {
			r.protectedCount++
		}
	}
	return r
}

// Len is the number of lines.
func (r *Region) Len() int { return len(r.Lines) }

// Text joins the lines.
func (r *Region) Text() string { return strings.Join(r.Lines, "\n") }

// Protected reports whether 1-based line n is protected.
func (r *Region) Protected(n int) bool { return n >= 1 && n <= len(r.protected) && r.protected[n-1] }

// ProtectedCount is the number of protected lines.
func (r *Region) ProtectedCount() int { return r.protectedCount }

// PriorMarker returns N when 1-based line n is an earlier marker.
func (r *Region) PriorMarker(n int) int {
	if n < 1 || n > len(r.priorN) {
		return 0
	}
	return r.priorN[n-1]
}

// ProtectedRanges returns the protected lines as 1-based inclusive runs.
func (r *Region) ProtectedRanges() []Range { return runsOf(r.protected) }

// HeaderLineNumbers returns the 1-based numbers of role-header lines.
func (r *Region) HeaderLineNumbers() []int { return numbersOf(r.header) }

// ProtectedLineNumbers returns the 1-based numbers of protected lines.
func (r *Region) ProtectedLineNumbers() []int { return numbersOf(r.protected) }

// View returns lines offset+1..N as a region numbered from 1 (it shares
// the underlying slices).
func (r *Region) View(offset int) *Region {
	offset = min(max(offset, 0), len(r.Lines))
	if offset == 0 {
		return r
	}
	v := &Region{
		Lines:     r.Lines[offset:],
		header:    r.header[offset:],
		priorN:    r.priorN[offset:],
		protected: r.protected[offset:],
	}
	chars := 0
	for i, l := range v.Lines {
		if v.protected[i] {
			v.protectedCount++
		}
		chars += llm.TextLen(l)
		if i > 0 {
			chars++
		}
	}
	v.TokenEstimate = llm.TokensForChars(chars)
	return v
}

// MarshalJSON writes the shape extensions see in session_before_compact.
func (r *Region) MarshalJSON() ([]byte, error) {
	markers := map[string]int{}
	for i, n := range r.priorN {
		if n > 0 {
			markers[strconv.Itoa(i+1)] = n
		}
	}
	return json.Marshal(struct {
		Lines                []string       `json:"lines"`
		HeaderLineNumbers    []int          `json:"headerLineNumbers"`
		PriorMarkerNs        map[string]int `json:"priorMarkerNs"`
		ProtectedLineNumbers []int          `json:"protectedLineNumbers"`
		TokenEstimate        int            `json:"tokenEstimate"`
	}{r.Lines, nonNil(r.HeaderLineNumbers()), markers, nonNil(r.ProtectedLineNumbers()), r.TokenEstimate})
}

func nonNil(s []int) []int {
	if s == nil {
		return []int{}
	}
	return s
}

func numbersOf(flags []bool) []int {
	var out []int
	for i, f := range flags {
		if f {
			out = append(out, i+1)
		}
	}
	return out
}

func runsOf(flags []bool) []Range {
	var out []Range
	for i := 0; i < len(flags); i++ {
		if !flags[i] {
			continue
		}
		j := i
		for j+1 < len(flags) && flags[j+1] {
			j++
		}
		out = append(out, Range{Start: i + 1, End: j + 1})
		i = j
	}
	return out
}

// keepContextLines marks the lines inside <keepContext> spans. A role
// header closes any open span at the line before it; tags inside tool
// results are inert; nested opens flatten; a close without an open is
// ignored; an unclosed span runs to the end of its message or the region.
func keepContextLines(lines []string) []bool {
	prot := make([]bool, len(lines))
	open := -1
	role := ""
	mark := func(from, to int) {
		for k := from; k <= to; k++ {
			prot[k] = true
		}
	}
	for i, l := range lines {
		body := l
		if h := headerOf(l); h != "" {
			if open >= 0 {
				mark(open, i-1)
				open = -1
			}
			role = h
			body = l[len(h):]
		}
		if role == HeaderToolResult {
			continue
		}
		switch t := strings.TrimSpace(body); {
		case strings.EqualFold(t, "<keepContext>"):
			if open < 0 {
				open = i
			}
		case strings.EqualFold(t, "</keepContext>"):
			if open >= 0 {
				mark(open, i)
				open = -1
			}
		}
	}
	if open >= 0 {
		mark(open, len(lines)-1)
	}
	return prot
}
