package tui

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"charm.land/bubbles/v2/textarea"
	tea "charm.land/bubbletea/v2"

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
// batch, at most 60 times a second: the events of that time (a model
// streams a delta every millisecond or so) cost one update and one view,
// not one each. Keys do not go through it.
type pump struct {
	mu        sync.Mutex
	buf       []events.Event
	scheduled bool
	send      func(tea.Msg)
}

// pumpFrame is how long the pump gathers events before it wakes the
// program (bench/tuicompare: a 2,000-delta answer took 571 ms of CPU
// woken per batch, 321 ms at 120 a second, 262 ms at 60).
const pumpFrame = time.Second / 60

func (p *pump) sink(ev events.Event) {
	p.mu.Lock()
	p.buf = append(p.buf, ev)
	wake := !p.scheduled
	p.scheduled = true
	p.mu.Unlock()
	if wake {
		time.AfterFunc(pumpFrame, func() { p.send(eventsMsg{}) })
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

	editor textarea.Model
	keys   keymap
	// The theme: the setting, the custom themes, the terminal's
	// background (dark until it answers), NO_COLOR.
	theme        *theme
	themes       map[string]*theme
	themeSetting string
	bgDark       bool
	noColor      bool
	trustDefault string // defaultProjectTrust, for /settings
	agentDir     string
	hist         *history
	pastes       pastes
	// files is the project's file list for @ completion (files.go).
	files        []string
	filesAt      time.Time
	filesCwd     string
	filesLoading bool
	// matches are the ranked paths for matchQuery in the list read at
	// matchFor.
	matches    []string
	matchQuery string
	matchFor   time.Time
	dialogs    []*dialog
	commands   []app.SlashCommand
	// shortcuts are the extensions' keys (shortcuts.go), shortcutWarned
	// the warnings about them already shown.
	shortcuts      []shortcut
	shortcutWarned map[string]bool
	compSel        int
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
	workingMsg         string   // setWorkingMessage ("": the default)
	header             []string // setHeader: lines above the conversation
	customFooter       []string // setFooter: lines instead of the footer (nil: the built-in one)
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

func newModel(ctx context.Context, rt runtime, p *pump, opts Options) *model {
	km := loadKeymap(opts.AgentDir)
	themes, themeWarn := loadThemes(opts.AgentDir)
	m := &model{
		rt: rt, pump: p, ctx: ctx, first: opts.Prompts, resumeFirst: opts.Resume, width: 80, height: 24,
		conv: newConversation(), editor: newEditor(km), keys: km, agentDir: opts.AgentDir, statuses: map[string]string{},
		shortcutWarned: map[string]bool{},
		hist:           loadHistory(historyFile(opts.AgentDir, rt.Cwd())),
		cwd:            rt.Cwd(), themes: themes, themeSetting: opts.Theme, bgDark: true, noColor: os.Getenv("NO_COLOR") != "",
		showThinking: !opts.HideThinking, trustDefault: opts.ProjectTrustDefault,
	}
	m.useTheme() // a theme not found yet may come from a package (addThemeFiles)
	m.branch = gitBranch(m.cwd)
	for _, msg := range rt.Messages() {
		m.conv.addMessage(msg)
	}
	for _, w := range []string{km.warning, strings.Trim(themeWarn, "; ")} {
		if w != "" {
			m.conv.fail(w)
		}
	}
	return m
}

func (m *model) Init() tea.Cmd {
	cmds := []tea.Cmd{m.refreshFooter(), m.loadCommands(), tea.RequestBackgroundColor, m.loadThemeFiles()}
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
	return tea.Batch(func() tea.Msg { return commandsMsg(rt.StartedCommands()) }, m.loadShortcuts())
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

// Update applies msg, then asks the extensions' renderers for the custom
// messages it added or whose width or Ctrl+O state it changed.
func (m *model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	_, c := m.update(msg)
	if r := m.requestRenders(); r != nil {
		c = tea.Batch(c, r)
	}
	return m, c
}

func (m *model) update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.editor.SetWidth(max(m.width, 10))
		return m, nil
	case tea.BackgroundColorMsg:
		if dark := msg.IsDark(); dark != m.bgDark {
			m.bgDark = dark
			m.useTheme()
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
	case shortcutsMsg:
		m.setShortcuts(msg)
		return m, nil
	case customRenderedMsg:
		m.rendered(msg)
		return m, nil
	case toolRenderedMsg:
		m.toolRendered(msg)
		return m, nil
	case errMsg:
		m.conv.fail("Error: " + msg.err.Error())
		m.scroll = 0
		return m, nil
	case themeFilesMsg:
		m.addThemeFiles(msg)
		return m, nil
	case reloadedMsg:
		return m, m.reloadUI()
	case trustedMsg:
		m.conv.info(msg.text)
		m.scroll = 0
		return m, tea.Batch(m.loadCommands(), m.refreshFooter())
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
			m.setEditorText(msg.editor)
		}
		if cwd := m.rt.Cwd(); cwd != m.cwd {
			m.cwd = cwd
			m.hist = loadHistory(historyFile(m.agentDir, cwd))
		}
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
		return m, m.paste(msg)
	case filesMsg:
		m.files, m.filesCwd, m.filesAt, m.filesLoading = msg.paths, msg.cwd, time.Now(), false
		return m, nil
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
		lines := uiLines(n.params["widgetLines"])
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
	case "setWorkingMessage":
		m.workingMsg = str("message")
	case "setHeader":
		m.header = uiLines(n.params["lines"])
	case "setFooter":
		m.customFooter = uiLines(n.params["lines"])
		if _, ok := n.params["lines"].([]any); ok && m.customFooter == nil {
			m.customFooter = []string{}
		}
	case "setTitle":
		m.title = str("title")
	case "set_editor_text":
		m.setEditorText(str("text"))
	}
	return nil
}

// uiLines is a request's array of lines (nil when absent).
func uiLines(v any) []string {
	arr, _ := v.([]any)
	var lines []string
	for _, l := range arr {
		s, _ := l.(string)
		lines = append(lines, strings.Split(s, "\n")...)
	}
	return lines
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
