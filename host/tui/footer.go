package tui

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"charm.land/lipgloss/v2"
)

// footer: the directory, branch and session name; the model and thinking
// level, context use and cost; the extensions' statuses.
func (m *model) footer(w int) string {
	dir := m.cwd
	if home, err := os.UserHomeDir(); err == nil && home != "" && strings.HasPrefix(dir, home) {
		dir = "~" + strings.TrimPrefix(dir, home)
	}
	line1 := dir
	if m.branch != "" {
		line1 += " (" + m.branch + ")"
	}
	if m.state.SessionName != "" {
		line1 += " • " + m.state.SessionName
	}
	model := "no model"
	if m.state.Model != nil {
		model = m.state.Model.Provider + "/" + m.state.Model.ID
		if m.state.Model.Reasoning && m.state.ThinkingLevel != "" {
			model += " • " + m.state.ThinkingLevel
		}
	}
	ctxUse := ""
	if cu := m.stats.ContextUsage; cu != nil {
		if cu.Tokens != nil && cu.Percent != nil {
			ctxUse = fmt.Sprintf("%s/%s (%.1f%%)", tokens(*cu.Tokens), tokens(cu.ContextWindow), *cu.Percent)
		} else {
			ctxUse = "?/" + tokens(cu.ContextWindow)
		}
	}
	right := strings.TrimSpace(fmt.Sprintf("%s $%.3f", ctxUse, m.stats.Cost))
	gap := w - lipgloss.Width(model) - lipgloss.Width(right)
	line2 := model + strings.Repeat(" ", max(gap, 1)) + right
	out := styleDim.Render(truncateWidth(line1, w)) + "\n" + styleDim.Render(truncateWidth(line2, w))
	if len(m.statuses) > 0 {
		keys := make([]string, 0, len(m.statuses))
		for k := range m.statuses {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = m.statuses[k]
		}
		out += "\n" + truncateWidth(strings.Join(parts, "  "), w)
	}
	return out
}

func tokens(n int) string {
	switch {
	case n >= 1_000_000:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	case n >= 1000:
		return fmt.Sprintf("%.1fk", float64(n)/1e3)
	}
	return fmt.Sprint(n)
}

// gitBranch reads the branch from .git/HEAD in dir or above ("" outside
// a repository; a short commit id when detached).
func gitBranch(dir string) string {
	for d := dir; ; {
		head := filepath.Join(d, ".git", "HEAD")
		if st, err := os.Stat(filepath.Join(d, ".git")); err == nil && !st.IsDir() {
			// A worktree or submodule: ".git" names the real directory.
			if b, err := os.ReadFile(filepath.Join(d, ".git")); err == nil {
				if p, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir: "); ok {
					if !filepath.IsAbs(p) {
						p = filepath.Join(d, p)
					}
					head = filepath.Join(p, "HEAD")
				}
			}
		}
		if b, err := os.ReadFile(head); err == nil {
			s := strings.TrimSpace(string(b))
			if ref, ok := strings.CutPrefix(s, "ref: refs/heads/"); ok {
				return ref
			}
			if len(s) >= 7 {
				return s[:7]
			}
			return ""
		}
		parent := filepath.Dir(d)
		if parent == d {
			return ""
		}
		d = parent
	}
}
