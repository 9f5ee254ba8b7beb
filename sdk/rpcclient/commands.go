package rpcclient

import (
	"context"
	"encoding/json"
)

// cmd is a command under construction.
type cmd map[string]any

func (c *Client) do(ctx context.Context, command cmd, out any) error {
	resp, err := c.Call(ctx, map[string]any(command))
	if err != nil {
		return err
	}
	if out != nil {
		return resp.Decode(out)
	}
	return nil
}

// PromptOption changes a prompt command.
type PromptOption func(cmd)

// WithImages attaches images to the prompt.
func WithImages(images ...Image) PromptOption {
	return func(c cmd) { c["images"] = images }
}

// WithStreamingBehavior queues the prompt while the agent is running:
// "steer" or "followUp".
func WithStreamingBehavior(b string) PromptOption {
	return func(c cmd) { c["streamingBehavior"] = b }
}

// WithID sets the prompt's request id.
func WithID(id string) PromptOption {
	return func(c cmd) { c["id"] = id }
}

// Prompt sends a prompt and returns once the agent accepted it (or
// queued or handled it). The run's events follow: subscribe before
// calling Prompt to see them, or use PromptAndWait.
func (c *Client) Prompt(ctx context.Context, message string, opts ...PromptOption) error {
	_, err := c.Submit(ctx, message, opts...)
	return err
}

// Dispositions of an accepted prompt, steer or follow_up.
const (
	// DispositionStarted: the prompt started a run (wait for
	// agent_settled).
	DispositionStarted = "started"
	// DispositionQueued: the message was queued during a run.
	DispositionQueued = "queued"
	// DispositionHandled: an extension command or input handler consumed
	// it; no run started for it.
	DispositionHandled = "handled"
)

type dispositionData struct {
	Disposition string `json:"disposition"`
}

// Submit is Prompt that returns the prompt's disposition
// (DispositionStarted, DispositionQueued or DispositionHandled; "" from
// agents that do not report one).
func (c *Client) Submit(ctx context.Context, message string, opts ...PromptOption) (string, error) {
	command := cmd{"type": "prompt", "message": message}
	for _, o := range opts {
		o(command)
	}
	var d dispositionData
	err := c.do(ctx, command, &d)
	return d.Disposition, err
}

// Run is what PromptAndWait saw of one run.
type Run struct {
	// Disposition is the prompt's disposition; for DispositionHandled no
	// run started, PromptAndWait returns at once and Events and Messages
	// are empty.
	Disposition string
	// Events are the records from the prompt's acceptance to agent_end,
	// agent_end included.
	Events []Event
	// Messages are the messages of agent_end: what the run added.
	Messages []Message
}

// Text returns the text of the run's last assistant message.
func (r *Run) Text() string {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if r.Messages[i].Role == "assistant" {
			return r.Messages[i].Text()
		}
	}
	return ""
}

// OfType returns the run's events of type typ.
func (r *Run) OfType(typ string) []Event {
	var out []Event
	for _, ev := range r.Events {
		if ev.Type == typ {
			out = append(out, ev)
		}
	}
	return out
}

// PromptAndWait sends a prompt and waits for the end of the run it
// starts (the first agent_end after the prompt). A run that the agent
// retries after a transient provider error ends with its own agent_end
// before the retry starts; wait for more with a subscription if needed.
func (c *Client) PromptAndWait(ctx context.Context, message string, opts ...PromptOption) (*Run, error) {
	sub := c.Subscribe()
	defer sub.Close()
	disposition, err := c.Submit(ctx, message, opts...)
	if err != nil {
		return nil, err
	}
	run := &Run{Disposition: disposition}
	if disposition == DispositionHandled {
		return run, nil // no run started: nothing to wait for
	}
	for {
		ev, err := sub.Next(ctx)
		if err == ErrClosed {
			c.mu.Lock()
			exit := c.exitErr
			c.mu.Unlock()
			if exit != nil {
				return run, callErr(exit, "prompt")
			}
			return run, err
		}
		if err != nil {
			return run, err
		}
		run.Events = append(run.Events, ev)
		if ev.Type == "agent_end" {
			var end AgentEnd
			if err := ev.Decode(&end); err != nil {
				return run, err
			}
			run.Messages = end.Messages
			return run, nil
		}
	}
}

// Steer queues a message delivered while the agent is running, after the
// current turn's tool calls.
func (c *Client) Steer(ctx context.Context, message string, images ...Image) error {
	_, err := c.queue(ctx, "steer", message, images)
	return err
}

// FollowUp queues a message delivered when the agent has finished.
func (c *Client) FollowUp(ctx context.Context, message string, images ...Image) error {
	_, err := c.queue(ctx, "follow_up", message, images)
	return err
}

// SteerDisposition is Steer returning the disposition
// (DispositionQueued, or DispositionHandled when an input handler
// consumed the message).
func (c *Client) SteerDisposition(ctx context.Context, message string, images ...Image) (string, error) {
	return c.queue(ctx, "steer", message, images)
}

// FollowUpDisposition is FollowUp returning the disposition.
func (c *Client) FollowUpDisposition(ctx context.Context, message string, images ...Image) (string, error) {
	return c.queue(ctx, "follow_up", message, images)
}

func (c *Client) queue(ctx context.Context, typ, message string, images []Image) (string, error) {
	command := cmd{"type": typ, "message": message}
	if len(images) > 0 {
		command["images"] = images
	}
	var d dispositionData
	err := c.do(ctx, command, &d)
	return d.Disposition, err
}

// Abort aborts the current run and returns once the agent is idle.
func (c *Client) Abort(ctx context.Context) error {
	return c.do(ctx, cmd{"type": "abort"}, nil)
}

// ClearQueue removes the queued steering and follow-up messages and
// returns them.
func (c *Client) ClearQueue(ctx context.Context) (*Queue, error) {
	var q Queue
	return &q, c.do(ctx, cmd{"type": "clear_queue"}, &q)
}

// PauseQueuedMessages holds queued messages: steering and follow-up
// messages stay queued, and prompts sent while idle are queued, until
// ResumeQueuedMessages (State.QueuedMessagesPaused says so meanwhile).
func (c *Client) PauseQueuedMessages(ctx context.Context) error {
	return c.do(ctx, cmd{"type": "pause_queued_messages"}, nil)
}

// ResumeQueuedMessages ends a pause; released reports whether held
// messages went on.
func (c *Client) ResumeQueuedMessages(ctx context.Context) (released bool, err error) {
	var out struct {
		Released bool `json:"released"`
	}
	err = c.do(ctx, cmd{"type": "resume_queued_messages"}, &out)
	return out.Released, err
}

// SetSteeringMode sets how steering messages are delivered: "all" or
// "one-at-a-time".
func (c *Client) SetSteeringMode(ctx context.Context, mode string) error {
	return c.do(ctx, cmd{"type": "set_steering_mode", "mode": mode}, nil)
}

// SetFollowUpMode sets how follow-up messages are delivered: "all" or
// "one-at-a-time".
func (c *Client) SetFollowUpMode(ctx context.Context, mode string) error {
	return c.do(ctx, cmd{"type": "set_follow_up_mode", "mode": mode}, nil)
}

// GetState returns the session state.
func (c *Client) GetState(ctx context.Context) (*State, error) {
	var s State
	if err := c.do(ctx, cmd{"type": "get_state"}, &s); err != nil {
		return nil, err
	}
	return &s, nil
}

// GetMessages returns the messages of the current context.
func (c *Client) GetMessages(ctx context.Context) ([]Message, error) {
	var out struct {
		Messages []Message `json:"messages"`
	}
	err := c.do(ctx, cmd{"type": "get_messages"}, &out)
	return out.Messages, err
}

// GetLastAssistantText returns the text of the last assistant message;
// ok is false when there is none.
func (c *Client) GetLastAssistantText(ctx context.Context) (text string, ok bool, err error) {
	var out struct {
		Text *string `json:"text"`
	}
	if err := c.do(ctx, cmd{"type": "get_last_assistant_text"}, &out); err != nil {
		return "", false, err
	}
	if out.Text == nil {
		return "", false, nil
	}
	return *out.Text, true, nil
}

// SetModel switches the model; persist also saves it as the default.
func (c *Client) SetModel(ctx context.Context, provider, modelID string, persist bool) (*Model, error) {
	command := cmd{"type": "set_model", "provider": provider, "modelId": modelID}
	if persist {
		command["persist"] = true
	}
	var m Model
	if err := c.do(ctx, command, &m); err != nil {
		return nil, err
	}
	return &m, nil
}

// CycleModel switches to the next model ("forward", or "backward"; empty
// for the default). It returns nil when there are fewer than two models
// to cycle through.
func (c *Client) CycleModel(ctx context.Context, direction string, persist bool) (*CycleModelResult, error) {
	command := cmd{"type": "cycle_model"}
	if direction != "" {
		command["direction"] = direction
	}
	if persist {
		command["persist"] = true
	}
	resp, err := c.Call(ctx, map[string]any(command))
	if err != nil {
		return nil, err
	}
	if resp.IsNull() {
		return nil, nil
	}
	var r CycleModelResult
	return &r, resp.Decode(&r)
}

// GetAvailableModels returns the models that can be used.
func (c *Client) GetAvailableModels(ctx context.Context) (*ModelCatalog, error) {
	var m ModelCatalog
	if err := c.do(ctx, cmd{"type": "get_available_models"}, &m); err != nil {
		return nil, err
	}
	return &m, nil
}

// LogoutProvider removes a provider's stored credential.
func (c *Client) LogoutProvider(ctx context.Context, provider string) (*LogoutResult, error) {
	var r LogoutResult
	if err := c.do(ctx, cmd{"type": "logout_provider", "provider": provider}, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// SetThinkingLevel sets the thinking level (off, minimal, low, medium,
// high, xhigh, max); the agent clamps it to the model. The result is nil
// for agents that answer without data.
func (c *Client) SetThinkingLevel(ctx context.Context, level string, persist bool) (*ThinkingLevelResult, error) {
	command := cmd{"type": "set_thinking_level", "level": level}
	if persist {
		command["persist"] = true
	}
	resp, err := c.Call(ctx, map[string]any(command))
	if err != nil || resp.IsNull() {
		return nil, err
	}
	var r ThinkingLevelResult
	return &r, resp.Decode(&r)
}

// CycleThinkingLevel switches to the next thinking level and returns it;
// ok is false when the model has no thinking levels to cycle.
func (c *Client) CycleThinkingLevel(ctx context.Context) (level string, ok bool, err error) {
	resp, err := c.Call(ctx, map[string]any{"type": "cycle_thinking_level"})
	if err != nil || resp.IsNull() {
		return "", false, err
	}
	var out struct {
		Level string `json:"level"`
	}
	return out.Level, true, resp.Decode(&out)
}

// GetAvailableThinkingLevels returns the model's thinking levels in cycle
// order.
func (c *Client) GetAvailableThinkingLevels(ctx context.Context) ([]string, error) {
	var out struct {
		Levels []string `json:"levels"`
	}
	err := c.do(ctx, cmd{"type": "get_available_thinking_levels"}, &out)
	return out.Levels, err
}

// Compact runs a compaction of the session's context.
func (c *Client) Compact(ctx context.Context) (*CompactionResult, error) {
	return c.CompactWith(ctx, "")
}

// CompactWith is Compact with custom instructions: what the compaction
// should focus on (pi's customInstructions; atomic uses them as the
// planner's relevance query).
func (c *Client) CompactWith(ctx context.Context, customInstructions string) (*CompactionResult, error) {
	command := cmd{"type": "compact"}
	if customInstructions != "" {
		command["customInstructions"] = customInstructions
	}
	var r CompactionResult
	if err := c.do(ctx, command, &r); err != nil {
		return nil, err
	}
	if r.CompactedText == "" {
		r.CompactedText = r.Summary
	}
	return &r, nil
}

// SetAutoCompaction turns automatic compaction on or off.
func (c *Client) SetAutoCompaction(ctx context.Context, enabled bool) error {
	return c.do(ctx, cmd{"type": "set_auto_compaction", "enabled": enabled}, nil)
}

// AbortCompaction cancels a running compaction.
func (c *Client) AbortCompaction(ctx context.Context) error {
	return c.do(ctx, cmd{"type": "abort_compaction"}, nil)
}

// SetAutoRetry turns automatic retry of transient provider errors on or
// off.
func (c *Client) SetAutoRetry(ctx context.Context, enabled bool) error {
	return c.do(ctx, cmd{"type": "set_auto_retry", "enabled": enabled}, nil)
}

// AbortRetry cancels a pending automatic retry.
func (c *Client) AbortRetry(ctx context.Context) error {
	return c.do(ctx, cmd{"type": "abort_retry"}, nil)
}

// BashRequest is a direct shell command (bash or user_bash).
type BashRequest struct {
	Command string
	// ID is the request id; set it to abort this command later with
	// AbortBash (see NewID). Empty: the client makes one up.
	ID string
	// ExcludeFromContext keeps the output out of the model's context.
	ExcludeFromContext bool
	// User sends user_bash instead of bash.
	User bool
	// OnOutput, when set, receives the command's bash_execution_update
	// records in order. It runs on the client's reading goroutine and must
	// return quickly.
	OnOutput func(BashUpdate)
}

// Bash runs a shell command in the session's working directory and
// returns its result; the output is added to the session.
func (c *Client) Bash(ctx context.Context, req BashRequest) (*BashResult, error) {
	typ := "bash"
	if req.User {
		typ = "user_bash"
	}
	id := req.ID
	if id == "" {
		id = c.NewID()
	}
	command := cmd{"type": typ, "id": id, "command": req.Command}
	if req.ExcludeFromContext {
		command["excludeFromContext"] = true
	}
	if req.OnOutput != nil {
		c.mu.Lock()
		c.bashOut[id] = req.OnOutput
		c.mu.Unlock()
		defer func() {
			c.mu.Lock()
			delete(c.bashOut, id)
			c.mu.Unlock()
		}()
	}
	var r BashResult
	if err := c.do(ctx, command, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// AbortBash cancels the bash command with request id requestID, or every
// running direct bash command when requestID is empty.
func (c *Client) AbortBash(ctx context.Context, requestID string) error {
	command := cmd{"type": "abort_bash"}
	if requestID != "" {
		command["requestId"] = requestID
	}
	return c.do(ctx, command, nil)
}

// NewSession starts a fresh session (parentSession, when set, records
// where it came from). cancelled is true when an extension refused.
func (c *Client) NewSession(ctx context.Context, parentSession string) (cancelled bool, err error) {
	command := cmd{"type": "new_session"}
	if parentSession != "" {
		command["parentSession"] = parentSession
	}
	return c.cancelled(ctx, command)
}

func (c *Client) cancelled(ctx context.Context, command cmd) (bool, error) {
	var out struct {
		Cancelled bool `json:"cancelled"`
	}
	err := c.do(ctx, command, &out)
	return out.Cancelled, err
}

// SwitchSession opens another session file.
func (c *Client) SwitchSession(ctx context.Context, sessionPath string) (cancelled bool, err error) {
	return c.cancelled(ctx, cmd{"type": "switch_session", "sessionPath": sessionPath})
}

// ImportSession copies a session file into the session directory and
// opens it; cwdOverride, when set, replaces its working directory.
func (c *Client) ImportSession(ctx context.Context, inputPath, cwdOverride string) (cancelled bool, err error) {
	command := cmd{"type": "import_session", "inputPath": inputPath}
	if cwdOverride != "" {
		command["cwdOverride"] = cwdOverride
	}
	return c.cancelled(ctx, command)
}

// Fork starts a new session from the user message entryID and returns
// that message's text.
func (c *Client) Fork(ctx context.Context, entryID string) (*ForkResult, error) {
	var r ForkResult
	if err := c.do(ctx, cmd{"type": "fork", "entryId": entryID}, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// Clone copies the active branch into a new session.
func (c *Client) Clone(ctx context.Context) (cancelled bool, err error) {
	return c.cancelled(ctx, cmd{"type": "clone"})
}

// GetForkMessages returns the user messages a fork can start from.
func (c *Client) GetForkMessages(ctx context.Context) ([]ForkMessage, error) {
	var out struct {
		Messages []ForkMessage `json:"messages"`
	}
	err := c.do(ctx, cmd{"type": "get_fork_messages"}, &out)
	return out.Messages, err
}

// GetEntries returns the session's entries in append order, those after
// entry since when it is set.
func (c *Client) GetEntries(ctx context.Context, since string) (*Entries, error) {
	command := cmd{"type": "get_entries"}
	if since != "" {
		command["since"] = since
	}
	var e Entries
	if err := c.do(ctx, command, &e); err != nil {
		return nil, err
	}
	return &e, nil
}

// GetTree returns the session as a tree of entries.
func (c *Client) GetTree(ctx context.Context) (*Tree, error) {
	var t Tree
	if err := c.do(ctx, cmd{"type": "get_tree"}, &t); err != nil {
		return nil, err
	}
	return &t, nil
}

// NavigateTree moves the session's leaf to targetID.
func (c *Client) NavigateTree(ctx context.Context, targetID string, opts *NavigateOptions) (*NavigateResult, error) {
	command := cmd{"type": "navigate_tree", "targetId": targetID}
	if opts != nil {
		command["options"] = opts
	}
	var r NavigateResult
	if err := c.do(ctx, command, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// SetLabel labels an entry; an empty label clears it.
func (c *Client) SetLabel(ctx context.Context, entryID, label string) error {
	command := cmd{"type": "set_label", "entryId": entryID}
	if label != "" {
		command["label"] = label
	}
	return c.do(ctx, command, nil)
}

// SetSessionName sets the session's display name.
func (c *Client) SetSessionName(ctx context.Context, name string) error {
	return c.do(ctx, cmd{"type": "set_session_name", "name": name}, nil)
}

// GetSessionStats returns the session's message counts, tokens, cost and
// context usage.
func (c *Client) GetSessionStats(ctx context.Context) (*SessionStats, error) {
	var s SessionStats
	if err := c.do(ctx, cmd{"type": "get_session_stats"}, &s); err != nil {
		return nil, err
	}
	return &s, nil
}

// ExportHTML writes the session as an HTML page (to outputPath, or a
// default place when empty) and returns the path.
func (c *Client) ExportHTML(ctx context.Context, outputPath string) (string, error) {
	command := cmd{"type": "export_html"}
	if outputPath != "" {
		command["outputPath"] = outputPath
	}
	var out struct {
		Path string `json:"path"`
	}
	err := c.do(ctx, command, &out)
	return out.Path, err
}

// GetCommands returns the slash commands: extension commands, prompt
// templates and skills.
func (c *Client) GetCommands(ctx context.Context) ([]SlashCommand, error) {
	var out struct {
		Commands []SlashCommand `json:"commands"`
	}
	err := c.do(ctx, cmd{"type": "get_commands"}, &out)
	return out.Commands, err
}

// GetCommandCompletions returns completions for a command's argument; nil
// when the command has no completer.
func (c *Client) GetCommandCompletions(ctx context.Context, commandName, argumentPrefix string) ([]Completion, error) {
	var out struct {
		Completions []Completion `json:"completions"`
	}
	err := c.do(ctx, cmd{"type": "get_command_completions", "commandName": commandName, "argumentPrefix": argumentPrefix}, &out)
	return out.Completions, err
}

// Reload re-discovers skills, templates, context files and extensions.
func (c *Client) Reload(ctx context.Context) error {
	return c.do(ctx, cmd{"type": "reload"}, nil)
}

// GetResourceDiagnostics returns the problems of the last resource
// discovery (an atomic command; other agents answer "Unknown command").
func (c *Client) GetResourceDiagnostics(ctx context.Context) ([]ResourceDiagnostic, error) {
	var out struct {
		Diagnostics []ResourceDiagnostic `json:"diagnostics"`
	}
	err := c.do(ctx, cmd{"type": "get_resource_diagnostics"}, &out)
	return out.Diagnostics, err
}

// RawData is a helper for commands without a typed method: it sends cmd
// with Call and returns the response's data.
func (c *Client) RawData(ctx context.Context, command map[string]any) (json.RawMessage, error) {
	resp, err := c.Call(ctx, command)
	if err != nil {
		return nil, err
	}
	return resp.Data, nil
}

// Scopes of ListSessions.
const (
	SessionScopeCwd = "cwd" // the sessions of the agent's working directory
	SessionScopeAll = "all" // every saved session
)

// ListSessions lists the saved sessions, newest first: of the agent's
// working directory (SessionScopeCwd, or "") or all of them
// (SessionScopeAll).
func (c *Client) ListSessions(ctx context.Context, scope string) ([]SessionInfo, error) {
	command := cmd{"type": "list_sessions"}
	if scope != "" {
		command["scope"] = scope
	}
	var out struct {
		Sessions []SessionInfo `json:"sessions"`
	}
	err := c.do(ctx, command, &out)
	return out.Sessions, err
}
