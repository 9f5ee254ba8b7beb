package compaction

import (
	"encoding/json"

	"github.com/atomic-go/atomic/host/llm"
)

// Rungs: how the compacted text was produced.
const (
	RungPlanned   = "planned"
	RungExtension = "extension"
	RungFresh     = "fresh"
)

// PlannerModel names a borrowed planner model.
type PlannerModel struct {
	Provider      string `json:"provider"`
	ID            string `json:"id"`
	ThinkingLevel string `json:"thinkingLevel,omitempty"`
}

// Result is the outcome of a compaction (the RPC compact response data and
// compaction_end.result).
type Result struct {
	CompactedText    string        `json:"compactedText"`
	FirstKeptEntryID *string       `json:"firstKeptEntryId"`
	TokensBefore     int           `json:"tokensBefore"`
	Stats            Stats         `json:"stats"`
	Parameters       Parameters    `json:"parameters"`
	PromptVersion    int           `json:"promptVersion"`
	Rung             string        `json:"rung"`
	PlannerModel     *PlannerModel `json:"plannerModel,omitempty"`
	BackupPath       string        `json:"backupPath,omitempty"`
	// Runs are the deleted line runs of the region (not serialised).
	Runs []Range `json:"-"`
}

// MarshalJSON writes the result with pi's "summary" beside
// "compactedText" (the same text), so that clients written for pi's
// summary compaction read it.
func (r Result) MarshalJSON() ([]byte, error) {
	type plain Result
	return json.Marshal(struct {
		plain
		Summary string `json:"summary"`
	}{plain(r), r.CompactedText})
}

// Details are stored in the compaction entry.
type Details struct {
	Strategy      string        `json:"strategy"`
	PromptVersion int           `json:"promptVersion"`
	Parameters    Parameters    `json:"parameters"`
	Stats         Stats         `json:"stats"`
	Rung          string        `json:"rung"`
	PlannerModel  *PlannerModel `json:"plannerModel,omitempty"`
	BackupPath    string        `json:"backupPath,omitempty"`
}

// Details returns the entry details of a result.
func (r *Result) Details() *Details {
	return &Details{
		Strategy: Strategy, PromptVersion: r.PromptVersion, Parameters: r.Parameters,
		Stats: r.Stats, Rung: r.Rung, PlannerModel: r.PlannerModel, BackupPath: r.BackupPath,
	}
}

// newResult wraps a reconstruction of the preparation's region into a
// result with whole-context stats.
func newResult(p *Preparation, rec Reconstruction, rung string, keepTail bool) *Result {
	st := rec.Stats
	st.TokensBefore = p.TokensBefore
	if keepTail {
		st.TokensAfter += p.KeptTailTokens
	}
	st.PercentReduction = percentReduction(st.TokensBefore, st.TokensAfter)
	r := &Result{
		CompactedText: rec.Text, TokensBefore: p.TokensBefore, Stats: st,
		Parameters: p.Parameters, PromptVersion: PromptVersion, Rung: rung, Runs: rec.Runs,
	}
	if keepTail {
		r.FirstKeptEntryID = p.FirstKeptEntryID
	}
	return r
}

// FromExtension builds the result for compacted text an extension
// supplied. Extensions cannot move the first kept entry.
func FromExtension(p *Preparation, text string) *Result {
	kept := 1
	for i := 0; i < len(text); i++ {
		if text[i] == '\n' {
			kept++
		}
	}
	after := llm.EstimateTextTokens(text) + p.KeptTailTokens
	return &Result{
		CompactedText: text, FirstKeptEntryID: p.FirstKeptEntryID, TokensBefore: p.TokensBefore,
		Stats: Stats{
			LinesBefore: p.Region.Len(), LinesDeleted: max(0, p.Region.Len()-kept), LinesKept: kept,
			TokensBefore: p.TokensBefore, TokensAfter: after,
			PercentReduction: percentReduction(p.TokensBefore, after),
		},
		Parameters: p.Parameters, PromptVersion: PromptVersion, Rung: RungExtension,
	}
}
