package tui

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textarea"
	tea "charm.land/bubbletea/v2"
)

// An action is one of pi 1.6's named keybinding actions
// (docs/keybindings.md there); keybindings.json maps action names to keys.
type action struct {
	name     string
	defaults []string
	desc     string
	// unsupported marks an action pi has and the terminal UI has not yet:
	// binding it gives a warning instead of doing nothing silently.
	unsupported bool
}

// actions lists every action of pi 1.6, with its default keys (in the
// terminal's spelling, see normalizeKey); built on first use, not at
// init (other modes never need it).
var actions = sync.OnceValue(func() []action {
	return []action{
		// The editor (the cursor keys and text editing map onto the textarea).
		{name: "tui.editor.cursorUp", defaults: []string{"up"}, desc: "cursor up; on the first line: older history"},
		{name: "tui.editor.cursorDown", defaults: []string{"down"}, desc: "cursor down; on the last line: newer history"},
		{name: "tui.editor.historyPrevious", desc: "older history entry, wherever the cursor is"},
		{name: "tui.editor.historyNext", desc: "newer history entry, wherever the cursor is"},
		{name: "tui.editor.cursorLeft", defaults: []string{"left", "ctrl+b"}, desc: "cursor left"},
		{name: "tui.editor.cursorRight", defaults: []string{"right", "ctrl+f"}, desc: "cursor right"},
		{name: "tui.editor.cursorWordLeft", defaults: []string{"alt+left", "ctrl+left", "alt+b"}, desc: "word left"},
		{name: "tui.editor.cursorWordRight", defaults: []string{"alt+right", "ctrl+right", "alt+f"}, desc: "word right"},
		{name: "tui.editor.cursorLineStart", defaults: []string{"home", "ctrl+a"}, desc: "line start"},
		{name: "tui.editor.cursorLineEnd", defaults: []string{"end", "ctrl+e"}, desc: "line end"},
		{name: "tui.editor.jumpForward", defaults: []string{"ctrl+]"}, unsupported: true},
		{name: "tui.editor.jumpBackward", defaults: []string{"ctrl+alt+]"}, unsupported: true},
		{name: "tui.editor.pageUp", unsupported: true},
		{name: "tui.editor.pageDown", unsupported: true},
		{name: "tui.editor.deleteCharBackward", defaults: []string{"backspace"}, desc: "delete the character before the cursor"},
		{name: "tui.editor.deleteCharForward", defaults: []string{"delete", "ctrl+d"}, desc: "delete the character under the cursor"},
		{name: "tui.editor.deleteWordBackward", defaults: []string{"ctrl+w", "alt+backspace"}, desc: "delete the word before the cursor"},
		{name: "tui.editor.deleteWordForward", defaults: []string{"alt+d", "alt+delete"}, desc: "delete the word after the cursor"},
		{name: "tui.editor.deleteToLineStart", defaults: []string{"ctrl+u"}, desc: "delete to the line start"},
		{name: "tui.editor.deleteToLineEnd", defaults: []string{"ctrl+k"}, desc: "delete to the line end"},
		{name: "tui.editor.yank", defaults: []string{"ctrl+y"}, unsupported: true},
		{name: "tui.editor.yankPop", defaults: []string{"alt+y"}, unsupported: true},
		{name: "tui.editor.undo", defaults: []string{"ctrl+-"}, unsupported: true},

		// Input and lists.
		{name: "tui.input.newLine", defaults: []string{"shift+enter", "ctrl+j"}, desc: "new line"},
		{name: "tui.input.submit", defaults: []string{"enter"}, desc: "send (while the agent works: steer)"},
		{name: "tui.input.tab", defaults: []string{"tab"}, desc: "complete a / command or an @ path"},
		{name: "tui.input.copy", defaults: []string{"ctrl+c"}, unsupported: true},
		{name: "tui.select.up", defaults: []string{"up"}, desc: "in a list: up"},
		{name: "tui.select.down", defaults: []string{"down"}, desc: "in a list: down"},
		{name: "tui.select.pageUp", defaults: []string{"pgup"}, desc: "in a list: a page up"},
		{name: "tui.select.pageDown", defaults: []string{"pgdown"}, desc: "in a list: a page down"},
		{name: "tui.select.confirm", defaults: []string{"enter"}, desc: "in a list: choose"},
		{name: "tui.select.cancel", defaults: []string{"esc", "ctrl+c"}, desc: "in a list or dialog: cancel"},

		// The conversation.
		{name: "tui.altScreen.pageUp", defaults: []string{"pgup"}, desc: "scroll the conversation up"},
		{name: "tui.altScreen.pageDown", defaults: []string{"pgdown"}, desc: "scroll the conversation down"},
		{name: "tui.altScreen.halfPageUp", unsupported: true},
		{name: "tui.altScreen.halfPageDown", unsupported: true},
		{name: "tui.altScreen.lineUp", unsupported: true},
		{name: "tui.altScreen.lineDown", unsupported: true},
		{name: "tui.altScreen.previousPrompt", unsupported: true},
		{name: "tui.altScreen.nextPrompt", unsupported: true},
		{name: "tui.altScreen.search", unsupported: true},
		{name: "tui.altScreen.searchNext", unsupported: true},
		{name: "tui.altScreen.searchPrevious", unsupported: true},
		{name: "tui.altScreen.searchClose", unsupported: true},
		{name: "tui.altScreen.top", unsupported: true},
		{name: "tui.altScreen.bottom", unsupported: true},

		// The application.
		{name: "app.interrupt", defaults: []string{"esc"}, desc: "interrupt the agent; twice on an idle editor: clear it"},
		{name: "app.clear", defaults: []string{"ctrl+c"}, desc: "clear the editor; twice on an empty one: quit"},
		{name: "app.exit", defaults: []string{"ctrl+d"}, desc: "quit (on an empty editor)"},
		{name: "app.suspend", defaults: []string{"ctrl+z"}, desc: "suspend"},
		{name: "app.editor.external", defaults: []string{"ctrl+g"}, unsupported: true},
		{name: "app.clipboard.pasteImage", defaults: []string{"ctrl+v"}, unsupported: true},
		{name: "app.session.new", desc: "new session (/new)"},
		{name: "app.session.tree", desc: "session tree (/tree)"},
		{name: "app.session.fork", desc: "fork (/fork)"},
		{name: "app.session.resume", desc: "resume a session (/resume)"},
		{name: "app.session.togglePath", defaults: []string{"ctrl+p"}, unsupported: true},
		{name: "app.session.toggleSort", defaults: []string{"ctrl+s"}, unsupported: true},
		{name: "app.session.toggleNamedFilter", defaults: []string{"ctrl+n"}, unsupported: true},
		{name: "app.session.rename", defaults: []string{"ctrl+r"}, unsupported: true},
		{name: "app.session.delete", defaults: []string{"ctrl+d"}, unsupported: true},
		{name: "app.session.deleteNoninvasive", defaults: []string{"ctrl+backspace"}, unsupported: true},
		{name: "app.model.select", defaults: []string{"ctrl+l"}, desc: "choose the model (/model)"},
		{name: "app.model.cycleForward", defaults: []string{"ctrl+p"}, desc: "next model"},
		{name: "app.model.cycleBackward", defaults: []string{"ctrl+shift+p"}, desc: "previous model"},
		{name: "app.models.save", defaults: []string{"ctrl+s"}, unsupported: true},
		{name: "app.thinking.cycle", defaults: []string{"shift+tab"}, desc: "next thinking level"},
		{name: "app.thinking.save", defaults: []string{"ctrl+s"}, unsupported: true},
		{name: "app.thinking.toggle", defaults: []string{"ctrl+t"}, desc: "show or hide thinking"},
		{name: "app.tools.expand", defaults: []string{"ctrl+o"}, desc: "expand or collapse tool output"},
		{name: "app.message.copy", defaults: []string{"ctrl+x"}, desc: "copy the last answer (OSC 52)"},
		{name: "app.message.followUp", defaults: []string{"alt+enter"}, desc: "queue a follow-up"},
		{name: "app.message.dequeue", defaults: []string{"alt+up"}, desc: "put the queued messages back in the editor"},
		{name: "app.tree.foldOrUp", defaults: []string{"ctrl+left", "alt+left"}, unsupported: true},
		{name: "app.tree.unfoldOrDown", defaults: []string{"ctrl+right", "alt+right"}, unsupported: true},
		{name: "app.tree.editLabel", defaults: []string{"shift+l"}, unsupported: true},
		{name: "app.tree.toggleLabelTimestamp", defaults: []string{"shift+t"}, unsupported: true},
		{name: "app.tree.filter.default", defaults: []string{"ctrl+d"}, unsupported: true},
		{name: "app.tree.filter.noTools", defaults: []string{"ctrl+t"}, unsupported: true},
		{name: "app.tree.filter.userOnly", defaults: []string{"ctrl+u"}, unsupported: true},
		{name: "app.tree.filter.labeledOnly", defaults: []string{"ctrl+l"}, unsupported: true},
		{name: "app.tree.filter.all", defaults: []string{"ctrl+a"}, unsupported: true},
		{name: "app.tree.filter.cycleForward", defaults: []string{"ctrl+o"}, unsupported: true},
		{name: "app.tree.filter.cycleBackward", defaults: []string{"ctrl+shift+o"}, unsupported: true},
		{name: "app.models.enableAll", defaults: []string{"ctrl+a"}, unsupported: true},
		{name: "app.models.clearAll", defaults: []string{"ctrl+x"}, unsupported: true},
		{name: "app.models.toggleProvider", defaults: []string{"ctrl+p"}, unsupported: true},
		{name: "app.models.reorderUp", defaults: []string{"alt+up"}, unsupported: true},
		{name: "app.models.reorderDown", defaults: []string{"alt+down"}, unsupported: true},
	}
})

// keymap is the keys of every action: the defaults, replaced per action
// by keybindings.json.
type keymap struct {
	keys map[string][]string
	// warning describes what keybindings.json had wrong ("" when nothing).
	warning string
}

func defaultKeymap() keymap {
	km := keymap{keys: map[string][]string{}}
	for _, a := range actions() {
		km.keys[a.name] = a.defaults
	}
	return km
}

// is reports whether msg is one of the action's keys.
func (km keymap) is(msg tea.KeyPressMsg, name string) bool {
	ks, ok := km.keys[name]
	if !ok {
		panic("tui: no action " + name) // a typo in this package
	}
	s, stroke := msg.String(), msg.Keystroke()
	for _, k := range ks {
		if k == s || k == stroke {
			return true
		}
	}
	return false
}

// list is the action's keys for /hotkeys ("none" when unbound).
func (km keymap) list(name string) string {
	if ks := km.keys[name]; len(ks) > 0 {
		return strings.Join(ks, ", ")
	}
	return "none"
}

// loadKeymap reads <agentDir>/keybindings.json in pi's format: an object
// from action names to a key or a list of keys ("$schema" is allowed).
// A missing file is the defaults; a bad one keeps the defaults for what
// it got wrong, and the warning names every problem.
func loadKeymap(agentDir string) keymap {
	km := defaultKeymap()
	if agentDir == "" {
		return km
	}
	path := filepath.Join(agentDir, "keybindings.json")
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return km
	}
	if err != nil {
		km.warning = fmt.Sprintf("%s: %v", path, err)
		return km
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		km.warning = fmt.Sprintf("%s is not a JSON object of action names to keys (%v); using the default keys", path, err)
		return km
	}
	known := map[string]action{}
	for _, a := range actions() {
		known[a.name] = a
	}
	var problems, unknown, unsupported []string
	names := make([]string, 0, len(raw))
	for name := range raw {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if name == "$schema" {
			continue
		}
		a, ok := known[name]
		if !ok {
			unknown = append(unknown, name)
			continue
		}
		if a.unsupported {
			unsupported = append(unsupported, name)
			continue
		}
		var list []string
		var one string
		if err := json.Unmarshal(raw[name], &one); err == nil {
			list = []string{one}
		} else if err := json.Unmarshal(raw[name], &list); err != nil {
			problems = append(problems, fmt.Sprintf("%s: want a key or a list of keys", name))
			continue
		}
		keys := make([]string, 0, len(list))
		bad := false
		for _, k := range list {
			nk, err := normalizeKey(k)
			if err != nil {
				problems = append(problems, fmt.Sprintf("%s: %v", name, err))
				bad = true
				continue
			}
			keys = append(keys, nk)
		}
		if !bad {
			km.keys[name] = keys
		}
	}
	if len(unknown) > 0 {
		problems = append(problems, "unknown action "+strings.Join(unknown, ", "))
	}
	if len(unsupported) > 0 {
		problems = append(problems, "not supported by atomic yet, ignored: "+strings.Join(unsupported, ", "))
	}
	if len(problems) > 0 {
		km.warning = path + ": " + strings.Join(problems, "; ")
	}
	return km
}

// keyName maps pi's name of a special key to the terminal library's ("" when it is none).
func keyName(name string) string {
	switch name {
	case "escape", "esc":
		return "esc"
	case "return", "enter":
		return "enter"
	case "pageup":
		return "pgup"
	case "pagedown":
		return "pgdown"
	case "tab", "space", "backspace", "delete", "insert", "clear", "home", "end", "up", "down", "left", "right":
		return name
	}
	return ""
}

// normalizeKey turns a key as pi writes it ("shift+ctrl+p", "pageUp")
// into the terminal library's spelling ("ctrl+shift+p", "pgup"), or says
// what is wrong with it.
func normalizeKey(spec string) (string, error) {
	parts := strings.Split(strings.TrimSpace(spec), "+")
	base := parts[len(parts)-1]
	mods := parts[:len(parts)-1]
	if base == "" && len(parts) > 1 && parts[len(parts)-2] == "" {
		// "ctrl++": the key is "+".
		base, mods = "+", parts[:len(parts)-2]
	}
	have := map[string]bool{}
	for _, m := range mods {
		m = strings.ToLower(m)
		switch m {
		case "ctrl", "shift", "alt", "super":
			have[m] = true
		default:
			return "", fmt.Errorf("bad key %q (modifiers are ctrl, shift, alt and super)", spec)
		}
	}
	lb := strings.ToLower(base)
	switch {
	case keyName(lb) != "":
		base = keyName(lb)
	case len(base) == 1 && strings.Contains("abcdefghijklmnopqrstuvwxyz0123456789`-=[]\\;',./!@#$%^&*()_+|~{}:<>?", lb):
		base = lb
	case len(lb) >= 2 && lb[0] == 'f' && isFKey(lb[1:]):
		base = lb
	default:
		return "", fmt.Errorf("bad key %q", spec)
	}
	var b strings.Builder
	for _, m := range []string{"ctrl", "alt", "shift", "super"} {
		if have[m] {
			b.WriteString(m + "+")
		}
	}
	b.WriteString(base)
	return b.String(), nil
}

func isFKey(n string) bool {
	switch n {
	case "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12":
		return true
	}
	return false
}

// applyEditorKeys gives the textarea the editor actions' keys.
func (km keymap) applyEditorKeys(ta *textarea.Model) {
	set := func(b *key.Binding, names ...string) {
		var ks []string
		for _, n := range names {
			ks = append(ks, km.keys[n]...)
		}
		b.SetKeys(ks...)
		b.SetEnabled(len(ks) > 0)
	}
	m := &ta.KeyMap
	set(&m.CharacterBackward, "tui.editor.cursorLeft")
	set(&m.CharacterForward, "tui.editor.cursorRight")
	set(&m.WordBackward, "tui.editor.cursorWordLeft")
	set(&m.WordForward, "tui.editor.cursorWordRight")
	set(&m.LineStart, "tui.editor.cursorLineStart")
	set(&m.LineEnd, "tui.editor.cursorLineEnd")
	set(&m.LinePrevious, "tui.editor.cursorUp")
	set(&m.LineNext, "tui.editor.cursorDown")
	set(&m.DeleteCharacterBackward, "tui.editor.deleteCharBackward")
	set(&m.DeleteCharacterForward, "tui.editor.deleteCharForward")
	set(&m.DeleteWordBackward, "tui.editor.deleteWordBackward")
	set(&m.DeleteWordForward, "tui.editor.deleteWordForward")
	set(&m.DeleteBeforeCursor, "tui.editor.deleteToLineStart")
	set(&m.DeleteAfterCursor, "tui.editor.deleteToLineEnd")
	set(&m.InsertNewline, "tui.input.newLine")
	// The textarea's own extras that pi's editor has not (transpose, case
	// changes, whole-input jumps) stay off so their keys reach the app.
	for _, b := range []*key.Binding{&m.TransposeCharacterBackward, &m.UppercaseWordForward, &m.LowercaseWordForward,
		&m.CapitalizeWordForward, &m.InputBegin, &m.InputEnd, &m.PageUp, &m.PageDown} {
		b.SetEnabled(false)
	}
}
