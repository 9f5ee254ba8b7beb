package tui

import (
	"fmt"

	tea "charm.land/bubbletea/v2"
)

// A setting is one line of /settings: the settings of pi 1.6's panel
// that atomic has. Changing one applies it at once (where it can) and
// saves it in the user's settings file.
type setting struct {
	label, key string
	values     []string
	current    func(m *model) string
	// apply changes the running UI or session (nil: from the next start).
	apply func(m *model, value string) error
}

var settingsTable = []setting{
	{label: "Auto-compact", key: "compaction.enabled", values: []string{"true", "false"},
		current: func(m *model) string { return fmt.Sprint(m.state.AutoCompactionEnabled) },
		apply:   func(m *model, v string) error { m.rt.SetAutoCompaction(v == "true"); return nil }},
	{label: "Steering mode", key: "steeringMode", values: []string{"one-at-a-time", "all"},
		current: func(m *model) string { return m.state.SteeringMode },
		apply:   func(m *model, v string) error { return m.rt.SetSteeringMode(v) }},
	{label: "Follow-up mode", key: "followUpMode", values: []string{"one-at-a-time", "all"},
		current: func(m *model) string { return m.state.FollowUpMode },
		apply:   func(m *model, v string) error { return m.rt.SetFollowUpMode(v) }},
	{label: "Hide thinking", key: "hideThinkingBlock", values: []string{"true", "false"},
		current: func(m *model) string { return fmt.Sprint(!m.showThinking) },
		apply: func(m *model, v string) error {
			m.showThinking = v != "true"
			m.conv.invalidateAll()
			return nil
		}},
	{label: "Theme", key: "theme", values: nil, // the theme names (themes.go)
		current: func(m *model) string {
			if m.themeSetting == "" {
				return "system"
			}
			return m.themeSetting
		},
		apply: func(m *model, v string) error { return m.setTheme(v) }},
	{label: "Default project trust", key: "defaultProjectTrust", values: []string{"ask", "always", "never"},
		current: func(m *model) string {
			if m.trustDefault != "" {
				return m.trustDefault
			}
			return "ask"
		}},
}

// settingValues are a setting's choices.
func (m *model) settingValues(s setting) []string {
	if s.key == "theme" {
		return m.themeNames()
	}
	return s.values
}

func (m *model) settingLine(s setting, value string) string {
	return fmt.Sprintf("%-24s %s", s.label, value)
}

// cmdSettings opens the settings panel: ↑/↓ choose a setting, Enter,
// Space or ←/→ change it, Esc closes.
func cmdSettings(m *model, _ string) tea.Cmd {
	values := make([]string, len(settingsTable)) // as shown, changed here
	names := make([]string, len(settingsTable))
	details := make([]string, len(settingsTable))
	for i, s := range settingsTable {
		values[i] = s.current(m)
		names[i] = m.settingLine(s, values[i])
		if s.apply == nil {
			details[i] = "(from the next start)"
		}
	}
	d := newPicker("Settings", names, details, nil)
	d.method = "select" // no filter line
	d.hint = "↑/↓ move · enter, space or ←/→ change · esc close"
	d.onKey = func(d *dialog, msg tea.KeyPressMsg) (tea.Cmd, bool) {
		step := 0
		switch msg.String() {
		case "enter", "space", "right", "l":
			step = 1
		case "left", "h":
			step = -1
		default:
			return nil, false
		}
		s := settingsTable[d.sel]
		vals := m.settingValues(s)
		if len(vals) == 0 {
			return nil, true
		}
		cur, at := values[d.sel], 0
		for i, v := range vals {
			if v == cur {
				at = i
			}
		}
		next := vals[(at+step+len(vals))%len(vals)]
		if s.apply != nil {
			if err := s.apply(m, next); err != nil {
				return m.notify(err.Error(), true), true
			}
		}
		var value any = next
		if next == "true" || next == "false" {
			value = next == "true"
		}
		if err := m.rt.SaveSetting(s.key, value); err != nil {
			return m.notify(err.Error(), true), true
		}
		values[d.sel] = next
		if s.key == "defaultProjectTrust" {
			m.trustDefault = next
		}
		d.options[d.sel] = m.settingLine(s, next)
		return m.refreshFooter(), true
	}
	return func() tea.Msg { return dialogOpenMsg{d} }
}
