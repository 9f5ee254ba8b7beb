package app

import (
	"context"
	"fmt"
	"time"

	"github.com/atomic-go/atomic/host/agent"
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
	retry    agent.RetryPolicy
	budgets  map[string]int
	reason   string
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
				ThinkingLevel: level, ThinkingBudgets: s.budgets, APIKey: s.apiKey, Headers: s.model.Headers,
				SessionID: session.NewID(),
			}
			b := llm.NewBuilder(s.model, nil)
			err := safeProviderStream(ctx, s.provider, lreq, b)
			msg := b.Finish(ctx, err)
			rep := compaction.Reply{
				Message: &msg, RetryScheduled: retried, Aborted: ctx.Err() != nil,
				Overflow: llm.IsContextOverflow(&msg, s.model.ContextWindow),
			}
			if msg.StopReason != llm.StopError || rep.Aborted || rep.Overflow {
				return rep
			}
			if !s.retry.Enabled || attempt >= s.retry.MaxRetries || !llm.IsTransient(err, msg.ErrorMessage) {
				return rep
			}
			d, ok := s.retry.Delay(attempt+1, llm.RetryAfterOf(err))
			if !ok {
				return rep
			}
			rt.Emit(events.SummarizationRetryScheduled{
				Attempt: attempt + 1, MaxAttempts: s.retry.MaxRetries, DelayMs: d.Milliseconds(), ErrorMessage: msg.ErrorMessage,
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
