package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/atomic-go/atomic/host/compaction"
	"github.com/atomic-go/atomic/host/events"
	"github.com/atomic-go/atomic/host/llm"
	"github.com/atomic-go/atomic/host/session"
	"github.com/atomic-go/atomic/internal/fsutil"
)

// Compaction error texts.
const (
	overflowUnresolvedText = "Context overflow recovery failed after one compact-and-retry attempt. The conversation still does not fit: start a new session, shorten the request, or switch to a model with a larger context window."
	noCompactedText        = "No compacted text provided by extension"
)

// compactionRun is one compaction in flight.
type compactionRun struct {
	reason string
	cancel context.CancelFunc
	done   chan struct{}
	ending bool // compaction_end is being emitted
	res    *compaction.Result
	err    error
	// set by compactNow (the compaction's goroutine)
	willRetry bool
	focus     string
	fromExt   bool // the text came from a session_before_compact handler
}

// compactionState is the runtime's compaction bookkeeping (guarded by
// rt.mu).
type compactionState struct {
	active *compactionRun
	hooks  CompactionHooks
	// afterBackup, when set (tests), runs between the backup and the
	// append; an error stops the compaction there, as a crash would.
	afterBackup func() error
}

// BeforeCompactEvent is what a session_before_compact handler sees (as
// hooks.SessionBeforeCompactEvent).
type BeforeCompactEvent struct {
	Reason             string
	Preparation        *compaction.Preparation
	CustomInstructions string
	WillRetry          bool
}

// BeforeCompactDecision is a session_before_compact handler's answer: cancel
// the compaction, or supply the compacted text (rung "extension").
type BeforeCompactDecision struct {
	Cancel        bool
	CompactedText *string
}

// CompactEvent is what a session_compact handler is told after a
// compaction was committed.
type CompactEvent struct {
	Reason          string
	Parameters      compaction.Parameters
	Result          *compaction.Result
	CompactionEntry *session.Entry
	FromExtension   bool
	WillRetry       bool
}

// CompactFailedEvent is what a session_compact_failed handler is told
// when a compaction failed or was cancelled.
type CompactFailedEvent struct {
	Reason        string
	ErrorMessage  string // not for a cancelled one
	Aborted       bool
	WillRetry     bool
	FromExtension bool
}

// CompactionHooks let the extension host take part in compaction. All are
// optional; errors of Before are logged and ignored.
type CompactionHooks struct {
	Before func(ctx context.Context, ev BeforeCompactEvent) (BeforeCompactDecision, error)
	After  func(ctx context.Context, ev CompactEvent)
	Failed func(ev CompactFailedEvent)
}

// SetCompactionHooks installs the extension seam for compaction.
func (rt *Runtime) SetCompactionHooks(h CompactionHooks) {
	rt.mu.Lock()
	rt.cmp.hooks = h
	rt.mu.Unlock()
}

// IsCompacting reports whether a compaction is running.
func (rt *Runtime) IsCompacting() bool {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	return rt.isCompactingLocked()
}

func (rt *Runtime) isCompactingLocked() bool { return rt.cmp.active != nil && !rt.cmp.active.ending }

// compactionDone returns a channel closed when the compaction in flight
// (if any) is over.
func (rt *Runtime) compactionDoneLocked() <-chan struct{} {
	if rt.cmp.active == nil {
		return nil
	}
	return rt.cmp.active.done
}

// AbortCompaction stops the compaction in flight, if any, and waits for it
// to end.
func (rt *Runtime) AbortCompaction() {
	rt.mu.Lock()
	c := rt.cmp.active
	rt.mu.Unlock()
	if c == nil {
		return
	}
	c.cancel()
	<-c.done
}

// Compact runs a manual compaction: the turn in flight is aborted first; a
// manual compaction already running is joined, an automatic one is taken
// over.
func (rt *Runtime) Compact(ctx context.Context) (*compaction.Result, error) {
	return rt.CompactWith(ctx, "")
}

// CompactWith is Compact with custom instructions (pi's
// customInstructions): when not blank they replace the relevance query the
// planner keeps lines for.
func (rt *Runtime) CompactWith(ctx context.Context, instructions string) (*compaction.Result, error) {
	rt.mu.Lock()
	c := rt.cmp.active
	rt.mu.Unlock()
	if c != nil {
		if c.reason == events.CompactionManual {
			<-c.done
			return c.res, c.err
		}
		c.cancel()
		<-c.done
	}
	rt.AbortRun()
	return rt.runCompactionFocus(ctx, events.CompactionManual, compaction.Recoverable, false, instructions)
}

// compactionParamsLocked are the effective compaction parameters.
func (rt *Runtime) compactionParamsLocked() compaction.Parameters {
	s := rt.settings.Compaction
	pr := s.PreserveRecent
	return compaction.Normalize(compaction.Settings{CompressionRatio: s.CompressionRatio, PreserveRecent: &pr, Query: s.Query})
}

// runCompaction runs one compaction with its start and end events.
func (rt *Runtime) runCompaction(parent context.Context, reason string, urgency compaction.Urgency, willRetry bool) (*compaction.Result, error) {
	return rt.runCompactionFocus(parent, reason, urgency, willRetry, "")
}

// runCompactionFocus is runCompaction with a relevance query that
// replaces the configured one when not blank.
func (rt *Runtime) runCompactionFocus(parent context.Context, reason string, urgency compaction.Urgency, willRetry bool, focus string) (*compaction.Result, error) {
	ctx, cancel := context.WithCancel(parent)
	c := &compactionRun{reason: reason, cancel: cancel, done: make(chan struct{}), willRetry: willRetry, focus: focus}
	rt.mu.Lock()
	rt.cmp.active = c
	failed := rt.cmp.hooks.Failed
	rt.mu.Unlock()
	rt.Emit(events.CompactionStart{Reason: reason})

	res, err := rt.compactNow(ctx, c, urgency)
	if err != nil && (ctx.Err() != nil || compaction.IsCancelled(err)) {
		err = compaction.ErrCancelled
	}
	c.res, c.err = res, err
	end := events.CompactionEnd{Reason: reason}
	switch {
	case err == nil:
		end.Result = res
		end.WillRetry = willRetry
	case errors.Is(err, compaction.ErrCancelled):
		end.Aborted = true
	default:
		end.ErrorMessage = err.Error()
		switch reason {
		case events.CompactionThreshold:
			end.ErrorMessage = "Automatic compaction failed: " + err.Error()
		case events.CompactionOverflow:
			end.ErrorMessage = "Context overflow recovery failed: " + err.Error()
		}
	}
	rt.mu.Lock()
	c.ending = true
	rt.mu.Unlock()
	rt.Emit(end)
	if err != nil && failed != nil {
		f := CompactFailedEvent{Reason: reason, Aborted: end.Aborted, WillRetry: willRetry, FromExtension: c.fromExt}
		if !f.Aborted {
			f.ErrorMessage = end.ErrorMessage
		}
		failed(f)
	}
	rt.mu.Lock()
	if rt.cmp.active == c {
		rt.cmp.active = nil
	}
	rt.mu.Unlock()
	cancel()
	close(c.done)
	return res, err
}

// backupLabel names the backup file of a compaction by its reason.
func backupLabel(reason string) string {
	switch reason {
	case events.CompactionThreshold:
		return "auto-compact"
	case events.CompactionOverflow:
		return "overflow-auto-compact"
	}
	return "compact"
}

// compactNow prepares, plans, persists and rebuilds the context.
func (rt *Runtime) compactNow(ctx context.Context, c *compactionRun, urgency compaction.Urgency) (*compaction.Result, error) {
	reason, focus := c.reason, c.focus
	rt.mu.Lock()
	sess, model, level := rt.sess, rt.model, rt.thinking
	params := rt.compactionParamsLocked()
	if f := strings.TrimSpace(focus); f != "" {
		params.Query = f
	}
	hooks := rt.cmp.hooks
	afterBackup := rt.cmp.afterBackup
	rt.mu.Unlock()
	policy := rt.retryPolicy()
	if model == nil {
		return nil, errors.New("No model selected.")
	}

	prep := compaction.Prepare(sess.Branch(""), params)
	if prep.TooSmall() {
		return nil, compaction.ErrTooSmall
	}

	var res *compaction.Result
	if hooks.Before != nil {
		dec, err := hooks.Before(ctx, BeforeCompactEvent{Reason: reason, Preparation: prep, CustomInstructions: strings.TrimSpace(focus), WillRetry: c.willRetry})
		switch {
		case err != nil:
			rt.log.Warn("session_before_compact failed", "error", err)
		case dec.Cancel:
			return nil, compaction.ErrCancelled
		case dec.CompactedText != nil:
			c.fromExt = true
			if strings.TrimSpace(*dec.CompactedText) == "" {
				return nil, errors.New(noCompactedText)
			}
			res = compaction.FromExtension(prep, *dec.CompactedText)
		}
	}
	if res == nil {
		cand := compaction.Candidate{}
		provider, perr := rt.catalog.ProviderFor(*model)
		key, ok := rt.catalog.Credential(model.Provider)
		switch {
		case perr != nil:
			cand.Unavailable = perr.Error()
		case !ok:
			cand.Unavailable = "No API key found for " + model.Provider + "."
		default:
			cand.Planner = rt.plannerFor(plannerSetup{model: *model, level: level, provider: provider, apiKey: key, retry: policy, budgets: rt.settings.ThinkingBudgets, reason: reason})
		}
		var err error
		res, err = compaction.Run(ctx, prep, compaction.RunOptions{
			Urgency: urgency, Candidates: []compaction.Candidate{cand}, ContextWindow: model.ContextWindow,
			OnOutcome: func(_ compaction.Candidate, req *compaction.PlanRequest, o compaction.Outcome) {
				if !o.OK() {
					rt.log.Info("compaction planner attempt failed", "outcome", o.Kind, "reason", o.Reason, "offset", req.Offset, "message", o.Message)
				}
			},
		})
		if err != nil {
			return nil, err
		}
	}
	if ctx.Err() != nil {
		return nil, compaction.ErrCancelled
	}

	backup, err := rt.backupSession(sess, backupLabel(reason))
	if err != nil {
		return nil, err
	}
	res.BackupPath = backup
	if afterBackup != nil {
		if err := afterBackup(); err != nil {
			return nil, err
		}
	}
	entry, err := rt.appendCompaction(sess, session.Entry{
		Type: session.TypeCompaction, Summary: res.CompactedText, FirstKeptEntryID: res.FirstKeptEntryID,
		TokensBefore: res.TokensBefore, Details: res.Details(),
	})
	if err != nil {
		return nil, err
	}
	rt.mu.Lock()
	if rt.sess == sess {
		rt.messages = nil
		rt.lazy = sess.Plan(rt.ctxRules)
	}
	rt.mu.Unlock()
	if hooks.After != nil {
		hooks.After(ctx, CompactEvent{
			Reason: reason, Parameters: res.Parameters, Result: res, CompactionEntry: entry,
			FromExtension: res.Rung == compaction.RungExtension, WillRetry: c.willRetry,
		})
	}
	return res, nil
}

// thresholdExceeded reports whether the context's size, as the newest
// successful assistant message reported it, is above the model's window
// minus the reserve.
func (rt *Runtime) thresholdExceeded() bool {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if !rt.autoCompact || rt.model == nil || rt.model.ContextWindow <= 0 {
		return false
	}
	limit := rt.model.ContextWindow - rt.settings.Compaction.ReserveTokens
	msgs := rt.contextLocked()
	for i := len(msgs) - 1; i >= 0; i-- {
		m := &msgs[i]
		if m.Role != llm.RoleAssistant {
			continue
		}
		if m.StopReason == llm.StopError || m.StopReason == llm.StopAborted {
			return false
		}
		return llm.ContextTokens(m.Usage) > limit
	}
	return false
}

// overflowed reports whether a run's final assistant message is a context
// overflow of the current model.
func (rt *Runtime) overflowed(last *llm.Message) bool {
	m, ok := rt.modelForMessage(last)
	return ok && llm.IsContextOverflow(last, m.ContextWindow)
}

// modelForMessage is the model whose limits judge an assistant message:
// the current one when it wrote the message, or under a virtual model the
// physical model the message names (as pi 1.6).
func (rt *Runtime) modelForMessage(msg *llm.Message) (llm.Model, bool) {
	cur := rt.currentModel()
	switch {
	case cur == nil:
		return llm.Model{}, false
	case cur.API == llm.APIVirtual:
		return rt.catalog.Find(msg.Provider, msg.Model)
	case msg.Provider == cur.Provider && msg.Model == cur.ID:
		return *cur, true
	}
	return llm.Model{}, false
}

// compactOverThreshold compacts when the context is over the threshold
// (before a prompt and after a run).
func (rt *Runtime) compactOverThreshold(run *activeRun) {
	if run.ctx.Err() == nil && rt.thresholdExceeded() {
		_, _ = rt.runCompaction(run.ctx, events.CompactionThreshold, compaction.Recoverable, false)
	}
}

// overflowRecovery is the compact-and-retry of one prompt whose run
// overflowed the model's context: at most once per prompt.
type overflowRecovery struct {
	tried bool
	// what the last run's end asked for
	retry       bool // compact, then retry the turn (the run stays active)
	compactOnly bool // compact without retry (an overflow reported with a normal stop)
	unresolved  bool // a second overflow: report it
	// failed is the overflowed message the retry replaces (a virtual
	// model's route() sees the retry as pi's "retry" of it).
	failed *llm.Message
}

// begin decides, as agent_end is about to go out, what the run's end
// means for overflow recovery. It returns true when the run must stay
// active for a retry (a prompt sent meanwhile is then queued).
func (o *overflowRecovery) begin(rt *Runtime, run *activeRun, created []llm.Message) bool {
	o.retry, o.compactOnly, o.unresolved = false, false, false
	last := lastAssistant(created)
	if run.ctx.Err() != nil || last == nil || !rt.autoCompactEnabled() || !rt.overflowed(last) {
		return false
	}
	switch {
	case o.tried:
		o.unresolved = true
	case last.StopReason == llm.StopStop:
		o.tried, o.compactOnly = true, true
	default:
		fm := *last
		o.tried, o.retry, o.failed = true, true, &fm
	}
	return o.retry
}

// after acts on begin's decision once the run's agent_end is out. It
// returns true when the turn is to be retried on the compacted context;
// o.retry stays set when a retry was planned but cannot happen.
func (o *overflowRecovery) after(rt *Runtime, run *activeRun) bool {
	switch {
	case o.unresolved:
		rt.Emit(events.CompactionEnd{Reason: events.CompactionOverflow, UnresolvedOverflow: true, ErrorMessage: overflowUnresolvedText})
	case o.compactOnly:
		_, _ = rt.runCompaction(run.ctx, events.CompactionOverflow, compaction.LoadBearing, false)
	case o.retry:
		_, err := rt.runCompaction(run.ctx, events.CompactionOverflow, compaction.LoadBearing, true)
		if err == nil && run.ctx.Err() == nil {
			o.retry = false
			return true
		}
	}
	o.compactOnly, o.unresolved = false, false
	return false
}

func (rt *Runtime) autoCompactEnabled() bool {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	return rt.autoCompact
}

// backupSession copies the session file before a compaction is appended,
// to <file>.<timestamp>.<label>.bak. It returns "" for a session that has
// no file yet.
func (rt *Runtime) backupSession(sess *session.Session, label string) (string, error) {
	if !sess.Persisted() || !sess.Saved() {
		return "", nil
	}
	src := sess.Path()
	stamp := strings.NewReplacer(":", "-", ".", "-").Replace(session.Timestamp(time.Now()))
	dst := src + "." + stamp + "." + label + ".bak"
	if err := copyFile(src, dst); err != nil {
		return "", fmt.Errorf("cannot back up the session file before compacting: %w", err)
	}
	return dst, nil
}

// copyFile copies the regular file src to a new file dst (mode 0600,
// never replacing anything) and syncs it.
func copyFile(src, dst string) error {
	in, _, err := fsutil.OpenRegular(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		os.Remove(dst)
		return err
	}
	if err := out.Sync(); err != nil {
		out.Close()
		os.Remove(dst)
		return err
	}
	return out.Close()
}

// appendCompaction appends the compaction entry. A failed write is logged:
// the entry stays in the session and is written with the next append.
func (rt *Runtime) appendCompaction(sess *session.Session, e session.Entry) (*session.Entry, error) {
	ep, err := sess.AppendEntry(e)
	if err != nil {
		rt.log.Error("cannot write the compaction entry; it is kept in memory and written with the next entry", "file", sess.Path(), "err", err)
	}
	return ep, nil
}
