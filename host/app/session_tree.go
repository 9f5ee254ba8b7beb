package app

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/atomic-go/atomic/host/events"
	"github.com/atomic-go/atomic/host/llm"
	"github.com/atomic-go/atomic/host/session"
)

// The session tree as the protocol shows it: entries, tree, labels,
// names, and moving the leaf.

// ErrNavigateWhileStreaming is returned by NavigateTree during a run.
var ErrNavigateWhileStreaming = errors.New("Wait for the current response to finish before navigating the session tree.")

// Entries returns the session's entries (as they are in the file) after
// the entry since ("" for all), and the leaf id.
func (rt *Runtime) Entries(since string) ([]json.RawMessage, string, error) {
	s := rt.Session()
	raw, err := s.RawEntriesSince(since)
	return raw, s.Leaf(), err
}

// Tree returns the session tree and the leaf id.
func (rt *Runtime) Tree() (session.Tree, string, error) {
	s := rt.Session()
	t, err := s.Tree()
	return t, s.Leaf(), err
}

// ForkMessages returns the user messages one can fork from.
func (rt *Runtime) ForkMessages() ([]session.UserMessage, error) {
	return rt.Session().UserMessages()
}

// SetLabel sets (or, with nil or "", clears) the label of an entry.
func (rt *Runtime) SetLabel(entryID string, label *string) error {
	s := rt.Session()
	if !s.Has(entryID) {
		return fmt.Errorf("Entry %s not found", entryID)
	}
	if label != nil && *label == "" {
		label = nil
	}
	// A failure to write the file is reported by session_write_error; the
	// label is set either way and written with the next successful write.
	rt.appendEntry(s, session.Entry{Type: session.TypeLabel, TargetID: entryID, Label: label})
	return nil
}

// SetSessionName names the session and emits session_info_changed.
func (rt *Runtime) SetSessionName(name string) error {
	name = strings.TrimSpace(name)
	if name == "" {
		return errors.New("Session name cannot be empty")
	}
	s := rt.Session()
	rt.appendEntry(s, session.Entry{Type: session.TypeSessionInfo, Name: &name})
	rt.Emit(events.SessionInfoChanged{Name: name})
	return nil
}

// NavigateOptions are navigate_tree's options.
type NavigateOptions struct {
	Summarize           bool
	CustomInstructions  string
	ReplaceInstructions bool
	Label               string
}

// NavigateResult is navigate_tree's outcome.
type NavigateResult struct {
	Cancelled  bool
	EditorText *string
}

// NavigateTree moves the leaf within the session. A user message or custom
// message as target puts the leaf on its parent and returns its text for
// the editor; any other entry becomes the leaf itself. With Summarize, the
// model summarizes the branch being left and the summary is appended at the
// new position (the label, if any, goes on the summary).
func (rt *Runtime) NavigateTree(targetID string, opts NavigateOptions) (NavigateResult, error) {
	if rt.IsStreaming() {
		return NavigateResult{}, ErrNavigateWhileStreaming
	}
	s := rt.Session()
	target, ok := s.Entry(targetID)
	if !ok {
		return NavigateResult{}, fmt.Errorf("Entry %s not found", targetID)
	}
	oldLeaf := s.Leaf()
	if targetID == oldLeaf {
		return NavigateResult{}, nil
	}
	left, common := branchLeft(s, oldLeaf, targetID)
	h := rt.hooks()
	var dec TreeDecision
	if h.BeforeTree != nil {
		dec = h.BeforeTree(rt.baseCtx, TreeEvent{
			TargetID: targetID, OldLeaf: oldLeaf, CommonAncestor: common, EntriesToSummarize: left,
			UserWantsSummary: opts.Summarize, CustomInstructions: opts.CustomInstructions,
			ReplaceInstructions: opts.ReplaceInstructions, Label: opts.Label,
		})
		if dec.Cancel {
			return NavigateResult{Cancelled: true}, nil
		}
		if dec.CustomInstructions != nil {
			opts.CustomInstructions = *dec.CustomInstructions
		}
		if dec.ReplaceInstructions != nil {
			opts.ReplaceInstructions = *dec.ReplaceInstructions
		}
		if dec.Label != nil {
			opts.Label = *dec.Label
		}
	}
	var summary string
	var details map[string]any
	fromExtension := false
	switch {
	case opts.Summarize && dec.Summary != nil:
		// An extension's summary (pi 1.6: used only when one was asked
		// for).
		summary, details, fromExtension = *dec.Summary, dec.Details, true
	case opts.Summarize:
		var err error
		if summary, details, err = rt.summarizeBranch(rt.baseCtx, left, opts.CustomInstructions, opts.ReplaceInstructions); err != nil {
			return NavigateResult{}, err
		}
	}
	newLeaf := targetID
	var editor *string
	switch {
	case target.Type == session.TypeMessage && target.Message != nil && target.Message.Role == llm.RoleUser:
		newLeaf = target.Parent()
		t := target.Message.Content.JoinText("")
		editor = &t
	case target.Type == session.TypeCustomMessage:
		newLeaf = target.Parent()
		t := target.Content.JoinText("")
		editor = &t
	}
	if err := s.SetLeaf(newLeaf); err != nil {
		// The parent is missing (an orphan): start a new root.
		_ = s.SetLeaf("")
	}
	labelled := targetID
	var summaryEntry *session.Entry
	if opts.Summarize {
		from := s.Leaf()
		if from == "" {
			from = "root"
		}
		e := rt.appendEntry(s, session.Entry{Type: session.TypeBranchSummary, FromID: from, Summary: summary, Details: details, FromHook: fromExtension})
		labelled = e.ID
		summaryEntry = e
	}
	if label := strings.TrimSpace(opts.Label); label != "" {
		rt.appendEntry(s, session.Entry{Type: session.TypeLabel, TargetID: labelled, Label: &label})
	}
	rt.mu.Lock()
	if rt.sess == s {
		rt.messages = nil
		rt.lazy = s.Plan(rt.ctxRules)
	}
	rt.mu.Unlock()
	if h.AfterTree != nil {
		h.AfterTree(TreeMoved{NewLeaf: s.Leaf(), OldLeaf: oldLeaf, SummaryEntry: summaryEntry, FromExtension: fromExtension})
	}
	return NavigateResult{EditorText: editor}, nil
}

// LastAssistantText returns the trimmed text of the latest assistant
// message that has text, and false when there is none.
func (rt *Runtime) LastAssistantText() (string, bool) {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	check := func(m *llm.Message) (string, bool) {
		text := strings.TrimSpace(m.Content.JoinText(""))
		if text == "" && m.StopReason == llm.StopAborted {
			return "", false
		}
		return text, true
	}
	if p := rt.lazy; p != nil {
		roles := p.Roles()
		for i := len(roles) - 1; i >= 0; i-- {
			if roles[i] != llm.RoleAssistant {
				continue
			}
			if m, ok := p.MessageAt(i); ok {
				if text, ok := check(&m); ok {
					return text, true
				}
			}
		}
		return "", false
	}
	for i := len(rt.messages) - 1; i >= 0; i-- {
		if rt.messages[i].Role != llm.RoleAssistant {
			continue
		}
		if text, ok := check(&rt.messages[i]); ok {
			return text, true
		}
	}
	return "", false
}

// eachContextMessage calls fn for every context message in order, loading
// one at a time when the context is not in memory.
func (rt *Runtime) eachContextMessage(fn func(m *llm.Message)) {
	rt.mu.Lock()
	p, msgs := rt.lazy, rt.messages
	rt.mu.Unlock()
	if p != nil {
		for i := 0; i < p.Len(); i++ {
			if m, ok := p.MessageAt(i); ok {
				fn(&m)
			}
		}
		return
	}
	for i := range msgs {
		fn(&msgs[i])
	}
}
