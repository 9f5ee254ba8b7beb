package tui

import (
	"fmt"
	"path/filepath"

	tea "charm.land/bubbletea/v2"

	"github.com/atomic-go/atomic/host/app"
)

// reservedActions are the actions whose keys an extension's shortcut may
// not take (pi 1.6's list: the editor-wide keys); a shortcut on another
// action's key wins over it, with a warning, as in pi.
var reservedActions = []string{
	"app.interrupt", "app.clear", "app.exit", "app.suspend", "app.thinking.cycle",
	"app.model.cycleForward", "app.model.cycleBackward", "app.model.select", "app.tools.expand",
	"app.thinking.toggle", "app.editor.external", "app.message.copy", "app.message.followUp",
	"tui.input.submit", "tui.select.confirm", "tui.select.cancel", "tui.input.copy", "tui.editor.deleteToLineEnd",
}

// A shortcut is an extension's key, bound.
type shortcut struct {
	key  string // the terminal's spelling (normalizeKey)
	spec app.ExtensionShortcut
}

// shortcutsMsg carries the runtime's shortcuts to the program.
type shortcutsMsg []app.ExtensionShortcut

func (m *model) loadShortcuts() tea.Cmd {
	rt := m.rt
	return func() tea.Msg { return shortcutsMsg(rt.Shortcuts()) }
}

// bindShortcuts resolves the extensions' shortcuts against the keymap as
// pi does: a key of a reserved action is refused, a key of another action
// is taken from it, a key two extensions bind goes to the later one; each
// of these is a warning. A key that is not a key is a warning too.
func bindShortcuts(km keymap, list []app.ExtensionShortcut) (binds []shortcut, warnings []string) {
	type owner struct {
		action   string
		reserved bool
	}
	builtin := map[string]owner{}
	reserved := map[string]bool{}
	for _, a := range reservedActions {
		reserved[a] = true
	}
	for _, a := range actions() {
		for _, k := range km.keys[a.name] {
			// A key of several actions counts as a reserved one's, else
			// as the first's (the warning names it).
			if o, ok := builtin[k]; ok && (o.reserved || !reserved[a.name]) {
				continue
			}
			builtin[k] = owner{a.name, reserved[a.name]}
		}
	}
	index := map[string]int{}
	for _, s := range list {
		from := filepath.Base(s.Path)
		k, err := normalizeKey(s.Key)
		if err != nil {
			warnings = append(warnings, fmt.Sprintf("Extension shortcut of %s: %v. Skipping.", from, err))
			continue
		}
		if o, ok := builtin[k]; ok {
			if o.reserved {
				warnings = append(warnings, fmt.Sprintf("Extension shortcut '%s' from %s conflicts with a built-in key (%s). Skipping.", s.Key, from, o.action))
				continue
			}
			warnings = append(warnings, fmt.Sprintf("Extension shortcut '%s' from %s is the built-in key of %s. Using %s.", s.Key, from, o.action, from))
		}
		if i, ok := index[k]; ok {
			warnings = append(warnings, fmt.Sprintf("Extension shortcut '%s' is registered by both %s and %s. Using %s.", s.Key, filepath.Base(binds[i].spec.Path), from, from))
			binds[i] = shortcut{key: k, spec: s}
			continue
		}
		index[k] = len(binds)
		binds = append(binds, shortcut{key: k, spec: s})
	}
	return binds, warnings
}

// setShortcuts binds the runtime's shortcuts; their warnings are shown
// once (again when they change, after a reload).
func (m *model) setShortcuts(list []app.ExtensionShortcut) {
	binds, warnings := bindShortcuts(m.keys, list)
	m.shortcuts = binds
	for _, w := range warnings {
		if !m.shortcutWarned[w] {
			m.shortcutWarned[w] = true
			m.conv.fail(w)
		}
	}
}

// runShortcut runs the extension shortcut bound to msg's key, if any
// (off the event loop: the handler may open dialogs and wait).
func (m *model) runShortcut(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	s, stroke := msg.String(), msg.Keystroke()
	for _, sc := range m.shortcuts {
		if sc.key == s || sc.key == stroke {
			rt, spec := m.rt, sc.spec
			return func() tea.Msg {
				rt.RunShortcut(spec.Path, spec.Key)
				return nil
			}, true
		}
	}
	return nil, false
}
