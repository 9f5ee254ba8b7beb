package hooks

import (
	"context"
	"fmt"
)

// The answers of a project_trust handler (ProjectTrustResult.Trusted).
const (
	TrustYes       = "yes"
	TrustNo        = "no"
	TrustUndecided = "undecided"
)

// ProjectTrust dispatches project_trust as pi 1.6 does: handlers are asked
// in load order until one answers "yes" or "no"; "undecided" asks the next
// one. A handler that fails, times out or returns nothing is reported and
// the next one is asked. It fails closed: an answer that is not one of the
// three words (or not an object) decides "no", and is reported. ok is false
// when no handler decided.
func (b *Bus) ProjectTrust(ctx context.Context, ev ProjectTrustEvent) (r ProjectTrustResult, ok bool) {
	cur := NewEvent(ProjectTrust, ev)
	for _, e := range b.handlers(ProjectTrust) {
		raw, err := b.invoke(ctx, e, cur)
		if err == nil && !truthy(raw) {
			err = fmt.Errorf("a project_trust handler must return {trusted: \"yes\" | \"no\" | \"undecided\"}")
		}
		if err != nil {
			if !isCancel(ctx, err) {
				b.report(e.e.sub, ProjectTrust, err)
			}
			continue
		}
		var got ProjectTrustResult
		if err := decodeObject(raw, &got); err != nil {
			b.report(e.e.sub, ProjectTrust, fmt.Errorf("%w; taken as \"no\"", err))
			return ProjectTrustResult{Trusted: TrustNo}, true
		}
		switch got.Trusted {
		case TrustUndecided:
			continue
		case TrustYes, TrustNo:
			return got, true
		}
		b.report(e.e.sub, ProjectTrust, fmt.Errorf("project_trust answered trusted %q; taken as \"no\"", got.Trusted))
		return ProjectTrustResult{Trusted: TrustNo, Remember: got.Remember}, true
	}
	return ProjectTrustResult{}, false
}
