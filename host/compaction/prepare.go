package compaction

import (
	"strings"

	"github.com/atomic-go/atomic/host/llm"
	"github.com/atomic-go/atomic/host/session"
)

// Preparation is everything a compaction needs before the planner runs.
// Its JSON form is what session_before_compact handlers receive.
type Preparation struct {
	// FirstKeptEntryID is the first entry of the kept tail (nil when no
	// message is kept outside the compacted text).
	FirstKeptEntryID     *string    `json:"firstKeptEntryId"`
	Region               *Region    `json:"region"`
	RegionEntryIDs       []string   `json:"regionEntryIds"`
	KeptTailMessageCount int        `json:"keptTailMessageCount"`
	TokensBefore         int        `json:"tokensBefore"`
	KeptTailTokens       int        `json:"keptTailTokens"`
	Parameters           Parameters `json:"parameters"`
}

// TooSmall reports whether the region is below the size worth compacting.
func (p *Preparation) TooSmall() bool { return p.Region.Len() < MinRegionLines }

// ErrTooSmall is the error of a manual compaction of a tiny session.
var ErrTooSmall = errorString("Nothing to compact (session too small)")

type errorString string

func (e errorString) Error() string { return string(e) }

// Prepare computes the region of a branch (root first): everything since
// the newest verbatim-lines compaction (from its first kept entry, so its
// tail is ranked again), minus exactly the newest PreserveRecent
// context-visible messages. The previous compacted text is ranked with it.
func Prepare(branch []*session.Entry, params Parameters) *Preparation {
	items := normalize(branch)
	regionStart, prevSummary := 0, ""
	if b := LastBoundary(branch); b >= 0 {
		prev := branch[b]
		prevSummary = prev.Summary
		regionStart = b + 1
		if prev.FirstKeptEntryID != nil {
			if k := indexOf(branch, *prev.FirstKeptEntryID, b); k >= 0 {
				regionStart = k
			}
		}
	}
	vis := make([]item, 0, len(items))
	for _, it := range items {
		if it.Pos >= regionStart && visible(&it.Msg) {
			vis = append(vis, it)
		}
	}
	tailStart := max(0, len(vis)-params.PreserveRecent)
	region, tail := vis[:tailStart], vis[tailStart:]

	msgs := make([]llm.Message, len(region))
	ids := make([]string, 0, len(region))
	for i, it := range region {
		msgs[i] = it.Msg
		if it.Entry != nil && (len(ids) == 0 || ids[len(ids)-1] != it.Entry.ID) {
			ids = append(ids, it.Entry.ID)
		}
	}
	var parts []string
	if prevSummary != "" {
		parts = append(parts, prevSummary)
	}
	if s := Serialize(msgs); s != "" {
		parts = append(parts, s)
	}
	p := &Preparation{
		Region:               NewRegion(strings.Join(parts, "\n")),
		RegionEntryIDs:       ids,
		KeptTailMessageCount: len(tail),
		TokensBefore:         contextTokens(branch),
		Parameters:           params,
	}
	for _, it := range tail {
		if p.FirstKeptEntryID == nil && it.Entry != nil {
			id := it.Entry.ID
			p.FirstKeptEntryID = &id
		}
		p.KeptTailTokens += llm.EstimateTokens(&it.Msg)
	}
	if p.Parameters.Query == "" {
		p.Parameters.Query = latestRequest(vis)
	}
	return p
}

// latestRequest is the text of the newest message that opens a user turn,
// or AutoQuery.
func latestRequest(vis []item) string {
	for i := len(vis) - 1; i >= 0; i-- {
		m := &vis[i].Msg
		if !startsUserTurn(m) {
			continue
		}
		if t := strings.TrimSpace(userContent(m).JoinText("")); t != "" {
			return t
		}
	}
	return AutoQuery
}

// contextTokens is EstimateContextTokens of the branch's context, computed
// from the newest entries backwards without building the context.
func contextTokens(branch []*session.Entry) int {
	b := LastBoundary(branch)
	total := 0
	for i := len(branch) - 1; i > b; i-- {
		m, ok := entryMessage(branch[i])
		if !ok {
			continue
		}
		if llm.ReportsContext(&m) {
			return total + llm.ContextTokens(m.Usage)
		}
		total += llm.EstimateTokens(&m)
	}
	if b >= 0 {
		bm := BoundaryMessage(branch[b], keptEntries(branch, b))
		total += llm.EstimateTokens(&bm)
	}
	return total
}
