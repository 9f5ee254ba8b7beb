package sdk

import (
	"context"
	"encoding/json"
	"time"
)

// Context is passed to every handler, command and tool. It is a
// context.Context that ends when the agent cancels the call (abort,
// deadline, shutdown); pass it to Host calls and long work.
type Context struct {
	context.Context

	// Host calls back into the agent.
	Host Host
	// UI shows dialogs and notifications (resolving to defaults when the
	// agent has no UI: print and json modes).
	UI *UI

	// Cwd is the session's working directory.
	Cwd string
	// Mode is rpc, json or print.
	Mode string
	// HasUI reports whether dialogs reach a user.
	HasUI bool
	// SessionID and SessionFile identify the session ("" file when in
	// memory).
	SessionID, SessionFile string
	// Model is the current model (nil when none is selected).
	Model *Model
	// ThinkingLevel is the current thinking level.
	ThinkingLevel string
	// IsIdle reports whether no run was in flight when the call started.
	IsIdle bool
	// ProjectTrusted reports whether the project's extensions are trusted.
	ProjectTrusted bool

	flags map[string]string
}

// Flag returns the value of a flag this extension registered (the default
// when not given on the command line) and whether it is known.
func (c *Context) Flag(name string) (string, bool) {
	v, ok := c.flags[name]
	return v, ok
}

// BoolFlag reports whether a boolean flag is set.
func (c *Context) BoolFlag(name string) bool {
	v := c.flags[name]
	return v == "true" || v == "1"
}

// Host is the agent seen from an extension. Every method takes the
// handler's context so that the agent can cancel the call.
type Host interface {
	// SendMessage injects a custom message. With TriggerTurn an idle
	// agent starts a run; DeliverAs is "steer", "followUp" or "nextTurn".
	SendMessage(ctx context.Context, msg CustomMessage, opts SendOptions) error
	// SendUserMessage sends a user message (string or []Block content).
	SendUserMessage(ctx context.Context, content any, deliverAs string) error
	// AppendEntry appends a custom entry to the session and returns its id.
	AppendEntry(ctx context.Context, customType string, data any) (string, error)
	// SetSessionName names the session ("" clears it).
	SetSessionName(ctx context.Context, name string) error
	// SetLabel labels an entry ("" clears it).
	SetLabel(ctx context.Context, entryID, label string) error
	// Session reads the session.
	Session(ctx context.Context, q SessionQuery) (*SessionView, error)
	// ContextUsage estimates the context window usage (nil when unknown).
	ContextUsage(ctx context.Context) (*ContextUsage, error)
	// Tools lists the active tool names and every registered tool.
	Tools(ctx context.Context) (active []string, all []ToolInfo, err error)
	// SetActiveTools makes exactly these tools active.
	SetActiveTools(ctx context.Context, names []string) error
	// Model returns the model (nil when none) and the thinking level.
	Model(ctx context.Context) (*Model, string, error)
	// SetModel selects a model; false when unknown or without credentials.
	SetModel(ctx context.Context, provider, id string) (bool, error)
	// SetThinkingLevel sets the level and returns it after clamping.
	SetThinkingLevel(ctx context.Context, level string) (string, error)
	// Abort cancels the run in flight.
	Abort(ctx context.Context) error
	// UI sends one extension UI request (method and its fields).
	UI(ctx context.Context, method string, params map[string]any) (UIAnswer, error)
	// Exec runs a program without a shell.
	Exec(ctx context.Context, command string, args []string, opts ExecOptions) (*ExecResult, error)
	// Commands lists the slash commands.
	Commands(ctx context.Context) ([]CommandInfo, error)
	// State returns live values of the session.
	State(ctx context.Context) (*State, error)
	// Compact compacts the session now and returns the result (the
	// compact command's data) when done.
	Compact(ctx context.Context) (json.RawMessage, error)
	// RegisterMCPServer adds an MCP server for the session
	// (pi.registerMcpServer). config is one "mcpServers" entry of
	// mcp.json ({command, args, env, cwd} or {url, headers}, and the
	// optional fields); the server connects in the background and its
	// tools join the session's like a configured server's.
	RegisterMCPServer(ctx context.Context, name string, config json.RawMessage) error
}

// SendOptions tell how a custom message is delivered.
type SendOptions struct {
	TriggerTurn bool
	DeliverAs   string
}

// SessionQuery selects what Session returns besides the basics.
type SessionQuery struct {
	Entries, Branch, Tree bool
}

// SessionView is a read-only view of the session. Entries, Branch and Tree
// are JSON in the protocol's shapes (get_entries, get_tree).
type SessionView struct {
	SessionID, SessionFile, Name, LeafID, Cwd string
	Header                                    json.RawMessage
	Entries, Branch                           []map[string]any
	Tree                                      []map[string]any
}

// ContextUsage is the estimated context usage.
type ContextUsage struct {
	Tokens        *int     `json:"tokens"`
	ContextWindow int      `json:"contextWindow"`
	Percent       *float64 `json:"percent"`
}

// ToolInfo describes a registered tool.
type ToolInfo struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters,omitempty"`
}

// UIAnswer is the answer to a dialog.
type UIAnswer struct {
	Cancelled bool
	Value     string
	HasValue  bool
	Confirmed bool
}

// ExecOptions configure Exec.
type ExecOptions struct {
	Cwd     string
	Timeout time.Duration
}

// ExecResult is a program's outcome.
type ExecResult struct {
	Stdout, Stderr string
	Code           int
	Killed         bool
}

// CommandInfo is one entry of get_commands.
type CommandInfo struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Source      string `json:"source"`
	Location    string `json:"location,omitempty"`
	Path        string `json:"path,omitempty"`
}

// State is the live state of the session.
type State struct {
	IsIdle             bool
	HasPendingMessages bool
	SystemPrompt       string
}

// UI shows dialogs and notifications through the agent's client.
type UI struct {
	ctx  context.Context
	host Host
}

// DialogOptions configure a dialog. Timeout makes the agent resolve it to
// the default value when the user does not answer in time.
type DialogOptions struct {
	Timeout time.Duration
}

func dialogParams(p map[string]any, opts []DialogOptions) map[string]any {
	for _, o := range opts {
		if o.Timeout > 0 {
			p["timeout"] = o.Timeout.Milliseconds()
		}
	}
	return p
}

// Confirm asks a yes/no question; false when cancelled or timed out.
func (u *UI) Confirm(title, message string, opts ...DialogOptions) (bool, error) {
	a, err := u.host.UI(u.ctx, "confirm", dialogParams(map[string]any{"title": title, "message": message}, opts))
	return a.Confirmed && !a.Cancelled, err
}

// Select asks to choose an option; ok is false when cancelled.
func (u *UI) Select(title string, options []string, opts ...DialogOptions) (choice string, ok bool, err error) {
	a, err := u.host.UI(u.ctx, "select", dialogParams(map[string]any{"title": title, "options": options}, opts))
	return a.Value, a.HasValue && !a.Cancelled, err
}

// Input asks for a line of text; ok is false when cancelled.
func (u *UI) Input(title, placeholder string, opts ...DialogOptions) (text string, ok bool, err error) {
	p := map[string]any{"title": title}
	if placeholder != "" {
		p["placeholder"] = placeholder
	}
	a, err := u.host.UI(u.ctx, "input", dialogParams(p, opts))
	return a.Value, a.HasValue && !a.Cancelled, err
}

// Editor asks for multi-line text, prefilled; ok is false when cancelled.
func (u *UI) Editor(title, prefill string) (text string, ok bool, err error) {
	p := map[string]any{"title": title}
	if prefill != "" {
		p["prefill"] = prefill
	}
	a, err := u.host.UI(u.ctx, "editor", p)
	return a.Value, a.HasValue && !a.Cancelled, err
}

// Notify shows a message; kind is info, warning or error.
func (u *UI) Notify(message, kind string) error {
	p := map[string]any{"message": message}
	if kind != "" {
		p["notifyType"] = kind
	}
	_, err := u.host.UI(u.ctx, "notify", p)
	return err
}

// SetStatus sets (or with "" clears) a status line entry.
func (u *UI) SetStatus(key, text string) error {
	p := map[string]any{"statusKey": key}
	if text != "" {
		p["statusText"] = text
	}
	_, err := u.host.UI(u.ctx, "setStatus", p)
	return err
}

// SetWidget sets (or with nil lines clears) a widget; placement is
// aboveEditor or belowEditor.
func (u *UI) SetWidget(key string, lines []string, placement string) error {
	p := map[string]any{"widgetKey": key}
	if lines != nil {
		p["widgetLines"] = lines
	}
	if placement != "" {
		p["widgetPlacement"] = placement
	}
	_, err := u.host.UI(u.ctx, "setWidget", p)
	return err
}

// SetTitle sets the client's window title.
func (u *UI) SetTitle(title string) error {
	_, err := u.host.UI(u.ctx, "setTitle", map[string]any{"title": title})
	return err
}

// SetEditorText puts text into the client's editor.
func (u *UI) SetEditorText(text string) error {
	_, err := u.host.UI(u.ctx, "set_editor_text", map[string]any{"text": text})
	return err
}

// NewContext builds a handler context (used by Serve and by sdktest).
func NewContext(ctx context.Context, host Host, info ContextInfo) *Context {
	c := &Context{
		Context: ctx, Host: host, Cwd: info.Cwd, Mode: info.Mode, HasUI: info.HasUI,
		SessionID: info.SessionID, SessionFile: info.SessionFile, Model: info.Model,
		ThinkingLevel: info.ThinkingLevel, IsIdle: info.IsIdle, ProjectTrusted: info.ProjectTrusted,
		flags: info.Flags,
	}
	c.UI = &UI{ctx: c, host: host}
	return c
}

// ContextInfo is the snapshot a Context is built from.
type ContextInfo struct {
	Cwd, Mode              string
	HasUI                  bool
	SessionID, SessionFile string
	Model                  *Model
	ThinkingLevel          string
	IsIdle, ProjectTrusted bool
	Flags                  map[string]string
}
