package tui

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"charm.land/bubbles/v2/textarea"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/atomic-go/atomic/host/app"
	"github.com/atomic-go/atomic/host/events"
	"github.com/atomic-go/atomic/host/llm"
)

// streamRenderEvery bounds how often the streaming answer is rendered
// again as markdown; deltas in between are only collected.
const streamRenderEvery = 50 * time.Millisecond

// Messages the program receives besides keys.
type (
	eventsMsg   struct{}
	streamTick  struct{}
	retryTick   struct{}
	noticeClear struct{ seq int }
	footerMsg   struct {
		state app.State
		stats app.SessionStats
	}
	commandsMsg []app.SlashCommand
	errMsg      struct{ err error }
	infoMsg     string
	// resetMsg clears the conversation and shows msgs (a new or resumed
	// session).
	resetMsg struct {
		msgs   []llm.Message
		editor string // the editor's new text (a fork's message)
	}
)

// pump collects the runtime's events and wakes the program once per
// batch, so a burst of deltas costs one update and at most one frame.
type pump struct {
	mu        sync.Mutex
	buf       []events.Event
	scheduled bool
	send      func(tea.Msg)
}

func (p *pump) sink(ev events.Event) {
	p.mu.Lock()
	p.buf = append(p.buf, ev)
	wake := !p.scheduled
	p.scheduled = true
	p.mu.Unlock()
	if wake {
		go p.send(eventsMsg{})
	}
}

func (p *pump) take() []events.Event {
	p.mu.Lock()
	defer p.mu.Unlock()
	evs := p.buf
	p.buf, p.scheduled = nil, false
	return evs
}

type widget struct {
	key   string
	lines []string
	below bool
}

// model is the terminal UI's state.
type model struct {
	rt   runtime
	pump *pump
	// resumeFirst opens the session picker at the start (-r).
	resumeFirst bool
	ctx         context.Context
	first       []app.PromptInput
	width       int
	height      int

	conv         *conversation
	md           markdown
	showThinking bool
	expandTools  bool
	scroll       int // lines scrolled up from the bottom

	editor   textarea.Model
	dialogs  []*dialog
	commands []app.SlashCommand
	compSel  int
	// compClosed hides the / list (Esc) until the editor's text changes.
	compClosed bool

	streaming     bool
	compacting    bool
	streamDirty   bool
	streamTicking bool
	lastStream    time.Time

	steering, followUp []string
	statuses           map[string]string
	widgets            []widget
	title              string
	notice             string
	noticeErr          bool
	noticeSeq          int

	state  app.State
	stats  app.SessionStats
	cwd    string
	branch string

	lastCtrlC, lastEsc time.Time

	retry *retryWait // the retry being waited for, its line counting down
}

type retryWait struct {
	line     *block
	deadline time.Time
	format   string // with one %s for the time left
}

func newModel(ctx context.Context, rt runtime, p *pump, first []app.PromptInput) *model {
	ed := textarea.New()
	ed.ShowLineNumbers = false
	ed.Prompt = ""
	ed.Placeholder = "Type a message, / for commands"
	ed.DynamicHeight = true
	ed.MinHeight = 1
	ed.MaxHeight = 10
	ed.SetHeight(1)
	ed.KeyMap.InsertNewline.SetKeys("shift+enter", "ctrl+j")
	ed.Focus()
	m := &model{
		rt: rt, pump: p, ctx: ctx, first: first, width: 80, height: 24,
		conv: newConversation(), editor: ed, statuses: map[string]string{},
		cwd: rt.Cwd(), md: markdown{dark: true},
	}
	m.branch = gitBranch(m.cwd)
	for _, msg := range rt.Messages() {
		m.conv.addMessage(msg)
	}
	return m
}

func (m *model) Init() tea.Cmd {
	cmds := []tea.Cmd{m.refreshFooter(), m.loadCommands(), tea.RequestBackgroundColor}
	if m.resumeFirst {
		cmds = append(cmds, cmdResume(m, ""))
	}
	if len(m.first) > 0 {
		first, rt := m.first, m.rt
		cmds = append(cmds, func() tea.Msg {
			for i, in := range first {
				if i > 0 {
					in.StreamingBehavior = app.BehaviorFollowUp
				}
				if err := submitNow(rt, in); err != nil {
					return errMsg{err}
				}
			}
			return nil
		})
	}
	return tea.Batch(cmds...)
}

// Runtime calls, made off the event loop.

func (m *model) refreshFooter() tea.Cmd {
	rt := m.rt
	return func() tea.Msg { return footerMsg{state: rt.State(), stats: rt.SessionStats()} }
}

func (m *model) loadCommands() tea.Cmd {
	rt := m.rt
	return func() tea.Msg { return commandsMsg(rt.StartedCommands()) }
}

func (m *model) submit(in app.PromptInput) tea.Cmd {
	rt := m.rt
	return func() tea.Msg {
		if err := submitNow(rt, in); err != nil {
			return errMsg{err}
		}
		return nil
	}
}

// submitNow submits a prompt and starts what it starts (an extension
// command runs to its end here).
func submitNow(rt runtime, in app.PromptInput) error {
	a, err := rt.Submit(in)
	if err != nil {
		return err
	}
	if a.Start != nil {
		a.Start()
	}
	return nil
}

func (m *model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.editor.SetWidth(max(m.width, 10))
		return m, nil
	case tea.BackgroundColorMsg:
		if dark := msg.IsDark(); dark != m.md.dark {
			m.md = markdown{dark: dark}
			m.conv.invalidateAll()
		}
		return m, nil
	case eventsMsg:
		return m, m.applyEvents(m.pump.take())
	case streamTick:
		m.streamTicking = false
		return m, m.flushStream()
	case retryTick:
		return m, m.retryCountdown()
	case footerMsg:
		m.state, m.stats = msg.state, msg.stats
		return m, nil
	case commandsMsg:
		m.commands = msg
		return m, nil
	case errMsg:
		m.conv.fail("Error: " + msg.err.Error())
		m.scroll = 0
		return m, nil
	case infoMsg:
		m.conv.info(string(msg))
		m.scroll = 0
		return m, nil
	case resetMsg:
		m.conv.clear()
		for _, mm := range msg.msgs {
			m.conv.addMessage(mm)
		}
		m.scroll = 0
		if msg.editor != "" {
			m.editor.SetValue(msg.editor)
		}
		m.cwd = m.rt.Cwd()
		m.branch = gitBranch(m.cwd)
		return m, tea.Batch(m.refreshFooter(), m.loadCommands())
	case noticeClear:
		if msg.seq == m.noticeSeq {
			m.notice = ""
		}
		return m, nil
	case uiNoteMsg:
		return m, m.uiNote(msg)
	case dialogOpenMsg:
		m.dialogs = append(m.dialogs, msg.d)
		return m, nil
	case dialogCloseMsg:
		for i, d := range m.dialogs {
			if d.id == msg.id {
				m.dialogs = append(m.dialogs[:i], m.dialogs[i+1:]...)
				break
			}
		}
		return m, nil
	case tea.PasteMsg:
		if len(m.dialogs) > 0 {
			return m, m.dialogs[0].paste(msg)
		}
		var c tea.Cmd
		m.editor, c = m.editor.Update(msg)
		return m, c
	case tea.KeyPressMsg:
		return m, m.key(msg)
	}
	return m, nil
}

// notify shows a transient line under the editor.
func (m *model) notify(text string, isErr bool) tea.Cmd {
	m.noticeSeq++
	m.notice, m.noticeErr = text, isErr
	seq := m.noticeSeq
	return tea.Tick(4*time.Second, func(time.Time) tea.Msg { return noticeClear{seq} })
}

func (m *model) uiNote(n uiNoteMsg) tea.Cmd {
	str := func(k string) string { s, _ := n.params[k].(string); return s }
	switch n.method {
	case "notify":
		return m.notify(str("message"), str("notifyType") == "error" || str("notifyType") == "warning")
	case "setStatus":
		if t := str("statusText"); t != "" {
			m.statuses[str("statusKey")] = t
		} else {
			delete(m.statuses, str("statusKey"))
		}
	case "setWidget":
		key := str("widgetKey")
		var lines []string
		if arr, ok := n.params["widgetLines"].([]any); ok {
			for _, l := range arr {
				s, _ := l.(string)
				lines = append(lines, s)
			}
		}
		kept := m.widgets[:0]
		for _, w := range m.widgets {
			if w.key != key {
				kept = append(kept, w)
			}
		}
		m.widgets = kept
		if len(lines) > 0 {
			m.widgets = append(m.widgets, widget{key: key, lines: lines, below: str("widgetPlacement") == "belowEditor"})
		}
	case "setTitle":
		m.title = str("title")
	case "set_editor_text":
		m.editor.SetValue(str("text"))
	}
	return nil
}

// applyEvents updates the conversation with a batch of events.
func (m *model) applyEvents(evs []events.Event) tea.Cmd {
	var cmds []tea.Cmd
	footer := false
	for _, ev := range evs {
		switch e := ev.(type) {
		case events.AgentStart:
			m.streaming = true
		case events.AgentSettled:
			m.streaming = false
			footer = true
		case events.MessageStart:
			switch e.Message.Role {
			case llm.RoleAssistant:
				m.conv.add(&block{kind: kindAssistant, parts: map[int]*part{}, streaming: true})
			default:
				m.conv.addMessage(e.Message)
			}
			m.scroll = 0
		case events.MessageUpdate:
			m.delta(e.Event)
		case events.MessageEnd:
			if e.Message.Role != llm.RoleAssistant {
				continue
			}
			if b := m.conv.lastAssistant(); b != nil {
				b.setFinal(e.Message)
			}
			for _, tc := range e.Message.ToolCalls() {
				t := m.conv.tool(tc.ID, tc.Name)
				t.args = tc.Arguments
				t.invalidate()
			}
			switch e.Message.StopReason {
			case llm.StopError:
				m.conv.fail("Error: " + e.Message.ErrorMessage)
			case llm.StopAborted:
				m.conv.fail("Aborted")
			}
			footer = true
		case events.ToolExecutionStart:
			t := m.conv.tool(e.ToolCallID, e.ToolName)
			t.args = e.Args
			t.invalidate()
		case events.ToolExecutionUpdate:
			t := m.conv.tool(e.ToolCallID, e.ToolName)
			t.output = e.PartialResult.ResultText()
			t.invalidate()
		case events.ToolExecutionEnd:
			t := m.conv.tool(e.ToolCallID, e.ToolName)
			t.finish(e.Result.ResultText(), e.Result.Details, e.IsError)
		case events.QueueUpdate:
			m.steering, m.followUp = e.Steering, e.FollowUp
		case events.AutoRetryStart:
			m.retry = &retryWait{
				line:     &block{kind: kindError},
				deadline: time.Now().Add(time.Duration(e.DelayMs) * time.Millisecond),
				format:   strings.ReplaceAll(e.ErrorMessage, "%", "%%") + fmt.Sprintf("; retrying in %%s (attempt %d of %d)", e.Attempt, e.MaxAttempts),
			}
			m.conv.add(m.retry.line)
			cmds = append(cmds, m.retryCountdown())
		case events.AutoRetryEnd:
			m.retry = nil
			if !e.Success && e.FinalError != "" {
				m.conv.fail("Retry failed: " + e.FinalError)
			}
		case events.CompactionStart:
			m.compacting = true
			m.conv.info("Compacting the context (" + e.Reason + ")…")
		case events.CompactionEnd:
			m.compacting = false
			switch {
			case e.Aborted:
				m.conv.info("Compaction cancelled")
			case e.ErrorMessage != "":
				m.conv.fail("Compaction failed: " + e.ErrorMessage)
			default:
				m.conv.info("Context compacted")
			}
			footer = true
		case events.ExtensionError:
			m.conv.fail(fmt.Sprintf("Extension %s (%s): %s", filepath.Base(e.ExtensionPath), e.Event, e.Error))
		case events.ModelChanged, events.ThinkingLevelChanged, events.SessionInfoChanged:
			footer = true
		}
	}
	if footer {
		cmds = append(cmds, m.refreshFooter())
	}
	cmds = append(cmds, m.flushStream())
	return tea.Batch(cmds...)
}

// retryCountdown shows the time left before the retry, once a second
// until it starts.
func (m *model) retryCountdown() tea.Cmd {
	r := m.retry
	if r == nil {
		return nil
	}
	left := time.Until(r.deadline)
	if left < 0 {
		left = 0
	}
	r.line.text = fmt.Sprintf(r.format, left.Round(time.Second))
	r.line.invalidate()
	if left == 0 {
		m.retry = nil
		return nil
	}
	return tea.Tick(min(left, time.Second), func(time.Time) tea.Msg { return retryTick{} })
}

// delta adds one streamed delta to the answer being streamed.
func (m *model) delta(ev llm.AssistantEvent) {
	b := m.conv.lastAssistant()
	if b == nil {
		return
	}
	switch ev.Type {
	case "text_delta", "thinking_delta":
		p := b.parts[ev.ContentIndex]
		if p == nil {
			p = &part{thinking: ev.Type == "thinking_delta"}
			b.parts[ev.ContentIndex] = p
		}
		p.text.WriteString(ev.Delta)
		m.streamDirty = true
	case "toolcall_start":
		m.conv.tool(ev.ID, ev.ToolName)
	case "toolcall_delta":
		// The call's id is known from its start; find the last open call.
		for i := len(m.conv.blocks) - 1; i >= 0; i-- {
			if t := m.conv.blocks[i]; t.kind == kindTool && !t.done && t.args == nil {
				t.argsRaw.WriteString(ev.Delta)
				t.invalidate()
				break
			}
		}
	}
}

// flushStream renders the streaming answer again when it changed and the
// last rendering is old enough; otherwise it schedules a tick.
func (m *model) flushStream() tea.Cmd {
	if !m.streamDirty {
		return nil
	}
	if wait := streamRenderEvery - time.Since(m.lastStream); wait > 0 {
		if m.streamTicking {
			return nil
		}
		m.streamTicking = true
		return tea.Tick(wait, func(time.Time) tea.Msg { return streamTick{} })
	}
	if b := m.conv.lastAssistant(); b != nil {
		b.invalidate()
	}
	m.streamDirty = false
	m.lastStream = time.Now()
	return nil
}

// The editor and its keys.

func (m *model) key(msg tea.KeyPressMsg) tea.Cmd {
	k := msg.String()
	if len(m.dialogs) > 0 {
		d := m.dialogs[0]
		done, c := d.key(msg)
		if done {
			m.dialogs = m.dialogs[1:]
		}
		return c
	}
	comp := m.completions()
	switch k {
	case "ctrl+c":
		if m.editor.Value() != "" {
			m.editor.Reset()
			return nil
		}
		if time.Since(m.lastCtrlC) < time.Second {
			return tea.Quit
		}
		m.lastCtrlC = time.Now()
		return m.notify("Press ctrl+c again to quit", false)
	case "ctrl+d":
		if m.editor.Value() == "" {
			return tea.Quit
		}
	case "ctrl+z":
		return tea.Suspend
	case "esc", "alt+esc": // a quick double Esc may arrive as one alt+esc
		if len(comp) > 0 {
			m.compClosed = true
			return nil
		}
		if m.streaming || m.compacting {
			rt := m.rt
			return func() tea.Msg { rt.CancelTurn(); return nil }
		}
		if k == "alt+esc" || time.Since(m.lastEsc) < 500*time.Millisecond {
			m.editor.Reset()
			m.lastEsc = time.Time{}
			return nil
		}
		m.lastEsc = time.Now()
		return nil
	case "shift+tab":
		rt := m.rt
		return func() tea.Msg {
			if _, ok := rt.CycleThinkingLevel(); !ok {
				return errMsg{fmt.Errorf("the current model does not reason")}
			}
			return footerMsg{state: rt.State(), stats: rt.SessionStats()}
		}
	case "ctrl+p", "ctrl+shift+p":
		rt, dir := m.rt, "forward"
		if k == "ctrl+shift+p" {
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
	case "ctrl+o":
		m.expandTools = !m.expandTools
		m.conv.invalidateAll()
		return nil
	case "ctrl+t":
		m.showThinking = !m.showThinking
		m.conv.invalidateAll()
		return nil
	case "pgup":
		m.scroll += max(m.height/2, 1)
		return nil
	case "pgdown":
		m.scroll = max(m.scroll-max(m.height/2, 1), 0)
		return nil
	case "up", "down":
		if len(comp) > 0 {
			if k == "up" {
				m.compSel = (m.compSel + len(comp) - 1) % len(comp)
			} else {
				m.compSel = (m.compSel + 1) % len(comp)
			}
			return nil
		}
	case "tab":
		if len(comp) > 0 {
			m.editor.SetValue("/" + comp[min(m.compSel, len(comp)-1)].Name + " ")
			m.editor.MoveToEnd()
			return nil
		}
	case "enter", "alt+enter":
		if len(comp) > 0 && k == "enter" {
			name := comp[min(m.compSel, len(comp)-1)].Name
			if "/"+name != strings.TrimSpace(m.editor.Value()) {
				m.editor.SetValue("/" + name + " ")
				m.editor.MoveToEnd()
				return nil
			}
		}
		text := strings.TrimSpace(m.editor.Value())
		if text == "" {
			return nil
		}
		m.editor.Reset()
		m.compSel, m.compClosed = 0, false
		m.scroll = 0
		if c, ok := m.builtin(text); ok {
			return c
		}
		behavior := app.BehaviorSteer
		if k == "alt+enter" {
			behavior = app.BehaviorFollowUp
		}
		return m.submit(app.PromptInput{Text: text, StreamingBehavior: behavior})
	}
	before := m.editor.Value()
	var c tea.Cmd
	m.editor, c = m.editor.Update(msg)
	if m.editor.Value() != before {
		m.compSel, m.compClosed = 0, false
	}
	return c
}

// completions lists the commands matching the editor's "/word" (none
// once a space follows the name).
func (m *model) completions() []app.SlashCommand {
	v := m.editor.Value()
	if m.compClosed || !strings.HasPrefix(v, "/") || strings.ContainsAny(v, " \n") {
		return nil
	}
	prefix := strings.ToLower(v[1:])
	var out []app.SlashCommand
	for _, c := range m.allCommands() {
		if strings.HasPrefix(strings.ToLower(c.Name), prefix) {
			out = append(out, c)
		}
	}
	return out
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

// The screen.

var styleRule = lipgloss.NewStyle().Foreground(lipgloss.Color("8"))

func (m *model) View() tea.View {
	w := max(m.width, 20)
	var bottom []string
	add := func(s string) {
		if s != "" {
			bottom = append(bottom, strings.Split(s, "\n")...)
		}
	}
	for _, s := range m.steering {
		add(styleDim.Render(truncateWidth("Steer: "+oneLine(s), w)))
	}
	for _, s := range m.followUp {
		add(styleDim.Render(truncateWidth("Follow-up: "+oneLine(s), w)))
	}
	for _, wd := range m.widgets {
		if !wd.below {
			for _, l := range wd.lines {
				add(truncateWidth(l, w))
			}
		}
	}
	if len(m.dialogs) > 0 {
		add(m.dialogs[0].view(w, max(m.height/3, 3)))
	} else {
		comp := m.completions()
		if m.compSel >= len(comp) {
			m.compSel = 0
		}
		start := 0
		if m.compSel >= 8 {
			start = m.compSel - 7
		}
		for i := start; i < len(comp) && i < start+8; i++ {
			c := comp[i]
			name := "/" + c.Name
			if c.ArgumentHint != "" {
				name += " " + c.ArgumentHint
			}
			line := fmt.Sprintf("%-24s %s", name, styleDim.Render(c.Description))
			line = truncateWidth(line, w-2)
			if i == m.compSel {
				add(styleAccent.Render("→ ") + line)
			} else {
				add("  " + line)
			}
		}
		add(styleRule.Render(strings.Repeat("─", w)))
		m.editor.SetWidth(w)
		add(m.editor.View())
		add(styleRule.Render(strings.Repeat("─", w)))
	}
	for _, wd := range m.widgets {
		if wd.below {
			for _, l := range wd.lines {
				add(truncateWidth(l, w))
			}
		}
	}
	switch {
	case m.notice != "":
		st := styleAccent
		if m.noticeErr {
			st = styleError
		}
		add(st.Render(truncateWidth(m.notice, w)))
	case m.streaming || m.compacting:
		add(styleAccent.Render("Working…") + styleDim.Render(" (esc to interrupt)"))
	}
	add(m.footer(w))

	convH := max(m.height-len(bottom), 0)
	lines := m.convLines(w, convH+m.scroll)
	if m.scroll > len(lines)-convH {
		m.scroll = max(len(lines)-convH, 0)
	}
	end := len(lines) - m.scroll
	startL := max(end-convH, 0)
	screen := make([]string, 0, m.height)
	for i := 0; i < convH-(end-startL); i++ {
		screen = append(screen, "")
	}
	screen = append(screen, lines[startL:end]...)
	screen = append(screen, bottom...)
	if len(screen) > m.height && m.height > 0 {
		screen = screen[len(screen)-m.height:]
	}
	v := tea.NewView(strings.Join(screen, "\n"))
	v.AltScreen = true
	v.WindowTitle = m.title
	if v.WindowTitle == "" {
		v.WindowTitle = "atomic: " + filepath.Base(m.cwd)
	}
	return v
}

// convLines renders blocks from the newest back until at least n lines
// are there (finished blocks come from their cache).
func (m *model) convLines(w, n int) []string {
	vw := view{width: w, showThinking: m.showThinking, expandTools: m.expandTools, md: m.md.render}
	var chunks [][]string
	total := 0
	for i := len(m.conv.blocks) - 1; i >= 0 && total < n; i-- {
		ls := m.conv.blocks[i].render(vw)
		chunks = append(chunks, ls)
		total += len(ls)
	}
	out := make([]string, 0, total)
	for i := len(chunks) - 1; i >= 0; i-- {
		out = append(out, chunks[i]...)
	}
	return out
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

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
