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

// Retry defaults (settings retry.*).
const (
	defaultMaxRetries  = 3
	defaultBaseDelayMs = 2000
	defaultMaxDelayMs  = 60000
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

type retryPolicy struct {
	enabled    bool
	maxRetries int
	base, max  time.Duration
}

func (rt *Runtime) retryPolicy() retryPolicy {
	rt.mu.Lock()
	enabled := rt.autoRetry
	rt.mu.Unlock()
	s := rt.settings.Retry
	p := retryPolicy{enabled: enabled, maxRetries: s.MaxRetries,
		base: time.Duration(s.BaseDelayMs) * time.Millisecond, max: time.Duration(s.MaxDelayMs) * time.Millisecond}
	if p.maxRetries < 0 {
		p.maxRetries = 0
	}
	if s.BaseDelayMs <= 0 {
		p.base = defaultBaseDelayMs * time.Millisecond
	}
	if s.MaxDelayMs <= 0 {
		p.max = defaultMaxDelayMs * time.Millisecond
	}
	return p
}

// delay is the wait before retry attempt n (1-based): exponential backoff
// from the base delay, or what the server asked for. ok is false when the
// server asks for longer than the configured maximum.
func (p retryPolicy) delay(attempt int, serverAsked time.Duration) (time.Duration, bool) {
	if serverAsked > 0 {
		return serverAsked, serverAsked <= p.max
	}
	d := p.base
	for i := 1; i < attempt && d < p.max; i++ {
		d *= 2
	}
	return min(d, p.max), true
}

// runWithRetry runs the agent and, when the run ends on a transient
// provider error (overloaded, rate limited, a server error, a broken
// connection), drops the failed message from the context, waits with
// exponential backoff and continues the run, as many times as the retry
// settings allow. It emits auto_retry_start before each wait and
// auto_retry_end when the sequence ends. abort and abort_retry cancel the
// wait at once.
func (rt *Runtime) runWithRetry(run *activeRun, cfg *agent.Config, history, prompts []llm.Message) {
	r := rt.newRetrier(run, cfg)
	defer r.done()
	for {
		created := agent.Run(run.ctx, cfg, history, prompts)
		d, ok := r.plan(created)
		if !ok || !r.sleep(d) {
			return
		}
		rt.mu.Lock()
		history = append([]llm.Message(nil), rt.messages...)
		rt.mu.Unlock()
		prompts = nil
	}
}

// retrier carries one run's retry state. It is used from the run's
// goroutine only: instrument the config, then after each agent.Run call
// plan, and when plan says so, sleep and run again with no new prompts.
type retrier struct {
	rt      *Runtime
	run     *activeRun
	lastErr error      // the provider error of the latest call
	wait    *retryWait // the retry sequence in progress, nil when none
	policy  retryPolicy
	attempt int
	failed  string
}

// newRetrier wraps cfg.Stream to record provider errors (and pass the
// thinking budgets), and cfg.Emit to send auto_retry_end as soon as a
// retried response completes, before the rest of its turn.
func (rt *Runtime) newRetrier(run *activeRun, cfg *agent.Config) *retrier {
	r := &retrier{rt: rt, run: run}
	inner, provider := cfg.Stream, cfg.Provider
	budgets := rt.settings.ThinkingBudgets
	cfg.Stream = func(ctx context.Context, req *llm.Request, b *llm.Builder) (err error) {
		defer func() {
			if v := recover(); v != nil {
				err = fmt.Errorf("provider failed: %v", v)
			}
			r.lastErr = err
		}()
		req.ThinkingBudgets = budgets
		switch {
		case inner != nil:
			return inner(ctx, req, b)
		case provider != nil:
			return provider.Stream(ctx, req, b)
		}
		return fmt.Errorf("no model selected")
	}
	emit := cfg.Emit
	cfg.Emit = func(ev events.Event) {
		emit(ev)
		if end, ok := ev.(events.MessageEnd); ok && r.wait != nil && end.Message.Role == llm.RoleAssistant {
			switch end.Message.StopReason {
			case llm.StopError:
			case llm.StopAborted:
				rt.endRetry(r.wait, false, end.Message.ErrorMessage)
				r.wait = nil
			default:
				rt.endRetry(r.wait, true, "")
				r.wait = nil
			}
		}
	}
	return r
}

// plan looks at the messages a run created and decides whether to retry.
// When it does, it removes the failed message from the context (it stays
// in the session file) and returns the delay; otherwise it ends a retry
// sequence in progress with auto_retry_end.
func (r *retrier) plan(created []llm.Message) (time.Duration, bool) {
	rt := r.rt
	failed := lastAssistant(created)
	lastErr := r.lastErr
	r.lastErr = nil
	if failed == nil || failed.StopReason != llm.StopError {
		return 0, false
	}
	if r.run.ctx.Err() != nil {
		if r.wait != nil {
			rt.endRetry(r.wait, false, RetryCancelled)
			r.wait = nil
		}
		return 0, false
	}
	policy := rt.retryPolicy()
	window := 0
	if m := rt.currentModel(); m != nil {
		window = m.ContextWindow
	}
	retryable := policy.enabled && llm.IsTransient(lastErr, failed.ErrorMessage) && !llm.IsContextOverflow(failed, window)
	attempt := 1
	if r.wait != nil {
		attempt = r.wait.attempt + 1
	}
	d, ok := policy.delay(attempt, llm.RetryAfterOf(lastErr))
	if retryable && !ok {
		rt.log.Warn("not retrying: the provider asks to wait longer than retry.maxDelayMs", "delay", d, "maxDelay", policy.max)
	}
	if !retryable || !ok || attempt > policy.maxRetries || (r.wait != nil && r.wait.cancelled()) {
		if r.wait != nil {
			rt.endRetry(r.wait, false, failed.ErrorMessage)
			r.wait = nil
		}
		return 0, false
	}
	if r.wait == nil {
		r.wait = &retryWait{stop: make(chan struct{})}
	}
	r.wait.attempt = attempt
	r.policy, r.attempt, r.failed = policy, attempt, failed.ErrorMessage
	rt.mu.Lock()
	rt.prov.retry = r.wait
	if n := len(rt.messages); n > 0 && rt.messages[n-1].Role == llm.RoleAssistant && rt.messages[n-1].StopReason == llm.StopError {
		rt.messages = rt.messages[:n-1]
	}
	rt.mu.Unlock()
	return d, true
}

// sleep emits auto_retry_start and waits d. It returns false (after
// auto_retry_end) when abort or abort_retry ended the wait.
func (r *retrier) sleep(d time.Duration) bool {
	w := r.wait
	r.rt.Emit(events.AutoRetryStart{Attempt: r.attempt, MaxAttempts: r.policy.maxRetries, DelayMs: d.Milliseconds(), ErrorMessage: r.failed})
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
