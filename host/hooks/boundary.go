package hooks

import (
	"context"
	"encoding/json"
)

// Boundary dispatches an actionable boundary of pi 1.6 (turn_end,
// agent_before_settle): each handler sees the event payload(entries,
// cont) builds (TurnEndEvent or AgentBeforeSettleEvent, with the proposal
// so far and a preview of the context built from it), and may return a
// BoundaryResult; a field it returns replaces that field of the proposal,
// an omitted one keeps it. A failing handler is reported and the later
// ones still run. It returns the proposal: the drafts (as JSON, validated
// by the caller) and the continue decision.
func (b *Bus) Boundary(ctx context.Context, name string, payload func(entries []json.RawMessage, cont bool) any) ([]json.RawMessage, bool) {
	drafts := []json.RawMessage{}
	cont := false
	for _, e := range b.handlers(name) {
		raw, err := b.invoke(ctx, e, NewEvent(name, payload(drafts, cont)))
		if err == nil && truthy(raw) {
			var r BoundaryResult
			if err = decodeObject(raw, &r); err == nil {
				if r.Entries != nil {
					drafts = r.Entries
				}
				if r.Continue != nil {
					cont = *r.Continue
				}
			}
		}
		if err != nil && !isCancel(ctx, err) {
			b.report(e.e.sub, name, err)
		}
	}
	return drafts, cont
}
