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
	var lastErr error
	inner, provider := cfg.Stream, cfg.Provider
	budgets := rt.settings.ThinkingBudgets
	cfg.Stream = func(ctx context.Context, req *llm.Request, b *llm.Builder) (err error) {
		defer func() {
			if v := recover(); v != nil {
				err = fmt.Errorf("provider failed: %v", v)
			}
			lastErr = err
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

	// auto_retry_end for a success is sent as soon as the retried
	// response completes, before the rest of its turn.
	var wait *retryWait
	emit := cfg.Emit
	cfg.Emit = func(ev events.Event) {
		emit(ev)
		if end, ok := ev.(events.MessageEnd); ok && wait != nil && end.Message.Role == llm.RoleAssistant {
			switch end.Message.StopReason {
			case llm.StopError:
			case llm.StopAborted:
				rt.endRetry(wait, false, end.Message.ErrorMessage)
				wait = nil
			default:
				rt.endRetry(wait, true, "")
				wait = nil
			}
		}
	}
	defer func() {
		rt.mu.Lock()
		if rt.prov.retry != nil && rt.prov.retry == wait {
			rt.prov.retry = nil
		}
		rt.mu.Unlock()
	}()

	for {
		lastErr = nil
		created := agent.Run(run.ctx, cfg, history, prompts)
		failed := lastAssistant(created)
		if failed == nil || failed.StopReason != llm.StopError {
			return
		}
		if run.ctx.Err() != nil {
			if wait != nil {
				rt.endRetry(wait, false, RetryCancelled)
			}
			return
		}
		policy := rt.retryPolicy()
		window := 0
		if m := rt.currentModel(); m != nil {
			window = m.ContextWindow
		}
		retryable := policy.enabled && llm.IsTransient(lastErr, failed.ErrorMessage) && !llm.IsContextOverflow(failed, window)
		attempt := 1
		if wait != nil {
			attempt = wait.attempt + 1
		}
		d, ok := policy.delay(attempt, llm.RetryAfterOf(lastErr))
		if retryable && !ok {
			rt.log.Warn("not retrying: the provider asks to wait longer than retry.maxDelayMs", "delay", d, "maxDelay", policy.max)
		}
		if !retryable || !ok || attempt > policy.maxRetries || (wait != nil && wait.cancelled()) {
			if wait != nil {
				rt.endRetry(wait, false, failed.ErrorMessage)
			}
			return
		}
		if wait == nil {
			wait = &retryWait{stop: make(chan struct{})}
		}
		wait.attempt = attempt
		rt.mu.Lock()
		rt.prov.retry = wait
		// The failed message stays in the session file but leaves the
		// context the next attempt sees.
		if n := len(rt.messages); n > 0 && rt.messages[n-1].Role == llm.RoleAssistant && rt.messages[n-1].StopReason == llm.StopError {
			rt.messages = rt.messages[:n-1]
		}
		history = append([]llm.Message(nil), rt.messages...)
		rt.mu.Unlock()
		prompts = nil
		rt.Emit(events.AutoRetryStart{Attempt: attempt, MaxAttempts: policy.maxRetries, DelayMs: d.Milliseconds(), ErrorMessage: failed.ErrorMessage})
		timer := time.NewTimer(d)
		select {
		case <-timer.C:
		case <-wait.stop:
		case <-run.ctx.Done():
		}
		timer.Stop()
		if wait.cancelled() || run.ctx.Err() != nil {
			rt.endRetry(wait, false, RetryCancelled)
			return
		}
	}
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
