package compaction

import (
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/atomic-go/atomic/host/llm"
)

// Range is a 1-based inclusive line range.
type Range struct {
	Start int `json:"start"`
	End   int `json:"end"`
}

// Validate turns raw deletion records into the ranges that will be
// applied to a region: reversed records are swapped, endpoints clamped to
// the region (a record entirely outside it is dropped), the rest sorted,
// overlapping and adjacent ranges merged, and each range split around
// protected lines, which are never deleted.
func Validate(raw []Range, r *Region) []Range {
	n := r.Len()
	rs := make([]Range, 0, len(raw))
	for _, x := range raw {
		s, e := x.Start, x.End
		if s > e {
			s, e = e, s
		}
		s, e = max(s, 1), min(e, n)
		if s > e {
			continue
		}
		rs = append(rs, Range{s, e})
	}
	sort.Slice(rs, func(i, j int) bool {
		if rs[i].Start != rs[j].Start {
			return rs[i].Start < rs[j].Start
		}
		return rs[i].End < rs[j].End
	})
	merged := rs[:0]
	for _, x := range rs {
		if k := len(merged) - 1; k >= 0 && x.Start <= merged[k].End+1 {
			merged[k].End = max(merged[k].End, x.End)
			continue
		}
		merged = append(merged, x)
	}
	if r.protectedCount == 0 {
		return merged
	}
	var out []Range
	for _, x := range merged {
		start := -1
		for l := x.Start; l <= x.End; l++ {
			if r.protected[l-1] {
				if start >= 0 {
					out = append(out, Range{start, l - 1})
					start = -1
				}
				continue
			}
			if start < 0 {
				start = l
			}
		}
		if start >= 0 {
			out = append(out, Range{start, x.End})
		}
	}
	return out
}

// Stats describe a compaction.
type Stats struct {
	LinesBefore      int     `json:"linesBefore"`
	LinesDeleted     int     `json:"linesDeleted"`
	LinesKept        int     `json:"linesKept"`
	RangeCount       int     `json:"rangeCount"`
	TokensBefore     int     `json:"tokensBefore"`
	TokensAfter      int     `json:"tokensAfter"`
	PercentReduction float64 `json:"percentReduction"`
}

// percentReduction is the reduction in percent with one decimal.
func percentReduction(before, after int) float64 {
	if before <= 0 {
		return 0
	}
	return math.Floor((1-float64(after)/float64(before))*1000+0.5) / 10
}

// Reconstruction is the compacted text of a region and how it was made.
type Reconstruction struct {
	Text  string
	Runs  []Range // deleted runs, each replaced by one marker line
	Stats Stats
}

// Reconstruct applies validated ranges to a region: every run of deleted
// lines becomes one "(filtered N lines)" line. A marker from an earlier
// compaction that borders a deleted run joins it, and N counts the lines
// earlier markers stood for, so counts stay cumulative. Retained lines are
// copied unchanged and in order.
func Reconstruct(r *Region, ranges []Range) Reconstruction {
	n := r.Len()
	del := make([]bool, n)
	for _, x := range ranges {
		for l := max(x.Start, 1); l <= min(x.End, n); l++ {
			del[l-1] = !r.protected[l-1]
		}
	}
	// Fold earlier markers into neighbouring deletions. A forward pass
	// carries deletions down chains of markers, a backward pass up them;
	// together they reach the fixed point.
	for i := 1; i < n; i++ {
		if !del[i] && del[i-1] && r.priorN[i] > 0 && !r.protected[i] {
			del[i] = true
		}
	}
	for i := n - 2; i >= 0; i-- {
		if !del[i] && del[i+1] && r.priorN[i] > 0 && !r.protected[i] {
			del[i] = true
		}
	}
	var sb strings.Builder
	var runs []Range
	deleted := 0
	first := true
	for i := 0; i < n; i++ {
		if !first {
			sb.WriteByte('\n')
		}
		first = false
		if !del[i] {
			sb.WriteString(r.Lines[i])
			continue
		}
		j, count := i, 0
		for ; j < n && del[j]; j++ {
			count++
			if p := r.priorN[j]; p > 0 {
				count += p - 1
			}
		}
		runs = append(runs, Range{i + 1, j})
		deleted += j - i
		sb.WriteString("(filtered ")
		sb.WriteString(strconv.Itoa(count))
		sb.WriteString(" lines)")
		i = j - 1
	}
	text := sb.String()
	after := llm.EstimateTextTokens(text)
	return Reconstruction{
		Text: text,
		Runs: runs,
		Stats: Stats{
			LinesBefore: n, LinesDeleted: deleted, LinesKept: n - deleted, RangeCount: len(runs),
			TokensBefore: r.TokenEstimate, TokensAfter: after,
			PercentReduction: percentReduction(r.TokenEstimate, after),
		},
	}
}
