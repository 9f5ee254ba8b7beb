package tui

import (
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/textarea"
	tea "charm.land/bubbletea/v2"

	"github.com/atomic-go/atomic/host/app"
)

// newEditor is the main editor: multi-line, growing to ten rows, with the
// keymap's editing keys.
func newEditor(km keymap) textarea.Model {
	ed := textarea.New()
	ed.ShowLineNumbers = false
	ed.Prompt = ""
	ed.Placeholder = "Type a message, / for commands, @ for files"
	ed.DynamicHeight = true
	ed.MinHeight = 1
	ed.MaxHeight = 10
	ed.SetHeight(1)
	km.applyEditorKeys(&ed)
	ed.Focus()
	return ed
}

// key handles a key press: an open dialog takes it first, then the
// completion list, the application's actions, the history, the editor.
func (m *model) key(msg tea.KeyPressMsg) tea.Cmd {
	km := m.keys
	if len(m.dialogs) > 0 {
		d := m.dialogs[0]
		done, c := d.key(msg, km)
		if done {
			m.dialogs = m.dialogs[1:]
		}
		return c
	}
	// Extensions' shortcuts come first, as in pi's editor.
	if c, ok := m.runShortcut(msg); ok {
		return c
	}
	comp := m.completions()
	if len(comp) > 0 {
		sel := min(m.compSel, len(comp)-1)
		switch {
		case km.is(msg, "tui.select.cancel") && !km.is(msg, "app.clear"), msg.String() == "alt+esc":
			m.compClosed = true
			return nil
		case km.is(msg, "tui.select.up"):
			m.compSel = (sel + len(comp) - 1) % len(comp)
			return nil
		case km.is(msg, "tui.select.down"):
			m.compSel = (sel + 1) % len(comp)
			return nil
		case km.is(msg, "tui.input.tab"), km.is(msg, "tui.select.confirm") && !comp[sel].exact:
			comp[sel].apply(m)
			m.compSel = 0
			return m.maybeLoadFiles()
		}
	}
	switch {
	case km.is(msg, "app.clear"):
		if m.editor.Value() != "" {
			m.resetEditor()
			return nil
		}
		if time.Since(m.lastCtrlC) < time.Second {
			return tea.Quit
		}
		m.lastCtrlC = time.Now()
		return m.notify("Press ctrl+c again to quit", false)
	case km.is(msg, "app.exit") && m.editor.Value() == "":
		return tea.Quit
	case km.is(msg, "app.suspend"):
		return tea.Suspend
	case km.is(msg, "app.interrupt"), msg.String() == "alt+esc" && km.is(tea.KeyPressMsg{Code: tea.KeyEscape}, "app.interrupt"):
		// A quick double Esc may arrive as one alt+esc.
		if m.streaming || m.compacting {
			rt := m.rt
			return func() tea.Msg { rt.CancelTurn(); return nil }
		}
		if msg.String() == "alt+esc" || time.Since(m.lastEsc) < 500*time.Millisecond {
			m.resetEditor()
			m.lastEsc = time.Time{}
			return nil
		}
		m.lastEsc = time.Now()
		return nil
	case km.is(msg, "app.thinking.cycle"):
		rt := m.rt
		return func() tea.Msg {
			if _, ok := rt.CycleThinkingLevel(); !ok {
				return errMsg{fmt.Errorf("the current model does not reason")}
			}
			return footerMsg{state: rt.State(), stats: rt.SessionStats()}
		}
	case km.is(msg, "app.model.cycleForward"), km.is(msg, "app.model.cycleBackward"):
		rt, dir := m.rt, "forward"
		if km.is(msg, "app.model.cycleBackward") {
			dir = "backward"
		}
		return func() tea.Msg {
			r, err := rt.CycleModel(dir, true)
			if err != nil {
				return errMsg{err}
			}
			if r == nil {
				return infoMsg("Only one model is available")
			}
			return footerMsg{state: rt.State(), stats: rt.SessionStats()}
		}
	case km.is(msg, "app.model.select"):
		return cmdModel(m, "")
	case km.is(msg, "app.session.new"):
		return cmdNew(m, "")
	case km.is(msg, "app.session.tree"):
		return cmdTree(m, "")
	case km.is(msg, "app.session.fork"):
		return cmdFork(m, "")
	case km.is(msg, "app.session.resume"):
		return cmdResume(m, "")
	case km.is(msg, "app.message.copy"):
		return cmdCopy(m, "")
	case km.is(msg, "app.message.dequeue"):
		return m.dequeue()
	case km.is(msg, "app.tools.expand"):
		m.expandTools = !m.expandTools
		m.conv.invalidateAll()
		return nil
	case km.is(msg, "app.thinking.toggle"):
		m.showThinking = !m.showThinking
		m.conv.invalidateAll()
		return nil
	case km.is(msg, "tui.altScreen.pageUp"):
		m.scroll += max(m.height/2, 1)
		return nil
	case km.is(msg, "tui.altScreen.pageDown"):
		m.scroll = max(m.scroll-max(m.height/2, 1), 0)
		return nil
	case km.is(msg, "tui.editor.historyPrevious"):
		m.browseHistory(-1)
		return nil
	case km.is(msg, "tui.editor.historyNext"):
		m.browseHistory(1)
		return nil
	case km.is(msg, "tui.editor.cursorUp") && m.onFirstRow():
		if m.editor.Value() == "" || m.hist.browsing() || m.editor.Column() == 0 {
			m.browseHistory(-1)
		} else {
			m.editor.CursorStart()
		}
		return nil
	case km.is(msg, "tui.editor.cursorDown") && m.onLastRow():
		if m.hist.browsing() {
			m.browseHistory(1)
		} else {
			m.editor.CursorEnd()
		}
		return nil
	case km.is(msg, "tui.editor.deleteCharBackward") && m.deleteMarker(true),
		km.is(msg, "tui.editor.deleteCharForward") && m.deleteMarker(false):
		return nil
	case km.is(msg, "tui.input.submit"), km.is(msg, "app.message.followUp"):
		return m.send(km.is(msg, "app.message.followUp") && !km.is(msg, "tui.input.submit"))
	}
	before := m.editor.Value()
	var c tea.Cmd
	m.editor, c = m.editor.Update(msg)
	if m.editor.Value() != before {
		m.edited()
	}
	return tea.Batch(c, m.maybeLoadFiles())
}

// send sends the editor's text: a built-in command runs here, anything
// else goes to the runtime (while the agent works: a steer, or with
// followUp a follow-up).
func (m *model) send(followUp bool) tea.Cmd {
	if id := m.pastes.broken(m.editor.Value()); id != "" {
		return m.notify("The marker of paste "+id+" was edited and no longer stands for it: put it back or delete it whole", true)
	}
	text := strings.TrimSpace(m.pastes.expand(m.editor.Value()))
	if text == "" {
		return nil
	}
	if err := m.hist.add(text); err != nil {
		m.rt.Log().Warn("prompt history", "err", err)
	}
	m.resetEditor()
	m.scroll = 0
	if c, ok := m.builtin(text); ok {
		return c
	}
	behavior := app.BehaviorSteer
	if followUp {
		behavior = app.BehaviorFollowUp
	}
	return m.submit(app.PromptInput{Text: text, StreamingBehavior: behavior})
}

// paste inserts pasted text, a marker in its place when it is large.
func (m *model) paste(msg tea.PasteMsg) tea.Cmd {
	text := m.pastes.add(cleanPaste(msg.Content))
	m.editor.InsertString(text)
	m.edited()
	return nil
}

// setEditorText replaces the editor's text (a fork's message, an
// extension's setEditorText) and forgets its pastes.
func (m *model) setEditorText(s string) {
	m.editor.SetValue(s)
	m.edited()
	m.pastes.reset()
}

// resetEditor empties the editor.
func (m *model) resetEditor() {
	m.editor.Reset()
	m.pastes.reset()
	m.hist.stop()
	m.compSel, m.compClosed = 0, false
}

// edited notes that the text changed: the completion list opens again,
// history browsing ends.
func (m *model) edited() {
	m.compSel, m.compClosed = 0, false
	m.hist.stop()
}

// browseHistory shows an older (-1) or newer (+1) prompt.
func (m *model) browseHistory(dir int) {
	text, ok := m.hist.browse(dir, m.editor.Value())
	if !ok {
		return
	}
	m.editor.SetValue(text)
	if dir < 0 {
		m.editor.MoveToBegin()
	} else {
		m.editor.MoveToEnd()
	}
	m.compSel, m.compClosed = 0, false
}

// onFirstRow and onLastRow report whether the cursor is on the editor's
// first or last visual row (a wrapped line has several).
func (m *model) onFirstRow() bool {
	return m.editor.Line() == 0 && m.editor.LineInfo().RowOffset == 0
}

func (m *model) onLastRow() bool {
	li := m.editor.LineInfo()
	return m.editor.Line() == m.editor.LineCount()-1 && li.RowOffset >= li.Height-1
}

// dequeue puts the queued steering and follow-up messages back in the
// editor (after its text), taking them off the queue.
func (m *model) dequeue() tea.Cmd {
	steer, follow := m.rt.ClearQueue()
	all := append(steer, follow...)
	if len(all) == 0 {
		return nil
	}
	text := strings.Join(all, "\n\n")
	if v := strings.TrimSpace(m.editor.Value()); v != "" {
		text = v + "\n\n" + text
	}
	m.editor.SetValue(text) // the editor's pastes stay: its markers are kept
	m.edited()
	return nil
}

// deleteMarker deletes a paste's marker whole when the cursor is at its
// end (backward) or start (forward), as one character: a marker cut in
// half would no longer stand for its paste.
func (m *model) deleteMarker(backward bool) bool {
	lines := strings.Split(m.editor.Value(), "\n")
	row := m.editor.Line()
	if row >= len(lines) {
		return false
	}
	line := []rune(lines[row])
	from, to, ok := m.pastes.markerAround(line, min(m.editor.Column(), len(line)), backward)
	if !ok {
		return false
	}
	m.replaceInLine(from, to, "")
	m.edited()
	return true
}
