package tui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/atomic-go/atomic/host/app"
)

// builtin is one of the terminal's own commands.
type builtinCmd struct {
	name, args, desc string
	run              func(m *model, args string) tea.Cmd // nil: the runtime runs it
}

var builtins []builtinCmd

func init() {
	// Set in init: the commands refer to the table (hotkeys lists it).
	builtins = []builtinCmd{
		{"new", "", "Start a new session", cmdNew},
		{"name", "<name>", "Name the session", cmdName},
		{"session", "", "Show the session's file, ids, tokens and cost", cmdSession},
		{"compact", "[instructions]", "Compact the context now", cmdCompact},
		{"model", "[filter]", "Choose the model", cmdModel},
		{"settings", "", "Change settings (saved in settings.json)", cmdSettings},
		{"resume", "", "Open an earlier session", cmdResume},
		{"fork", "", "Start a new session from an earlier message", cmdFork},
		{"tree", "", "Move within the session tree (and branch)", cmdTree},
		{"copy", "", "Copy the last answer to the clipboard", cmdCopy},
		{"export", "[file]", "Export the session as HTML", cmdExport},
		{"reload", "", "Reload extensions, skills, prompts, settings, keybindings and themes", cmdReload},
		{"trust", "", "Trust this project (load its extensions and resources)", cmdTrust},
		{"hotkeys", "", "Show the keys", cmdHotkeys},
		{"quit", "", "Quit", func(*model, string) tea.Cmd { return tea.Quit }},
	}
}

// builtin runs text when it is a built-in command.
func (m *model) builtin(text string) (tea.Cmd, bool) {
	if !strings.HasPrefix(text, "/") {
		return nil, false
	}
	name, args, _ := strings.Cut(text[1:], " ")
	for _, b := range builtins {
		if b.name == name && b.run != nil {
			return b.run(m, strings.TrimSpace(args)), true
		}
	}
	return nil, false
}

func cmdNew(m *model, _ string) tea.Cmd {
	rt := m.rt
	return func() tea.Msg {
		cancelled, err := rt.NewSession("")
		if err != nil {
			return errMsg{err}
		}
		if cancelled {
			return infoMsg("New session cancelled by an extension")
		}
		return resetMsg{msgs: rt.Messages()}
	}
}

func cmdName(m *model, args string) tea.Cmd {
	if args == "" {
		if m.state.SessionName == "" {
			return func() tea.Msg { return infoMsg("The session has no name. Usage: /name <name>") }
		}
		n := m.state.SessionName
		return func() tea.Msg { return infoMsg("Session name: " + n) }
	}
	rt := m.rt
	return func() tea.Msg {
		if err := rt.SetSessionName(args); err != nil {
			return errMsg{err}
		}
		return footerMsg{state: rt.State(), stats: rt.SessionStats()}
	}
}

func cmdSession(m *model, _ string) tea.Cmd {
	rt := m.rt
	return func() tea.Msg {
		st, s := rt.State(), rt.SessionStats()
		var b strings.Builder
		file := st.SessionFile
		if file == "" {
			file = "(not saved)"
		}
		fmt.Fprintf(&b, "Session %s\nFile: %s\n", st.SessionID, file)
		if st.SessionName != "" {
			fmt.Fprintf(&b, "Name: %s\n", st.SessionName)
		}
		fmt.Fprintf(&b, "Messages: %d user, %d assistant, %d tool calls, %d tool results (%d in all)\n",
			s.UserMessages, s.AssistantMessages, s.ToolCalls, s.ToolResults, s.TotalMessages)
		fmt.Fprintf(&b, "Tokens: %d input, %d output, %d cache read, %d cache write (%d in all)\nCost: $%.4f",
			s.Tokens.Input, s.Tokens.Output, s.Tokens.CacheRead, s.Tokens.CacheWrite, s.Tokens.Total, s.Cost)
		return infoMsg(b.String())
	}
}

func cmdCompact(m *model, args string) tea.Cmd {
	rt, ctx := m.rt, m.ctx
	return func() tea.Msg {
		if _, err := rt.CompactWith(ctx, args); err != nil {
			return errMsg{err}
		}
		return footerMsg{state: rt.State(), stats: rt.SessionStats()}
	}
}

func cmdModel(m *model, filter string) tea.Cmd {
	rt := m.rt
	return func() tea.Msg {
		models := rt.AvailableModels()
		names := make([]string, len(models))
		details := make([]string, len(models))
		for i, md := range models {
			names[i] = md.Provider + "/" + md.ID
			details[i] = md.Name
		}
		d := newPicker("Choose a model", names, details, func(i int) tea.Cmd {
			md := models[i]
			return func() tea.Msg {
				if _, err := rt.SetModel(md.Provider, md.ID, true); err != nil {
					return errMsg{err}
				}
				return footerMsg{state: rt.State(), stats: rt.SessionStats()}
			}
		})
		d.input.SetValue(filter)
		return dialogOpenMsg{d}
	}
}

func cmdResume(m *model, _ string) tea.Cmd {
	rt := m.rt
	return func() tea.Msg {
		list, err := rt.ListSessions("")
		if err != nil {
			return errMsg{err}
		}
		// The list comes newest first.
		names := make([]string, len(list))
		details := make([]string, len(list))
		for i, s := range list {
			names[i] = oneLine(s.FirstMessage)
			if s.Name != "" {
				names[i] = s.Name
			}
			details[i] = s.Modified
		}
		d := newPicker("Resume a session", names, details, func(i int) tea.Cmd {
			path := list[i].Path
			return func() tea.Msg {
				cancelled, err := rt.SwitchSession(path)
				if err != nil {
					return errMsg{err}
				}
				if cancelled {
					return infoMsg("Switching sessions was cancelled by an extension")
				}
				return resetMsg{msgs: rt.Messages()}
			}
		})
		return dialogOpenMsg{d}
	}
}

// cmdFork picks one of the session's user messages (newest first) and
// forks before it: the new session ends where that message was asked,
// and the message is put back in the editor to be edited and sent.
func cmdFork(m *model, _ string) tea.Cmd {
	rt := m.rt
	return func() tea.Msg {
		msgs, err := rt.ForkMessages()
		if err != nil {
			return errMsg{err}
		}
		if len(msgs) == 0 {
			return infoMsg("No message to fork from yet")
		}
		names := make([]string, len(msgs))
		for i := range msgs {
			names[i] = oneLine(msgs[len(msgs)-1-i].Text)
		}
		d := newPicker("Fork from a message", names, nil, func(i int) tea.Cmd {
			um := msgs[len(msgs)-1-i]
			return func() tea.Msg {
				res, err := rt.Fork(um.EntryID)
				if err != nil {
					return errMsg{err}
				}
				if res.Cancelled {
					return infoMsg("Forking was cancelled by an extension")
				}
				return resetMsg{msgs: rt.Messages(), editor: res.Text}
			}
		})
		return dialogOpenMsg{d}
	}
}

func cmdCopy(m *model, _ string) tea.Cmd {
	text, ok := m.rt.LastAssistantText()
	if !ok {
		return func() tea.Msg { return infoMsg("No answer to copy yet") }
	}
	return tea.Batch(tea.SetClipboard(text), m.notify("Copied the last answer to the clipboard", false))
}

func cmdExport(m *model, file string) tea.Cmd {
	rt := m.rt
	return func() tea.Msg {
		path, err := rt.ExportHTML(file)
		if err != nil {
			return errMsg{err}
		}
		return infoMsg("Exported to " + path)
	}
}

// cmdHotkeys lists the actions' keys (as keybindings.json set them), the
// built-in commands and, last as in pi, the extensions' shortcuts.
func cmdHotkeys(m *model, _ string) tea.Cmd {
	var b strings.Builder
	for _, group := range []struct{ title, prefix string }{{"Keys:", "app."}, {"Editor and lists:", "tui."}} {
		b.WriteString(group.title)
		for _, a := range actions() {
			if !a.unsupported && strings.HasPrefix(a.name, group.prefix) {
				fmt.Fprintf(&b, "\n  %-26s %s", m.keys.list(a.name), a.desc)
			}
		}
		b.WriteString("\n")
	}
	b.WriteString("Commands:")
	for _, c := range builtins {
		fmt.Fprintf(&b, "\n  /%-25s %s", strings.TrimSpace(c.name+" "+c.args), c.desc)
	}
	if len(m.shortcuts) > 0 {
		b.WriteString("\nExtensions:")
		for _, sc := range m.shortcuts {
			d := sc.spec.Description
			if d == "" {
				d = sc.spec.Path
			}
			fmt.Fprintf(&b, "\n  %-26s %s", sc.key, d)
		}
	}
	s := b.String()
	return func() tea.Msg { return infoMsg(s) }
}

// cmdTrust shows whether the project is trusted and, when it is not,
// offers to trust it: the decision is recorded in the agent directory's
// trust.json and the project's extensions, skills, prompt templates,
// context files and MCP servers are loaded at once (its settings file
// from the next start).
func cmdTrust(m *model, _ string) tea.Cmd {
	rt, ctx, cwd := m.rt, m.ctx, m.cwd
	return func() tea.Msg {
		if rt.ProjectTrusted() {
			return infoMsg("This project is trusted: " + cwd)
		}
		d := newPicker("Trust "+cwd+"?", []string{"Trust it: load its extensions, skills, prompts and context files now", "Not now"}, nil, func(i int) tea.Cmd {
			if i != 0 {
				return nil
			}
			return func() tea.Msg {
				n, err := rt.TrustProject(ctx)
				if err != nil {
					return errMsg{err}
				}
				return trustedMsg{text: fmt.Sprintf("Trusted %s (%d extensions loaded); its settings file is read from the next start", cwd, n)}
			}
		})
		d.message = "A project's extensions run code with your permissions. The decision is saved for future runs."
		return dialogOpenMsg{d}
	}
}

// trustedMsg reports a new trust decision: the command list is read again.
type trustedMsg struct{ text string }

// cmdReload has the runtime reload (extensions, skills, prompt templates,
// settings, context files), then reads keybindings.json and the themes
// again.
func cmdReload(m *model, _ string) tea.Cmd {
	rt := m.rt
	return func() tea.Msg {
		if err := submitNow(rt, app.PromptInput{Text: "/reload"}); err != nil {
			return errMsg{err}
		}
		return reloadedMsg{}
	}
}

// reloadedMsg follows the runtime's reload.
type reloadedMsg struct{}

// reloadUI reads the keybindings and themes again.
func (m *model) reloadUI() tea.Cmd {
	m.keys = loadKeymap(m.agentDir)
	m.keys.applyEditorKeys(&m.editor)
	var warn string
	m.themes, warn = loadThemes(m.agentDir)
	m.useTheme() // again with the packages' and project's themes
	for _, w := range []string{m.keys.warning, warn} {
		if w != "" {
			m.conv.fail(w)
		}
	}
	return tea.Batch(m.loadCommands(), m.refreshFooter(), m.loadThemeFiles())
}
