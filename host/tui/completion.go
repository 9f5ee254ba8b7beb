package tui

import (
	"sort"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/atomic-go/atomic/host/app"
)

// A suggestion is one line of the completion list under the editor.
type suggestion struct {
	label, desc string
	// apply puts the suggestion into the editor.
	apply func(m *model)
	// exact is true when the editor already holds what apply would put
	// there (Enter then sends instead of completing).
	exact bool
}

// completions is the list for the editor's text: the commands matching
// "/word" at its start, or the project's paths matching an "@word"
// before the cursor; none after Esc until the text changes.
func (m *model) completions() []suggestion {
	if m.compClosed {
		return nil
	}
	if s := m.slashCompletions(); s != nil {
		return s
	}
	return m.pathCompletions()
}

// slashCompletions lists the commands matching the editor's "/word"
// (none once a space follows the name).
func (m *model) slashCompletions() []suggestion {
	v := m.editor.Value()
	if !strings.HasPrefix(v, "/") || strings.ContainsAny(v, " \n") {
		return nil
	}
	prefix := strings.ToLower(v[1:])
	var out []suggestion
	for _, c := range m.allCommands() {
		if !strings.HasPrefix(strings.ToLower(c.Name), prefix) {
			continue
		}
		name := c.Name
		label := "/" + name
		if c.ArgumentHint != "" {
			label += " " + c.ArgumentHint
		}
		out = append(out, suggestion{label: label, desc: c.Description, exact: "/"+name == strings.TrimSpace(v),
			apply: func(m *model) {
				m.editor.SetValue("/" + name + " ")
				m.editor.MoveToEnd()
			}})
	}
	return out
}

// atToken finds the "@word" that ends at the cursor: the line, the
// cursor's column and where the token starts (ok false when there is
// none).
func (m *model) atToken() (line []rune, col, start int, ok bool) {
	lines := strings.Split(m.editor.Value(), "\n")
	row := m.editor.Line()
	if row >= len(lines) {
		return nil, 0, 0, false
	}
	line = []rune(lines[row])
	col = min(m.editor.Column(), len(line))
	start = col
	for start > 0 && !isSpace(line[start-1]) {
		start--
	}
	if start == col || line[start] != '@' {
		return nil, 0, 0, false
	}
	return line, col, start, true
}

func isSpace(r rune) bool { return r == ' ' || r == '\t' || r == '\n' }

// pathCompletions lists the project's files and directories matching the
// "@word" before the cursor. The list is read in the background when an
// @ is first typed and again when it is older than filesFresh.
func (m *model) pathCompletions() []suggestion {
	line, col, start, ok := m.atToken()
	if !ok {
		return nil
	}
	query := strings.Trim(string(line[start+1:col]), `"`)
	var out []suggestion
	if m.matchQuery != query || !m.matchFor.Equal(m.filesAt) {
		// View and key both ask; the list is ranked once per query.
		m.matches, m.matchQuery, m.matchFor = matchFiles(m.files, query), query, m.filesAt
	}
	for _, p := range m.matches {
		p := p
		out = append(out, suggestion{label: p, exact: false, apply: func(m *model) {
			ins := p
			if strings.ContainsRune(p, ' ') {
				ins = `"` + p + `"`
			}
			if !strings.HasSuffix(p, "/") {
				ins += " "
			}
			m.replaceInLine(start, col, "@"+ins)
		}})
	}
	return out
}

// filesFresh is how long a read file list is used before it is read again.
const filesFresh = 5 * time.Second

// maybeLoadFiles reads the project's file list when an @ word is being
// typed and the list is missing or old.
func (m *model) maybeLoadFiles() tea.Cmd {
	if _, _, _, ok := m.atToken(); !ok || m.filesLoading || time.Since(m.filesAt) < filesFresh && m.filesCwd == m.cwd {
		return nil
	}
	m.filesLoading = true
	ctx, cwd := m.ctx, m.cwd
	return func() tea.Msg { return filesMsg{cwd: cwd, paths: listFiles(ctx, cwd)} }
}

// replaceInLine replaces the runes [from, to) of the cursor's line with
// s and puts the cursor after it.
func (m *model) replaceInLine(from, to int, s string) {
	lines := strings.Split(m.editor.Value(), "\n")
	row := m.editor.Line()
	line := []rune(lines[row])
	lines[row] = string(line[:from]) + s + string(line[to:])
	m.editor.SetValue(strings.Join(lines, "\n"))
	m.editor.MoveToBegin()
	for i := 0; m.editor.Line() < row && i < len(lines)*100; i++ {
		m.editor.CursorDown()
	}
	m.editor.SetCursorColumn(from + len([]rune(s)))
}

// allCommands is the built-in commands and the runtime's (extension
// commands, prompt templates, skills), by name.
func (m *model) allCommands() []app.SlashCommand {
	out := make([]app.SlashCommand, 0, len(builtins)+len(m.commands))
	seen := map[string]bool{}
	for _, b := range builtins {
		out = append(out, app.SlashCommand{Name: b.name, Description: b.desc, ArgumentHint: b.args, Source: "builtin"})
		seen[b.name] = true
	}
	for _, c := range m.commands {
		if !seen[c.Name] {
			out = append(out, c)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
