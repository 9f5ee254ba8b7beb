package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/atomic-go/atomic/host/llm"
	"github.com/atomic-go/atomic/host/session"
)

// Branch summaries: when navigate_tree leaves a branch with "summarize",
// the model writes a summary of what happened on the branch being left,
// and the summary is appended where the conversation continues, so that
// the context keeps what was learnt there.

const branchSummarySystemPrompt = `You write summaries of conversations between a user and a coding assistant. You never continue the conversation and never answer questions from it; you only report what happened in it, precisely and briefly.`

const branchSummaryInstructions = `The conversation above is a branch that the user has now left to go back to an earlier point. Summarize it so that the assistant can continue from the earlier point knowing what was tried and learnt. Use these sections, leaving out any that would be empty:

## Goal
What the user wanted on this branch.

## Constraints and preferences
Requirements or wishes the user stated.

## Progress
- Done: what was completed.
- In progress: what was started and not finished.
- Blocked: what failed or stopped, and why.

## Key decisions
Choices made and their reasons.

## Next steps
What would come next on that branch.

Name files, functions, commands and error messages exactly.`

// branchSummaryPreface opens the summary stored in the branch_summary entry.
const branchSummaryPreface = "Before coming back to this point, the conversation went down another branch. What happened there:\n\n"

// maxSummaryInputChars bounds the transcript sent for a summary; the
// newest entries are kept.
const maxSummaryInputChars = 400_000

// maxToolResultChars is how much of each tool result the transcript keeps.
const maxToolResultChars = 2000

// summarizeBranch asks the current model for a summary of entries (the
// branch being left, oldest first).
func (rt *Runtime) summarizeBranch(ctx context.Context, entries []*session.Entry, custom string, replace bool) (string, map[string]any, error) {
	rt.mu.Lock()
	model := rt.model
	rt.mu.Unlock()
	if model == nil {
		return "", nil, errors.New("No model selected: cannot summarize the branch")
	}
	transcript, read, modified := branchTranscript(entries)
	details := map[string]any{"readFiles": read, "modifiedFiles": modified}
	if strings.TrimSpace(transcript) == "" {
		return "No content to summarize", details, nil
	}
	instructions := branchSummaryInstructions
	switch {
	case replace && strings.TrimSpace(custom) != "":
		instructions = custom
	case strings.TrimSpace(custom) != "":
		instructions += "\n\nPay particular attention to: " + custom
	}
	provider, err := rt.catalog.ProviderFor(*model)
	if err != nil {
		return "", nil, err
	}
	key, ok := rt.catalog.Credential(model.Provider)
	if !ok {
		return "", nil, fmt.Errorf("No API key found for %s: cannot summarize the branch", model.Provider)
	}
	req := &llm.Request{
		Model: *model, SystemPrompt: branchSummarySystemPrompt, APIKey: key, Headers: model.Headers,
		Messages: []llm.Message{llm.UserText("<conversation>\n" + transcript + "\n</conversation>\n\n" + instructions)},
	}
	b := llm.NewBuilder(*model, nil)
	msg := b.Finish(ctx, provider.Stream(ctx, req, b))
	if msg.StopReason == llm.StopError || msg.StopReason == llm.StopAborted {
		if msg.ErrorMessage == "" {
			msg.ErrorMessage = "the model did not answer"
		}
		return "", nil, fmt.Errorf("Branch summary failed: %s", msg.ErrorMessage)
	}
	text := strings.TrimSpace(msg.Content.JoinText(""))
	if text == "" {
		return "", nil, errors.New("Branch summary failed: the model returned no text")
	}
	summary := branchSummaryPreface + text
	if len(read) > 0 {
		summary += "\n\n<read-files>\n" + strings.Join(read, "\n") + "\n</read-files>"
	}
	if len(modified) > 0 {
		summary += "\n\n<modified-files>\n" + strings.Join(modified, "\n") + "\n</modified-files>"
	}
	return summary, details, nil
}

// branchTranscript serializes a branch as role-tagged text, newest
// entries kept when it is too long, and lists the files its tool calls
// read and changed: the model's calls, the calls tools made to other
// tools (a tool result's nestedCalls), and the lists of the summaries the
// agent wrote earlier on the branch (as pi 1.6 carries them over).
func branchTranscript(entries []*session.Entry) (string, []string, []string) {
	var parts []string
	readSet, modSet := map[string]bool{}, map[string]bool{}
	addFileOp := func(tool string, args map[string]any) {
		if p, _ := args["path"].(string); p != "" {
			switch tool {
			case "read":
				readSet[p] = true
			case "write", "edit":
				modSet[p] = true
			}
		}
	}
	for _, e := range entries {
		if e.Type == session.TypeBranchSummary && !e.FromHook {
			// The files of an earlier summary the agent wrote carry over.
			read, modified := summaryFiles(e.Details)
			for _, p := range read {
				readSet[p] = true
			}
			for _, p := range modified {
				modSet[p] = true
			}
		}
		m, ok := session.EntryMessage(e)
		if !ok {
			if e.Type == session.TypeCompaction && e.Summary != "" {
				parts = append(parts, "[Compacted history]: "+e.Summary)
			}
			continue
		}
		switch m.Role {
		case llm.RoleUser:
			parts = append(parts, "[User]: "+m.Content.JoinText(""))
		case llm.RoleAssistant:
			for _, b := range m.Content.Blocks {
				switch b.Type {
				case llm.BlockText:
					parts = append(parts, "[Assistant]: "+b.Text)
				case llm.BlockToolCall:
					args, _ := json.Marshal(b.Arguments)
					parts = append(parts, "[Assistant tool call]: "+b.Name+" "+string(args))
					addFileOp(b.Name, b.Arguments)
				}
			}
		case llm.RoleToolResult:
			// The calls the tool made to other tools (ctx.executeTool)
			// read and change files too.
			if nc, ok := m.NestedCalls(); ok {
				for _, c := range nc.Calls {
					addFileOp(c.Name, c.Arguments)
				}
			}
			text := m.Content.JoinText("")
			if len(text) > maxToolResultChars {
				text = text[:maxToolResultChars] + fmt.Sprintf("\n[… %d more characters]", len(text)-maxToolResultChars)
			}
			parts = append(parts, "[Tool result]: "+text)
		case llm.RoleBashExecution:
			if !m.ExcludeFromContext {
				parts = append(parts, "[User ran]: "+llm.BashExecutionText(&m))
			}
		case llm.RoleCustom:
			if !m.ExcludeFromContext {
				parts = append(parts, "[Note]: "+m.Content.JoinText(""))
			}
		case llm.RoleBranchSummary:
			parts = append(parts, "[Earlier branch summary]: "+m.Summary)
		}
	}
	total := 0
	first := len(parts)
	for first > 0 && total+len(parts[first-1]) <= maxSummaryInputChars {
		first--
		total += len(parts[first]) + 2
	}
	var read, modified []string
	for p := range modSet {
		modified = append(modified, p)
	}
	for p := range readSet {
		if !modSet[p] {
			read = append(read, p)
		}
	}
	sort.Strings(read)
	sort.Strings(modified)
	return strings.Join(parts[first:], "\n\n"), read, modified
}

// summaryFiles reads the file lists of a branch summary's details.
func summaryFiles(details any) (read, modified []string) {
	b, err := json.Marshal(details)
	if err != nil {
		return nil, nil
	}
	var d struct {
		ReadFiles     []any `json:"readFiles"`
		ModifiedFiles []any `json:"modifiedFiles"`
	}
	_ = json.Unmarshal(b, &d)
	strs := func(v []any) []string {
		var out []string
		for _, x := range v {
			if s, ok := x.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return strs(d.ReadFiles), strs(d.ModifiedFiles)
}

// branchLeft returns the entries of oldLeaf's branch that are not on
// target's (oldest first) and the newest entry both share ("" for none).
func branchLeft(s *session.Session, oldLeaf, target string) ([]*session.Entry, string) {
	oldPath := s.Branch(oldLeaf)
	onTarget := map[string]bool{}
	for _, e := range s.Branch(target) {
		onTarget[e.ID] = true
	}
	i := len(oldPath)
	for i > 0 && !onTarget[oldPath[i-1].ID] {
		i--
	}
	common := ""
	if i > 0 {
		common = oldPath[i-1].ID
	}
	return oldPath[i:], common
}
