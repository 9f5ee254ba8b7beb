package tui

import (
	"encoding/json"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/atomic-go/atomic/host/app"
	"github.com/atomic-go/atomic/host/llm"
	"github.com/atomic-go/atomic/host/session"
)

// A treeRow is one line of the /tree picker: an entry worth choosing
// (messages, summaries, custom messages; not tool results, model or
// thinking changes, labels).
type treeRow struct {
	id, text string
	onPath   bool // on the branch from the root to the leaf
	leaf     bool
}

// treeRows lays the session tree out top to bottom, depth first: a
// chain stays at one indent, the children of an entry with several are
// drawn one level in, with ├ / └ before each branch's first row.
func treeRows(roots session.Tree, leaf string) []treeRow {
	parent := map[string]string{}
	type item struct {
		n      *session.TreeNode
		indent string
		branch string // "├ " or "└ " for a branch's first shown row
	}
	var stack []item
	for i := len(roots) - 1; i >= 0; i-- {
		stack = append(stack, item{n: roots[i]})
	}
	var order []item
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		order = append(order, it)
		kids := it.n.Children
		for i := len(kids) - 1; i >= 0; i-- {
			parent[kids[i].ID] = it.n.ID
			next := item{n: kids[i], indent: it.indent}
			if len(kids) > 1 {
				next.indent = it.indent + "  "
				next.branch = "├ "
				if i == len(kids)-1 {
					next.branch = "└ "
				}
			}
			stack = append(stack, next)
		}
	}
	path := map[string]bool{}
	for id := leaf; id != ""; id = parent[id] {
		if path[id] {
			break
		}
		path[id] = true
	}
	var rows []treeRow
	pending := map[string]string{} // a hidden entry's branch mark, for its first shown descendant
	for _, it := range order {
		mark := it.branch
		if mark == "" {
			mark = pending[parent[it.n.ID]]
		}
		text, shown := treeText(it.n)
		if !shown {
			if mark != "" {
				pending[it.n.ID] = mark
			}
			continue
		}
		indent := it.indent
		if mark != "" && len(indent) >= 2 {
			indent = indent[:len(indent)-2] + mark
		}
		if it.n.Label != "" {
			text += " [" + it.n.Label + "]"
		}
		rows = append(rows, treeRow{id: it.n.ID, text: indent + text, onPath: path[it.n.ID], leaf: it.n.ID == leaf})
	}
	return rows
}

// treeText is an entry's line in the tree; shown is false for entries
// not offered.
func treeText(n *session.TreeNode) (text string, shown bool) {
	var e session.Entry
	if json.Unmarshal(n.Entry, &e) != nil {
		return "", false
	}
	switch e.Type {
	case session.TypeMessage:
		if e.Message == nil {
			return "", false
		}
		m := e.Message
		switch m.Role {
		case llm.RoleUser:
			return "user: " + oneLine(m.Text()), true
		case llm.RoleAssistant:
			if t := oneLine(m.Text()); t != "" {
				return "assistant: " + t, true
			}
			var names []string
			for _, tc := range m.ToolCalls() {
				names = append(names, tc.Name)
			}
			if len(names) > 0 {
				return "assistant: (" + strings.Join(names, ", ") + ")", true
			}
			return "assistant: " + m.StopReason, true
		case llm.RoleBashExecution:
			return "bash: " + oneLine(m.Text()), true
		}
		return "", false
	case session.TypeCompaction:
		return "compaction: " + oneLine(e.Summary), true
	case session.TypeBranchSummary:
		return "branch summary: " + oneLine(e.Summary), true
	case session.TypeCustomMessage:
		return e.CustomType + ": " + oneLine(e.Content.JoinText(" ")), true
	}
	return "", false
}

// cmdTree opens the session tree: choosing an entry moves there (a user
// message's text comes back to the editor, its parent becomes the
// leaf), after asking whether to summarize the branch being left.
func cmdTree(m *model, _ string) tea.Cmd {
	rt := m.rt
	return func() tea.Msg {
		tree, leaf, err := rt.Tree()
		if err != nil {
			return errMsg{err}
		}
		rows := treeRows(tree, leaf)
		if len(rows) == 0 {
			return infoMsg("The session has no messages yet")
		}
		names := make([]string, len(rows))
		sel := 0
		for i, r := range rows {
			switch {
			case r.leaf:
				names[i] = "● " + r.text
				sel = i
			case r.onPath:
				names[i] = "• " + r.text
			default:
				names[i] = "  " + r.text
			}
		}
		d := newPicker("Session tree (● here, • this branch)", names, nil, func(i int) tea.Cmd {
			target := rows[i]
			if target.leaf {
				return func() tea.Msg { return infoMsg("Already there") }
			}
			return func() tea.Msg { return dialogOpenMsg{summaryChoice(rt, target.id)} }
		})
		d.sel = sel
		return dialogOpenMsg{d}
	}
}

// summaryChoice asks whether to summarize the branch being left, then
// navigates.
func summaryChoice(rt runtime, target string) *dialog {
	return newPicker("Summarize the branch you leave?", []string{"No summary", "Summarize"}, nil, func(i int) tea.Cmd {
		return func() tea.Msg {
			res, err := rt.NavigateTree(target, app.NavigateOptions{Summarize: i == 1})
			if err != nil {
				return errMsg{err}
			}
			if res.Cancelled {
				return infoMsg("Navigating the tree was cancelled by an extension")
			}
			text := ""
			if res.EditorText != nil {
				text = *res.EditorText
			}
			return resetMsg{msgs: rt.Messages(), editor: text}
		}
	})
}
