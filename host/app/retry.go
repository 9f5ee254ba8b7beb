package app

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/atomic-go/atomic/host/agent"
	"github.com/atomic-go/atomic/host/events"
	"github.com/atomic-go/atomic/host/llm"
)

// RetryCancelled is the finalError of a retry stopped by abort_retry or
// abort.
const RetryCancelled = "Retry cancelled"

// retryWait is a retry sequence in progress; abort_retry closes stop.
type retryWait struct {
	stop    chan struct{}
	once    sync.Once
	attempt int
}

func (w *retryWait) cancel() { w.once.Do(func() { close(w.stop) }) }

func (w *retryWait) cancelled() bool {
	select {
	case <-w.stop:
		return true
	default:
		return false
	}
}

// retryPolicy is the retry policy of the settings and the session's
// auto-retry switch.
func (rt *Runtime) retryPolicy() agent.RetryPolicy {
	rt.mu.Lock()
	enabled := rt.autoRetry
	rt.mu.Unlock()
	s := rt.settings.Retry
	return agent.NewRetryPolicy(enabled, s.MaxRetries, s.BaseDelayMs, s.MaxDelayMs)
}

// retrier runs automatic retry for one run: when a round of the agent
// ends on a transient provider error (overloaded, rate limited, a server
// error, a broken connection) it drops the failed message from the
// context, waits with exponential backoff and has the run go on, as many
// times as the retry settings allow. It emits auto_retry_start before each
// wait and auto_retry_end when the sequence ends. abort and abort_retry
// cancel the wait at once.
//
// It is used from the run's goroutine: instrument each round's config,
// pass every event to observe, call plan at agent_end (before it goes out)
// and flush after the round; when plan said so, sleep and run the next
// round with no new prompts.
type retrier struct {
	rt      *Runtime
	run     *activeRun
	lastErr error      // the provider error of the latest call
	wait    *retryWait // the retry sequence in progress, nil when none
	policy  agent.RetryPolicy
	attempt int
	failed  string
	// failedMsg is the message the next request retries (taken by it).
	failedMsg *llm.Message
	// lastLevel is the thinking level the latest request went out with
	// (after a virtual model's routing); failedLevel is failedMsg's.
	lastLevel, failedLevel string
	pending                *events.AutoRetryEnd // decided at agent_end, sent after it
}

func (rt *Runtime) newRetrier(run *activeRun) *retrier { return &retrier{rt: rt, run: run} }

type loopKey struct{}

// loopRequest marks a request of the agent loop (the others are
// "direct": compaction summaries, extensions' model calls); failed is
// the message it retries automatically, if any, and failedLevel the
// thinking level that message was asked with. level is the thinking
// level the request goes out with, set by a virtual model's routing.
type loopRequest struct {
	failed             *llm.Message
	failedLevel, level string
}

func withLoopRequest(ctx context.Context, failed *llm.Message, failedLevel string) (context.Context, *loopRequest) {
	l := &loopRequest{failed: failed, failedLevel: failedLevel}
	return context.WithValue(ctx, loopKey{}, l), l
}

// loopRequestOf is the loop's mark of a request, or nil for a direct one.
func loopRequestOf(ctx context.Context) *loopRequest {
	l, _ := ctx.Value(loopKey{}).(*loopRequest)
	return l
}

// instrument wraps cfg.Stream to record provider errors and pass the
// thinking budgets.
func (r *retrier) instrument(cfg *agent.Config) {
	inner, provider := cfg.Stream, cfg.Provider
	budgets := r.rt.settings.ThinkingBudgets
	cfg.Stream = func(ctx context.Context, req *llm.Request, b *llm.Builder) (err error) {
		defer func() {
			if v := recover(); v != nil {
				err = fmt.Errorf("provider failed: %v", v)
			}
			r.lastErr = err
		}()
		req.ThinkingBudgets = budgets
		// The first request after a planned retry is the retry.
		var loop *loopRequest
		ctx, loop = withLoopRequest(ctx, r.failedMsg, r.failedLevel)
		r.failedMsg, r.failedLevel = nil, ""
		loop.level = req.ThinkingLevel
		defer func() { r.lastLevel = loop.level }()
		switch {
		case inner != nil:
			return inner(ctx, req, b)
		case provider != nil:
			return provider.Stream(ctx, req, b)
		}
		return fmt.Errorf("no model selected")
	}
}

// observe sends auto_retry_end as soon as a retried response completes,
// before the rest of its turn.
func (r *retrier) observe(ev events.Event) {
	end, ok := ev.(events.MessageEnd)
	if !ok || r.wait == nil || end.Message.Role != llm.RoleAssistant {
		return
	}
	switch end.Message.StopReason {
	case llm.StopError:
	case llm.StopAborted:
		r.rt.endRetry(r.wait, false, end.Message.ErrorMessage)
		r.wait = nil
	default:
		r.rt.endRetry(r.wait, true, "")
		r.wait = nil
	}
}

// plan looks at the messages a round created and decides whether to
// retry. When it does, it removes the failed message from the context (it
// stays in the session file) and returns the delay; otherwise a retry
// sequence in progress ends (its auto_retry_end goes out with flush).
func (r *retrier) plan(created []llm.Message) (time.Duration, bool) {
	rt := r.rt
	failed := lastAssistant(created)
	lastErr := r.lastErr
	r.lastErr = nil
	if failed == nil || failed.StopReason != llm.StopError {
		return 0, false
	}
	if r.run.ctx.Err() != nil {
		r.finish(RetryCancelled)
		return 0, false
	}
	policy := rt.retryPolicy()
	window := 0
	if m, ok := rt.modelForMessage(failed); ok {
		window = m.ContextWindow
	} else if m := rt.currentModel(); m != nil {
		window = m.ContextWindow
	}
	retryable := policy.Enabled && llm.IsTransient(lastErr, failed.ErrorMessage) && !llm.IsContextOverflow(failed, window)
	attempt := 1
	if r.wait != nil {
		attempt = r.wait.attempt + 1
	}
	d, ok := policy.Delay(attempt, llm.RetryAfterOf(lastErr))
	if retryable && !ok {
		rt.log.Warn("not retrying: the provider asks to wait longer than retry.maxDelayMs", "delay", d, "maxDelay", policy.Max)
	}
	if !retryable || !ok || attempt > policy.MaxRetries || (r.wait != nil && r.wait.cancelled()) {
		r.finish(failed.ErrorMessage)
		return 0, false
	}
	if r.wait == nil {
		r.wait = &retryWait{stop: make(chan struct{})}
	}
	r.wait.attempt = attempt
	r.policy, r.attempt, r.failed = policy, attempt, failed.ErrorMessage
	fm := *failed
	r.failedMsg, r.failedLevel = &fm, r.lastLevel
	rt.mu.Lock()
	rt.prov.retry = r.wait
	if msgs := rt.contextLocked(); len(msgs) > 0 && msgs[len(msgs)-1].Role == llm.RoleAssistant && msgs[len(msgs)-1].StopReason == llm.StopError {
		rt.messages = msgs[:len(msgs)-1]
	}
	rt.mu.Unlock()
	return d, true
}

// finish ends a retry sequence in progress as failed; the event is sent
// by flush.
func (r *retrier) finish(finalError string) {
	if r.wait == nil {
		return
	}
	r.rt.mu.Lock()
	if r.rt.prov.retry == r.wait {
		r.rt.prov.retry = nil
	}
	r.rt.mu.Unlock()
	if finalError == "" {
		finalError = "Retry failed"
	}
	r.pending = &events.AutoRetryEnd{Success: false, Attempt: r.wait.attempt, FinalError: finalError}
	r.wait = nil
}

// flush sends an auto_retry_end decided by plan.
func (r *retrier) flush() {
	if r.pending != nil {
		r.rt.Emit(*r.pending)
		r.pending = nil
	}
}

// sleep emits auto_retry_start and waits d. It returns false (after
// auto_retry_end) when abort or abort_retry ended the wait.
func (r *retrier) sleep(d time.Duration) bool {
	w := r.wait
	r.rt.Emit(events.AutoRetryStart{Attempt: r.attempt, MaxAttempts: r.policy.MaxRetries, DelayMs: d.Milliseconds(), ErrorMessage: r.failed})
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
	case <-w.stop:
	case <-r.run.ctx.Done():
	}
	if w.cancelled() || r.run.ctx.Err() != nil {
		r.rt.endRetry(w, false, RetryCancelled)
		r.wait = nil
		return false
	}
	return true
}

// done forgets a retry sequence the run leaves behind.
func (r *retrier) done() {
	r.rt.mu.Lock()
	if r.wait != nil && r.rt.prov.retry == r.wait {
		r.rt.prov.retry = nil
	}
	r.rt.mu.Unlock()
}

func (rt *Runtime) endRetry(w *retryWait, success bool, finalError string) {
	rt.mu.Lock()
	if rt.prov.retry == w {
		rt.prov.retry = nil
	}
	rt.mu.Unlock()
	ev := events.AutoRetryEnd{Success: success, Attempt: w.attempt}
	if !success {
		ev.FinalError = finalError
		if ev.FinalError == "" {
			ev.FinalError = "Retry failed"
		}
	}
	rt.Emit(ev)
}

func lastAssistant(msgs []llm.Message) *llm.Message {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == llm.RoleAssistant {
			return &msgs[i]
		}
	}
	return nil
}

func (rt *Runtime) currentModel() *llm.Model {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if rt.model == nil {
		return nil
	}
	m := *rt.model
	return &m
}

// AbortRetry cancels a retry in progress: the wait ends at once and no
// further attempt is made. It does nothing when no retry is in progress.
func (rt *Runtime) AbortRetry() {
	rt.mu.Lock()
	w := rt.prov.retry
	rt.mu.Unlock()
	if w != nil {
		w.cancel()
	}
}
