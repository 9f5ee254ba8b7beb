package app

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/atomic-go/atomic/host/events"
	"github.com/atomic-go/atomic/host/hooks"
	"github.com/atomic-go/atomic/host/llm"
	"github.com/atomic-go/atomic/host/session"
)

// The actionable boundaries of pi 1.6 (agent_before_settle): extensions
// propose session entries (drafts) and whether the agent goes on with
// one more request. The proposal is validated as a whole before any of
// it is appended, in order.

// boundaryDraft is one proposed entry (pi's SessionBoundaryDraft).
type boundaryDraft struct {
	Type             string          `json:"type"`
	CustomType       string          `json:"customType"`
	Data             json.RawMessage `json:"data"`
	Content          json.RawMessage `json:"content"`
	Display          *bool           `json:"display"`
	Details          json.RawMessage `json:"details"`
	TargetID         string          `json:"targetId"`
	Replacement      json.RawMessage `json:"replacement"`
	Summary          *string         `json:"summary"`
	FirstKeptEntryID *string         `json:"firstKeptEntryId"`
}

// decodeDrafts validates a proposal: every draft of a known type with its
// fields, a context_edit's target on the session's branch.
func decodeDrafts(sess *session.Session, raws []json.RawMessage) ([]boundaryDraft, error) {
	out := make([]boundaryDraft, 0, len(raws))
	var branch map[string]bool // read only for a draft that names an entry
	onBranch := func(id string) bool {
		if branch == nil {
			branch = map[string]bool{}
			for _, e := range sess.Branch("") {
				branch[e.ID] = true
			}
		}
		return branch[id]
	}
	for i, raw := range raws {
		var d boundaryDraft
		if err := json.Unmarshal(raw, &d); err != nil {
			return nil, fmt.Errorf("entry %d: %v", i, err)
		}
		switch d.Type {
		case session.TypeCustom:
			if d.CustomType == "" {
				return nil, fmt.Errorf("entry %d (custom): customType must be a non-empty string", i)
			}
		case session.TypeCustomMessage:
			if d.CustomType == "" {
				return nil, fmt.Errorf("entry %d (custom_message): customType must be a non-empty string", i)
			}
			var c llm.Content
			if len(d.Content) == 0 || json.Unmarshal(d.Content, &c) != nil {
				return nil, fmt.Errorf("entry %d (custom_message): content must be a string or an array of text and image blocks", i)
			}
		case session.TypeContextEdit:
			if !onBranch(d.TargetID) {
				return nil, fmt.Errorf("entry %d (context_edit): targetId %q is not an entry of the current branch", i, d.TargetID)
			}
			if len(d.Replacement) == 0 {
				return nil, fmt.Errorf("entry %d (context_edit): replacement must be null or {content}", i)
			}
		case session.TypeCompaction:
			if d.Summary == nil {
				return nil, fmt.Errorf("entry %d (compaction): summary must be a string", i)
			}
			if d.FirstKeptEntryID != nil && !onBranch(*d.FirstKeptEntryID) {
				return nil, fmt.Errorf("entry %d (compaction): firstKeptEntryId %q is not an entry of the current branch", i, *d.FirstKeptEntryID)
			}
		default:
			return nil, fmt.Errorf("entry %d: type %q is not one a boundary may append (custom, custom_message, context_edit, compaction)", i, d.Type)
		}
		out = append(out, d)
	}
	return out, nil
}

// entry is the session entry a validated draft becomes (a custom
// message is kept as a message entry of role custom, as every custom
// message of the agent).
func (d *boundaryDraft) entry() session.Entry {
	var details any
	if len(d.Details) > 0 {
		_ = json.Unmarshal(d.Details, &details)
	}
	switch d.Type {
	case session.TypeCustom:
		var v any
		if len(d.Data) > 0 {
			_ = json.Unmarshal(d.Data, &v)
		}
		return session.Entry{Type: session.TypeCustom, CustomType: d.CustomType, Data: v}
	case session.TypeCustomMessage:
		var c llm.Content
		_ = json.Unmarshal(d.Content, &c)
		msg := customMessage(hooks.CustomMessage{CustomType: d.CustomType, Content: c, Display: d.Display != nil && *d.Display, Details: details})
		return session.Entry{Type: session.TypeMessage, Message: &msg}
	case session.TypeContextEdit:
		return session.Entry{Type: session.TypeContextEdit, TargetID: d.TargetID, Extra: map[string]json.RawMessage{"replacement": d.Replacement}}
	default: // compaction
		summary := ""
		if d.Summary != nil {
			summary = *d.Summary
		}
		return session.Entry{Type: session.TypeCompaction, Summary: summary, FirstKeptEntryID: d.FirstKeptEntryID, Details: details, FromHook: true}
	}
}

// appendDrafts appends a validated proposal to the session, in order; a
// custom message joins the context, an edit or a compaction rebuilds it.
func (rt *Runtime) appendDrafts(sess *session.Session, drafts []boundaryDraft) {
	rebuild := false
	for _, d := range drafts {
		e := d.entry()
		switch d.Type {
		case session.TypeCustom:
			ep := rt.appendEntry(sess, e)
			rt.Emit(events.Raw{Type: "entry_appended", Fields: map[string]any{"entry": ep}})
		case session.TypeCustomMessage:
			msg := *e.Message
			rt.mu.Lock()
			if rt.sess == sess {
				rt.messages = append(rt.contextLocked(), msg)
			}
			rt.mu.Unlock()
			sess.AppendMessage(msg)
			rt.Emit(events.MessageStart{Message: msg})
			rt.Emit(events.MessageEnd{Message: msg})
		case session.TypeContextEdit:
			rt.appendEntry(sess, e)
			rebuild = true
		case session.TypeCompaction:
			_, _ = rt.appendCompaction(sess, e)
			rebuild = true
		}
	}
	if rebuild {
		rt.mu.Lock()
		if rt.sess == sess {
			rt.messages = nil
			rt.lazy = sess.Plan(rt.ctxRules)
		}
		rt.mu.Unlock()
	}
}

// boundaryPreviews builds the context a boundary's handlers see, one
// preview per proposal; the session's context entries are read once per
// boundary.
type boundaryPreviews struct {
	rt    *Runtime
	sess  *session.Session
	rules session.ContextRules
	base  []session.ProjectedEntry // nil until first needed
}

func (rt *Runtime) newBoundaryPreviews(sess *session.Session) *boundaryPreviews {
	rt.mu.Lock()
	rules := rt.ctxRules
	rt.mu.Unlock()
	return &boundaryPreviews{rt: rt, sess: sess, rules: rules}
}

// contextEntries is pi 1.6's contextEntries of the preview: the session's
// context entries with the proposal's drafts appended as entries (ids and
// timestamps of the preview only). A proposal with a context edit or a
// compaction is projected again over a copy of the whole branch, as the
// drafts change what the earlier entries give.
func (p *boundaryPreviews) contextEntries(drafts []boundaryDraft) []session.ProjectedEntry {
	if p.sess == nil {
		return []session.ProjectedEntry{}
	}
	for _, d := range drafts {
		if d.Type == session.TypeContextEdit || d.Type == session.TypeCompaction {
			scratch := session.FromBranch(p.sess.Branch(""))
			for _, d := range drafts {
				scratch.Append(d.entry())
			}
			return scratch.ContextEntries(p.rules)
		}
	}
	if p.base == nil {
		p.base = p.sess.ContextEntries(p.rules)
	}
	out := append(make([]session.ProjectedEntry, 0, len(p.base)+len(drafts)), p.base...)
	if len(drafts) == 0 {
		return out
	}
	scratch := session.NewInMemory("") // gives the drafts ids and timestamps
	parent := p.sess.Leaf()
	for _, d := range drafts {
		e := scratch.Append(d.entry())
		if parent != "" {
			pid := parent
			e.ParentID = &pid
		}
		parent = e.ID
		msgs := []llm.Message{}
		if m, ok := session.EntryMessage(e); ok {
			msgs = append(msgs, m)
		}
		out = append(out, session.ProjectedEntry{SourceEntry: e, Messages: msgs})
	}
	return out
}

// preview is the context a boundary handler sees: the context messages
// with the proposal's custom messages after them, what the model would
// get of them, and the context entries with the proposal applied.
func (p *boundaryPreviews) preview(raws []json.RawMessage) any {
	rt := p.rt
	rt.mu.Lock()
	msgs := append([]llm.Message(nil), rt.contextLocked()...)
	model := rt.model
	rt.mu.Unlock()
	var drafts []boundaryDraft
	for _, raw := range raws {
		var d boundaryDraft
		if json.Unmarshal(raw, &d) != nil || !d.previewable() {
			continue
		}
		drafts = append(drafts, d)
		var c llm.Content
		if d.Type == session.TypeCustomMessage && json.Unmarshal(d.Content, &c) == nil {
			msgs = append(msgs, customMessage(hooks.CustomMessage{CustomType: d.CustomType, Content: c, Display: d.Display != nil && *d.Display}))
		}
	}
	return map[string]any{
		"contextMessages": msgs,
		"llmMessages":     llm.ToProviderMessages(msgs),
		"pendingMessages": []llm.Message{},
		"contextEntries":  p.contextEntries(drafts),
		"canContinue":     model != nil,
	}
}

// previewable reports whether a draft can be shown in a preview (the
// proposal is validated as a whole only once every handler ran).
func (d *boundaryDraft) previewable() bool {
	var c llm.Content
	switch d.Type {
	case session.TypeCustom:
		return d.CustomType != ""
	case session.TypeCustomMessage:
		return d.CustomType != "" && len(d.Content) > 0 && json.Unmarshal(d.Content, &c) == nil
	case session.TypeContextEdit:
		return d.TargetID != "" && len(d.Replacement) > 0
	case session.TypeCompaction:
		return d.Summary != nil
	}
	return false
}

// beforeSettle runs agent_before_settle once a run would settle (not for
// an aborted one): the proposal's entries are appended, and it reports
// whether the agent should make one more request. A proposal that does
// not validate is reported and nothing of it is appended.
func (rt *Runtime) beforeSettle(ctx context.Context) bool {
	bus := rt.ext.bus
	if bus == nil || !bus.Has(hooks.AgentBeforeSettle) || ctx.Err() != nil {
		return false
	}
	rt.mu.Lock()
	sess := rt.sess
	outcome := "completed"
	if ctx := rt.contextLocked(); len(ctx) > 0 && ctx[len(ctx)-1].Role == llm.RoleAssistant && ctx[len(ctx)-1].StopReason == llm.StopError {
		outcome = "error"
	}
	rt.mu.Unlock()
	previews := rt.newBoundaryPreviews(sess)
	raws, cont := bus.Boundary(ctx, hooks.AgentBeforeSettle, func(entries []json.RawMessage, cont bool) any {
		return hooks.AgentBeforeSettleEvent{Outcome: outcome, Entries: entries, Continue: cont, Context: previews.preview(entries)}
	})
	drafts, err := decodeDrafts(sess, raws)
	if err != nil {
		rt.reportExtensionError(hooks.ExtensionError{Event: hooks.AgentBeforeSettle, Error: "the proposed entries were not appended: " + err.Error()})
		return false
	}
	// Entries proposed before an abort are still appended; the
	// continuation is not.
	rt.appendDrafts(sess, drafts)
	return cont && ctx.Err() == nil
}

// turnBoundary runs turn_end (pi's actionable boundary) at the end of a
// turn, after its messages were recorded: the proposal's entries are
// appended, and it returns the run's new context when they changed it
// and whether to make one more request.
func (rt *Runtime) turnBoundary(ctx context.Context, assistant llm.Message, results []llm.Message) ([]llm.Message, bool) {
	idx := rt.ext.turn(true)
	entryIDs := rt.ext.takeTurnEntries()
	bus := rt.ext.bus
	if bus == nil || !bus.Has(hooks.TurnEnd) {
		return nil, false
	}
	outcome := "completed"
	switch assistant.StopReason {
	case llm.StopAborted:
		outcome = "aborted"
	case llm.StopError:
		outcome = "error"
	}
	if ctx.Err() != nil {
		// An aborted turn is still told (bounded by the hook deadline).
		ctx = context.WithoutCancel(ctx)
		outcome = "aborted"
	}
	base := hooks.TurnEndEvent{TurnIndex: idx, Message: assistant, ToolResults: results, Outcome: outcome,
		ToolResultEntryIDs: []string{}}
	var resultIDs []string
	for _, e := range entryIDs {
		switch e.role {
		case llm.RoleAssistant:
			base.MessageEntryID = e.id
			resultIDs = resultIDs[:0]
		case llm.RoleToolResult:
			resultIDs = append(resultIDs, e.id)
		}
	}
	if resultIDs != nil {
		base.ToolResultEntryIDs = resultIDs
	}
	rt.mu.Lock()
	sess := rt.sess
	rt.mu.Unlock()
	previews := rt.newBoundaryPreviews(sess)
	raws, cont := bus.Boundary(ctx, hooks.TurnEnd, func(entries []json.RawMessage, cont bool) any {
		ev := base
		ev.Entries, ev.Continue, ev.Context = entries, cont, previews.preview(entries)
		return ev
	})
	if len(raws) == 0 {
		return nil, cont && outcome == "completed"
	}
	drafts, err := decodeDrafts(sess, raws)
	if err != nil {
		rt.reportExtensionError(hooks.ExtensionError{Event: hooks.TurnEnd, Error: "the proposed entries were not appended: " + err.Error()})
		return nil, false
	}
	rt.appendDrafts(sess, drafts)
	rt.mu.Lock()
	next := append([]llm.Message(nil), rt.contextLocked()...)
	rt.mu.Unlock()
	return next, cont && outcome == "completed"
}
