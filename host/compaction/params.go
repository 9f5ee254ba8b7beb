// Package compaction implements verbatim-lines compaction: the part of a
// session that no longer fits is serialised into role-tagged lines, a
// planner model names only line ranges to delete, and the program rebuilds
// the retained lines byte for byte with "(filtered N lines)" markers in
// place of every deleted run. Nothing the planner writes enters the
// transcript.
//
// The package is pure: preparation, prompt construction, parsing,
// validation, reconstruction, the trimming ladder and the boundary message
// used when building context. The model call itself is behind the Planner
// interface, supplied by the runtime.
package compaction

import (
	"math"
	"strings"
)

// Constants of the verbatim-lines strategy.
const (
	Strategy                = "verbatim-lines"
	PromptVersion           = 3
	DefaultCompressionRatio = 0.5
	DefaultPreserveRecent   = 2
	MinRegionLines          = 20
	ToolResultCap           = 16000
	AutoQuery               = "the latest user request"
)

// Parameters are the normalised knobs of one compaction, as stored in the
// compaction entry's details and reported in the result.
type Parameters struct {
	CompressionRatio float64 `json:"compression_ratio"`
	PreserveRecent   int     `json:"preserve_recent"`
	Query            string  `json:"query,omitempty"`
}

// Settings are the raw compaction settings (from config or a caller).
type Settings struct {
	CompressionRatio float64
	PreserveRecent   *int // nil: default
	Query            string
}

// Normalize returns the effective parameters: a compression ratio strictly
// between 0 and 1 (else the default), a non-negative preserve count (else
// the default) and the trimmed query (empty when not given; Prepare fills
// in the automatic one).
func Normalize(s Settings) Parameters {
	p := Parameters{CompressionRatio: s.CompressionRatio, PreserveRecent: DefaultPreserveRecent}
	if math.IsNaN(p.CompressionRatio) || math.IsInf(p.CompressionRatio, 0) || p.CompressionRatio <= 0 || p.CompressionRatio >= 1 {
		p.CompressionRatio = DefaultCompressionRatio
	}
	if s.PreserveRecent != nil {
		p.PreserveRecent = max(0, *s.PreserveRecent)
	}
	p.Query = strings.TrimSpace(s.Query)
	return p
}

// jsRound rounds half up, like JavaScript's Math.round.
func jsRound(x float64) int { return int(math.Floor(x + 0.5)) }

// TargetKeep is how many of n lines the planner is asked to keep: the
// ratio's share, but never fewer than the protected lines.
func TargetKeep(n, protected int, ratio float64) int {
	return max(protected, jsRound(float64(n)*ratio))
}
