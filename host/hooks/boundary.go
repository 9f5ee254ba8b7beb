package hooks

import (
	"context"
	"encoding/json"
	"errors"
)

// Boundary dispatches an actionable boundary of pi 1.6 (turn_end,
// agent_before_settle): each handler sees base's fields with the proposal
// so far ({entries, continue}) and a preview of the context built from
// it, and may return {entries?, continue?}; a field it returns replaces
// that field of the proposal, an omitted one keeps it. A failing handler
// is reported and the later ones still run. It returns the proposal: the
// drafts (as JSON, validated by the caller) and the continue decision.
func (b *Bus) Boundary(ctx context.Context, name string, base map[string]any, preview func(drafts []json.RawMessage) any) ([]json.RawMessage, bool) {
	drafts := []json.RawMessage{}
	cont := false
	for _, e := range b.handlers(name) {
		payload := make(map[string]any, len(base)+3)
		for k, v := range base {
			payload[k] = v
		}
		payload["entries"], payload["continue"] = drafts, cont
		if preview != nil {
			payload["context"] = preview(drafts)
		}
		raw, err := b.invoke(ctx, e, NewEvent(name, payload))
		if err == nil && truthy(raw) {
			var r struct {
				Entries  json.RawMessage `json:"entries"`
				Continue *bool           `json:"continue"`
			}
			if err = decodeObject(raw, &r); err == nil {
				if len(trimSpace(r.Entries)) > 0 && string(trimSpace(r.Entries)) != "null" {
					var list []json.RawMessage
					if json.Unmarshal(r.Entries, &list) != nil {
						err = errors.New("malformed result: entries must be an array")
					} else {
						drafts = list
					}
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
