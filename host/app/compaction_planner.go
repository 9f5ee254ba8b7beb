package app

import (
	"context"
	"fmt"
	"time"

	"github.com/atomic-go/atomic/host/compaction"
	"github.com/atomic-go/atomic/host/events"
	"github.com/atomic-go/atomic/host/llm"
	"github.com/atomic-go/atomic/host/session"
)

// plannerSetup is what a compaction planner call needs from the session.
type plannerSetup struct {
	model    llm.Model
	level    string
	provider llm.Provider
	apiKey   string
	retry    retryPolicy
	reason   string
}

// retryPolicy is the automatic retry configuration of provider calls.
type retryPolicy struct {
	enabled    bool
	maxRetries int
	base, max  time.Duration
}

func (rt *Runtime) retryPolicyLocked() retryPolicy {
	r := rt.settings.Retry
	return retryPolicy{
		enabled: rt.autoRetry, maxRetries: r.MaxRetries,
		base: time.Duration(r.BaseDelayMs) * time.Millisecond, max: time.Duration(r.MaxDelayMs) * time.Millisecond,
	}
}

// delay is the wait before retry attempt n (1-based): exponential from the
// base delay, or the server's Retry-After, capped at the maximum.
func (p retryPolicy) delay(n int, err error) time.Duration {
	d := p.base << (n - 1)
	if ra := retryAfterOf(err); ra > 0 {
		d = ra
	}
	if p.max > 0 && d > p.max {
		d = p.max
	}
	if d < 0 {
		d = 0
	}
	return d
}

// plannerFor returns the session model's planner for one compaction. It
// goes through the same provider and retry settings as normal turns, with
// a fresh session id per call and no output limit; transient errors are
// retried with summarization_retry_* events.
func (rt *Runtime) plannerFor(s plannerSetup) compaction.Planner {
	return compaction.PlannerFunc(func(ctx context.Context, req *compaction.PlanRequest) compaction.Reply {
		level := s.level
		if !s.model.Reasoning || level == "" {
			level = llm.ThinkingOff
		}
		retried := false
		defer func() {
			if retried {
				rt.Emit(events.SummarizationRetryFinished{})
			}
		}()
		for attempt := 0; ; attempt++ {
			lreq := &llm.Request{
				Model: s.model, SystemPrompt: req.SystemPrompt, Messages: llm.ToProviderMessages(req.Messages()),
				ThinkingLevel: level, APIKey: s.apiKey, Headers: s.model.Headers, SessionID: session.NewID(),
			}
			b := llm.NewBuilder(s.model, nil)
			err := safeProviderStream(ctx, s.provider, lreq, b)
			msg := b.Finish(ctx, err)
			rep := compaction.Reply{
				Message: &msg, RetryScheduled: retried, Aborted: ctx.Err() != nil,
				Overflow: isContextOverflow(&msg, s.model.ContextWindow),
			}
			if msg.StopReason != llm.StopError || rep.Aborted || rep.Overflow {
				return rep
			}
			if !s.retry.enabled || attempt >= s.retry.maxRetries || !isTransient(err, msg.ErrorMessage) {
				return rep
			}
			d := s.retry.delay(attempt+1, err)
			rt.Emit(events.SummarizationRetryScheduled{
				Attempt: attempt + 1, MaxAttempts: s.retry.maxRetries, DelayMs: d.Milliseconds(), ErrorMessage: msg.ErrorMessage,
			})
			retried = true
			t := time.NewTimer(d)
			select {
			case <-ctx.Done():
				t.Stop()
				return compaction.Reply{Message: &msg, Aborted: true, RetryScheduled: true}
			case <-t.C:
			}
			rt.Emit(events.SummarizationRetryAttemptStart{Source: "compaction", Reason: s.reason})
		}
	})
}

// safeProviderStream turns a provider panic into an error.
func safeProviderStream(ctx context.Context, p llm.Provider, req *llm.Request, b *llm.Builder) (err error) {
	if p == nil {
		return fmt.Errorf("no provider for model %s", req.Model.ID)
	}
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("provider failed: %v", v)
		}
	}()
	return p.Stream(ctx, req, b)
}
