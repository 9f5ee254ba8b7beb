package compaction

import (
	"context"
	"errors"
)

// Urgency says what happens when no planner succeeds.
type Urgency int

const (
	// Recoverable compactions (manual, threshold) fail and change nothing.
	Recoverable Urgency = iota
	// LoadBearing compactions (overflow recovery) must free context: when
	// planning fails they keep only the protected lines (rung "fresh").
	LoadBearing
)

// Planner makes one planner call. It should apply the normal retry policy
// for transient errors and report an aborted call with Reply.Aborted.
type Planner interface {
	Plan(ctx context.Context, req *PlanRequest) Reply
}

// PlannerFunc adapts a function to Planner.
type PlannerFunc func(ctx context.Context, req *PlanRequest) Reply

// Plan implements Planner.
func (f PlannerFunc) Plan(ctx context.Context, req *PlanRequest) Reply { return f(ctx, req) }

// Candidate is one model that may plan, in order of preference.
type Candidate struct {
	Planner Planner
	// Borrowed names the model when it is not the session model.
	Borrowed *PlannerModel
	// Unavailable, when set, is why this candidate is skipped (for example
	// missing credentials).
	Unavailable string
}

// RunOptions configure Run.
type RunOptions struct {
	Urgency    Urgency
	Candidates []Candidate
	// ContextWindow of the session model; a fresh rung keeps the tail only
	// if it fits (0: always keep it).
	ContextWindow int
	// AllowSmallRegion lets a load-bearing compaction of a region under
	// MinRegionLines go to the fresh rung instead of failing.
	AllowSmallRegion bool
	// OnOutcome, when set, sees every classified planner attempt.
	OnOutcome func(c Candidate, req *PlanRequest, o Outcome)
}

// RangePlanError is returned when no planner produced usable ranges for a
// recoverable compaction.
type RangePlanError struct {
	Message  string
	Outcomes []Outcome
}

func (e *RangePlanError) Error() string { return e.Message }

// NextOffset is the trimming ladder: after a planner overflow at offset,
// the next view drops half of what remains (at least one line). ok is
// false when nothing is left to trim.
func NextOffset(n, offset int) (int, bool) {
	rest := n - offset
	if rest <= 1 {
		return offset, false
	}
	next := offset + max(1, rest/2)
	if next >= n {
		return offset, false
	}
	return next, true
}

// Run plans and rebuilds a preparation's region: each candidate in turn,
// each with the trimming ladder on overflow, falling back to the fresh rung
// for load-bearing compactions.
func Run(ctx context.Context, p *Preparation, opt RunOptions) (*Result, error) {
	if p.TooSmall() {
		if opt.Urgency == LoadBearing && opt.AllowSmallRegion {
			return Fresh(p, opt.ContextWindow), nil
		}
		return nil, ErrTooSmall
	}
	var outcomes []Outcome
	tried := false
	for _, c := range opt.Candidates {
		if c.Unavailable != "" || c.Planner == nil {
			continue
		}
		tried = true
		ranges, out, err := planWithTrimming(ctx, c, p, opt)
		if err != nil {
			return nil, err
		}
		if ranges != nil {
			r := newResult(p, Reconstruct(p.Region, ranges), RungPlanned, true)
			r.PlannerModel = c.Borrowed
			return r, nil
		}
		outcomes = append(outcomes, out)
	}
	if opt.Urgency == LoadBearing {
		return Fresh(p, opt.ContextWindow), nil
	}
	msg := "No model available for compaction"
	if !tried {
		for _, c := range opt.Candidates {
			if c.Unavailable != "" {
				msg = c.Unavailable
				break
			}
		}
	}
	if n := len(outcomes); n > 0 {
		msg = outcomes[n-1].Message
	}
	return nil, &RangePlanError{Message: msg, Outcomes: outcomes}
}

// planWithTrimming asks one candidate, trimming the oldest lines after
// each overflow. It returns validated ranges against the whole region, or
// the last outcome when the candidate failed.
func planWithTrimming(ctx context.Context, c Candidate, p *Preparation, opt RunOptions) ([]Range, Outcome, error) {
	region := p.Region
	n := region.Len()
	offset := 0
	for {
		if err := ctx.Err(); err != nil {
			return nil, Outcome{}, ErrCancelled
		}
		view := region.View(offset)
		req := NewPlanRequest(view, offset, p.Parameters.CompressionRatio, p.Parameters.Query)
		out, err := Classify(c.Planner.Plan(ctx, req), view)
		if err == nil && ctx.Err() != nil {
			err = ErrCancelled
		}
		if err != nil {
			return nil, Outcome{}, err
		}
		if opt.OnOutcome != nil {
			opt.OnOutcome(c, req, out)
		}
		if out.OK() {
			return Shift(out.Ranges, offset, region), out, nil
		}
		if out.Kind != Overflowed {
			return nil, out, nil
		}
		next, ok := NextOffset(n, offset)
		if !ok {
			return nil, out, nil
		}
		offset = next
	}
}

// Shift maps ranges validated against the view at offset back onto the
// whole region, with the trimmed head deleted deterministically.
func Shift(ranges []Range, offset int, region *Region) []Range {
	raw := make([]Range, 0, len(ranges)+1)
	if offset > 0 {
		raw = append(raw, Range{1, offset})
	}
	for _, r := range ranges {
		raw = append(raw, Range{r.Start + offset, r.End + offset})
	}
	return Validate(raw, region)
}

// Fresh is the last resort of a load-bearing compaction: delete every
// unprotected line. The kept tail survives only if it fits the window.
func Fresh(p *Preparation, contextWindow int) *Result {
	rec := Reconstruct(p.Region, Validate([]Range{{1, p.Region.Len()}}, p.Region))
	keep := contextWindow <= 0 || p.KeptTailTokens <= contextWindow
	return newResult(p, rec, RungFresh, keep)
}

// IsCancelled reports whether err is a cancellation.
func IsCancelled(err error) bool {
	return errors.Is(err, ErrCancelled) || errors.Is(err, context.Canceled)
}
