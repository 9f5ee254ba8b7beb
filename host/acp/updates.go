package acp

import (
	"encoding/json"
	"fmt"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/atomic-go/atomic/host/events"
	"github.com/atomic-go/atomic/host/llm"
)

// The config options a session offers.
const (
	optModel    = "model"
	optThinking = "thinking"
)

// toolState is what the server remembers of an announced tool call.
type toolState struct {
	name string
	args map[string]any
	raw  *strings.Builder // the argument JSON streamed so far (until the call is complete)
	sent int              // len(raw) at the last rawInput update
	// terminal is the client's terminal the command runs in (bash with
	// acp.useClientTerminal): the tool call shows it instead of text.
	terminal string
}

// An update of the streamed arguments is sent when their text grew by at
// least a quarter since the last one: every update re-reads and re-sends
// the whole text, so a long argument (a file's content) costs about five
// times its size in all, in a number of updates that grows with its
// logarithm.
const streamGrowth = 4

// streamArgs adds a delta to the streamed arguments of the call at
// content index idx and sends what can be read of them (rawInput, and the
// title and locations they give).
func (s *Server) streamArgs(id string, idx int, delta string) {
	s.mu.Lock()
	ts := s.tools[s.streaming[idx]]
	callID := s.streaming[idx]
	if ts == nil || delta == "" {
		s.mu.Unlock()
		return
	}
	if ts.raw == nil {
		ts.raw = &strings.Builder{}
	}
	ts.raw.WriteString(delta)
	n := ts.raw.Len()
	if n-ts.sent < ts.sent/streamGrowth {
		s.mu.Unlock()
		return
	}
	ts.sent = n
	raw, name := ts.raw.String(), ts.name
	s.mu.Unlock()
	args := partialArgs(raw)
	if len(args) == 0 {
		return
	}
	s.mu.Lock()
	if ts.raw != nil { // not complete meanwhile
		ts.args = args
	}
	s.mu.Unlock()
	s.notify(id, toolInputUpdate(callID, name, args))
}

// dropCalls fails the tool calls announced in a reply that ended with an
// error or was aborted: they will not run, and the client would show them
// pending for ever.
func (s *Server) dropCalls(id, stop string) {
	s.mu.Lock()
	var dropped []string
	for _, c := range s.msgCalls {
		if _, ok := s.tools[c]; ok {
			delete(s.tools, c)
			dropped = append(dropped, c)
			if s.lastTool == c {
				s.lastTool = ""
			}
		}
	}
	s.msgCalls = s.msgCalls[:0]
	s.mu.Unlock()
	why := "Not run: the reply ended with an error"
	if stop == llm.StopAborted {
		why = "Not run: the reply was aborted"
	}
	for _, c := range dropped {
		s.notify(id, sdk.UpdateToolCall(sdk.ToolCallId(c), sdk.WithUpdateStatus(sdk.ToolCallStatusFailed),
			sdk.WithUpdateContent([]sdk.ToolCallContent{sdk.ToolContent(sdk.TextBlock(why))})))
	}
}

// toolInputUpdate is a tool_call_update with what the arguments (partial
// or complete) tell: title, rawInput, locations.
func toolInputUpdate(callID, name string, args map[string]any) sdk.SessionUpdate {
	opts := []sdk.ToolCallUpdateOpt{sdk.WithUpdateTitle(toolTitle(name, args)), sdk.WithUpdateRawInput(args)}
	if l := locations(args); l != nil {
		opts = append(opts, sdk.WithUpdateLocations(l))
	}
	return sdk.UpdateToolCall(sdk.ToolCallId(callID), opts...)
}

// notify writes one session/update notification. It goes to the writer
// directly (not through the SDK's connection, whose write lock is held
// while a response is written: see lineWriter).
func (s *Server) notify(sessionID string, u sdk.SessionUpdate) {
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "session/update",
		"params": sdk.SessionNotification{SessionId: sdk.SessionId(sessionID), Update: u}})
	if err != nil {
		s.rt.Log().Error("cannot encode a session update", "err", err)
		return
	}
	s.out.Send(b)
}

// activeSession is the id updates are sent for, or "" while the client has
// not been given the runtime's session. It runs for every event (each
// streamed delta): it asks for the session alone, not the whole state.
func (s *Server) activeSession() string {
	id := s.rt.Session().ID()
	s.mu.Lock()
	ok := s.announced[id]
	s.mu.Unlock()
	if !ok {
		return ""
	}
	return id
}

// onEvent maps the runtime's events to session/update notifications.
func (s *Server) onEvent(ev events.Event) {
	id := s.activeSession()
	if id == "" {
		return
	}
	switch e := ev.(type) {
	case events.MessageUpdate:
		switch e.Event.Type {
		case llm.EvTextDelta:
			s.notify(id, sdk.UpdateAgentMessageText(e.Event.Delta))
		case llm.EvThinkingDelta:
			s.notify(id, sdk.UpdateAgentThoughtText(e.Event.Delta))
		case llm.EvToolCallStart:
			// The call is shown as soon as the model starts it; its
			// arguments fill in as they stream.
			s.mu.Lock()
			s.streaming[e.Event.ContentIndex] = e.Event.ID
			s.msgCalls = append(s.msgCalls, e.Event.ID)
			s.mu.Unlock()
			s.announceTool(id, e.Event.ID, e.Event.ToolName, nil, sdk.ToolCallStatusPending)
		case llm.EvToolCallDelta:
			s.streamArgs(id, e.Event.ContentIndex, e.Event.Delta)
		case llm.EvToolCallEnd:
			if c := e.Event.ToolCall; c != nil {
				s.mu.Lock()
				ts := s.tools[c.ID]
				delete(s.streaming, e.Event.ContentIndex)
				if ts != nil {
					ts.args, ts.raw = c.Arguments, nil
				}
				s.mu.Unlock()
				if ts == nil {
					s.announceTool(id, c.ID, c.Name, c.Arguments, sdk.ToolCallStatusPending)
					return
				}
				s.notify(id, toolInputUpdate(c.ID, c.Name, c.Arguments))
			}
		}
	case events.MessageStart:
		if e.Message.Role == llm.RoleAssistant {
			s.mu.Lock()
			clear(s.streaming)
			s.msgCalls = s.msgCalls[:0]
			s.mu.Unlock()
		}
	case events.MessageEnd:
		if e.Message.Role != llm.RoleAssistant {
			return
		}
		if e.Message.StopReason == llm.StopError || e.Message.StopReason == llm.StopAborted {
			s.dropCalls(id, e.Message.StopReason)
		}
		s.mu.Lock()
		if s.turn != nil {
			s.turn.lastStop, s.turn.lastError, s.turn.refused = e.Message.StopReason, e.Message.ErrorMessage, e.Message.Refused
		}
		s.cost += e.Message.Usage.Cost.Total
		cost := s.cost
		s.mu.Unlock()
		s.sendUsage(id, e.Message.Usage, cost)
	case events.AgentEnd:
		s.mu.Lock()
		if s.turn != nil && e.TurnLimitReached {
			s.turn.limited = true
		}
		s.mu.Unlock()
	case events.ToolExecutionStart:
		s.mu.Lock()
		_, known := s.tools[e.ToolCallID]
		if known {
			s.lastTool = e.ToolCallID // dialogs now are about this call
		}
		s.mu.Unlock()
		if !known { // a tool started without a streamed call (extensions)
			s.announceTool(id, e.ToolCallID, e.ToolName, e.Args, sdk.ToolCallStatusInProgress)
			return
		}
		s.notify(id, sdk.UpdateToolCall(sdk.ToolCallId(e.ToolCallID), sdk.WithUpdateStatus(sdk.ToolCallStatusInProgress)))
	case events.ToolExecutionUpdate:
		s.mu.Lock()
		ts := s.tools[e.ToolCallID]
		inTerminal := ts != nil && ts.terminal != ""
		s.mu.Unlock()
		if text := resultText(e.PartialResult); text != "" && !inTerminal {
			s.notify(id, sdk.UpdateToolCall(sdk.ToolCallId(e.ToolCallID),
				sdk.WithUpdateContent([]sdk.ToolCallContent{sdk.ToolContent(sdk.TextBlock(text))})))
		}
		if plan := planOf(e.PartialResult.Details); plan != nil {
			s.notify(id, sdk.UpdatePlan(plan...))
		}
	case events.ToolExecutionEnd:
		s.mu.Lock()
		ts := s.tools[e.ToolCallID]
		delete(s.tools, e.ToolCallID)
		if s.lastTool == e.ToolCallID {
			s.lastTool = ""
		}
		s.mu.Unlock()
		var args map[string]any
		term := ""
		if ts != nil {
			args, term = ts.args, ts.terminal
		}
		update := toolResultUpdate(e.ToolCallID, e.ToolName, args, e.Result, e.IsError)
		if tu := update.ToolCallUpdate; term != "" {
			// The terminal stays in the call; text only for a failure.
			content := []sdk.ToolCallContent{sdk.ToolTerminalRef(term)}
			if e.IsError {
				content = append(content, tu.Content...)
			}
			tu.Content = content
		}
		s.notify(id, update)
		if plan := planOf(e.Result.Details); plan != nil && !e.IsError {
			s.notify(id, sdk.UpdatePlan(plan...))
		}
	case events.SessionInfoChanged:
		title := e.Name
		s.notify(id, sdk.SessionUpdate{SessionInfoUpdate: &sdk.SessionSessionInfoUpdate{SessionUpdate: "session_info_update", Title: &title}})
	case events.ModelChanged, events.ThinkingLevelChanged:
		s.notify(id, sdk.SessionUpdate{ConfigOptionUpdate: &sdk.SessionConfigOptionUpdate{SessionUpdate: "config_option_update", ConfigOptions: s.configOptions()}})
	}
}

func (s *Server) announceTool(id, callID, name string, args map[string]any, status sdk.ToolCallStatus) {
	s.mu.Lock()
	s.tools[callID] = &toolState{name: name, args: args}
	s.lastTool = callID
	s.mu.Unlock()
	s.notify(id, toolCallStart(callID, name, args, status))
}

func (s *Server) sendUsage(id string, u llm.Usage, cost float64) {
	st := s.rt.State()
	if st.Model == nil || st.Model.ContextWindow == 0 {
		return
	}
	used := u.Input + u.Output + u.CacheRead + u.CacheWrite
	if used == 0 {
		return
	}
	s.notify(id, sdk.SessionUpdate{UsageUpdate: &sdk.SessionUsageUpdate{SessionUpdate: "usage_update",
		Used: used, Size: st.Model.ContextWindow, Cost: &sdk.Cost{Amount: cost, Currency: "USD"}}})
}

// toolKind maps our tools to ACP's kinds.
func toolKind(name string) sdk.ToolKind {
	switch name {
	case "bash":
		return sdk.ToolKindExecute
	case "read", "ls":
		return sdk.ToolKindRead
	case "edit", "write":
		return sdk.ToolKindEdit
	case "grep", "find":
		return sdk.ToolKindSearch
	}
	return sdk.ToolKindOther
}

func str(args map[string]any, k string) string {
	v, _ := args[k].(string)
	return v
}

func toolTitle(name string, args map[string]any) string {
	switch name {
	case "bash":
		if c := str(args, "command"); c != "" {
			return "`" + firstLine(c) + "`"
		}
	case "read", "edit", "write", "ls":
		if p := str(args, "path"); p != "" {
			return strings.ToUpper(name[:1]) + name[1:] + " " + p
		}
	case "grep", "find":
		if p := str(args, "pattern"); p != "" {
			return name + " " + p
		}
	}
	return name
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}

func locations(args map[string]any) []sdk.ToolCallLocation {
	if p := str(args, "path"); p != "" {
		return []sdk.ToolCallLocation{{Path: p}}
	}
	return nil
}

func toolCallStart(callID, name string, args map[string]any, status sdk.ToolCallStatus) sdk.SessionUpdate {
	if args == nil {
		args = map[string]any{}
	}
	opts := []sdk.ToolCallStartOpt{sdk.WithStartKind(toolKind(name)), sdk.WithStartStatus(status), sdk.WithStartRawInput(args)}
	if l := locations(args); l != nil {
		opts = append(opts, sdk.WithStartLocations(l))
	}
	return sdk.StartToolCall(sdk.ToolCallId(callID), toolTitle(name, args), opts...)
}

// toolResultUpdate is the final tool_call_update: the status, the result's
// text, and for edit and write the change as a diff.
func toolResultUpdate(callID, name string, args map[string]any, r llm.ToolResult, isError bool) sdk.SessionUpdate {
	status := sdk.ToolCallStatusCompleted
	if isError {
		status = sdk.ToolCallStatusFailed
	}
	var content []sdk.ToolCallContent
	if !isError {
		switch name {
		case "edit":
			if p := str(args, "path"); p != "" {
				content = append(content, sdk.ToolDiffContent(p, str(args, "newText"), str(args, "oldText")))
			}
		case "write":
			if p := str(args, "path"); p != "" {
				content = append(content, sdk.ToolDiffContent(p, str(args, "content")))
			}
		}
	}
	if text := resultText(r); text != "" && (len(content) == 0 || isError) {
		content = append(content, sdk.ToolContent(sdk.TextBlock(text)))
	}
	for _, b := range r.Content {
		if b.Type == llm.BlockImage {
			content = append(content, sdk.ToolContent(sdk.ImageBlock(b.Data, b.MimeType)))
		}
	}
	opts := []sdk.ToolCallUpdateOpt{sdk.WithUpdateStatus(status), sdk.WithUpdateRawOutput(map[string]any{"content": resultText(r)})}
	if content != nil {
		opts = append(opts, sdk.WithUpdateContent(content))
	}
	return sdk.UpdateToolCall(sdk.ToolCallId(callID), opts...)
}

func resultText(r llm.ToolResult) string {
	var parts []string
	for _, b := range r.Content {
		if b.Type == llm.BlockText {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// configOptions are the session's model and thinking level.
func (s *Server) configOptions() []sdk.SessionConfigOption {
	st := s.rt.State()
	var opts []sdk.SessionConfigSelectOption
	current := ""
	if st.Model != nil {
		current = st.Model.Provider + "/" + st.Model.ID
	}
	seen := false
	for _, m := range s.rt.AvailableModels() {
		v := m.Provider + "/" + m.ID
		seen = seen || v == current
		name := m.Name
		if name == "" {
			name = m.ID
		}
		desc := m.Provider
		opts = append(opts, sdk.SessionConfigSelectOption{Value: sdk.SessionConfigValueId(v), Name: name, Description: &desc})
	}
	if !seen && current != "" {
		opts = append([]sdk.SessionConfigSelectOption{{Value: sdk.SessionConfigValueId(current), Name: st.Model.ID}}, opts...)
	}
	modelCat, thinkCat := sdk.SessionConfigOptionCategoryModel, sdk.SessionConfigOptionCategoryThoughtLevel
	out := []sdk.SessionConfigOption{}
	if len(opts) > 0 {
		model := sdk.NewSessionConfigOptionSelect(sdk.SessionConfigValueId(current),
			sdk.SessionConfigSelectOptions{Ungrouped: (*sdk.SessionConfigSelectOptionsUngrouped)(&opts)})
		model.Select.Id, model.Select.Name, model.Select.Category = optModel, "Model", &modelCat
		out = append(out, model)
	}
	var levels []sdk.SessionConfigSelectOption
	for _, l := range s.rt.AvailableThinkingLevels() {
		levels = append(levels, sdk.SessionConfigSelectOption{Value: sdk.SessionConfigValueId(l), Name: l})
	}
	if len(levels) > 0 {
		th := sdk.NewSessionConfigOptionSelect(sdk.SessionConfigValueId(st.ThinkingLevel),
			sdk.SessionConfigSelectOptions{Ungrouped: (*sdk.SessionConfigSelectOptionsUngrouped)(&levels)})
		th.Select.Id, th.Select.Name, th.Select.Category = optThinking, "Thinking", &thinkCat
		out = append(out, th)
	}
	return out
}

// sendCommands sends available_commands_update: prompt templates, skills
// and extension commands, with their argument hints.
func (s *Server) sendCommands(id string) {
	cmds := []sdk.AvailableCommand{}
	for _, c := range s.rt.Commands() {
		ac := sdk.AvailableCommand{Name: c.Name, Description: c.Description}
		if ac.Description == "" {
			ac.Description = c.Source + " command"
		}
		if c.ArgumentHint != "" {
			ac.Input = &sdk.AvailableCommandInput{Unstructured: &sdk.UnstructuredCommandInput{Hint: c.ArgumentHint}}
		}
		cmds = append(cmds, ac)
	}
	s.notify(id, sdk.SessionUpdate{AvailableCommandsUpdate: &sdk.SessionAvailableCommandsUpdate{SessionUpdate: "available_commands_update", AvailableCommands: cmds}})
}

// replay sends a loaded conversation as updates: user_message_chunk,
// agent_thought_chunk, agent_message_chunk, and every tool call with its
// result.
func (s *Server) replay(id string, msgs []llm.Message) {
	args := map[string]map[string]any{}
	var plan []sdk.PlanEntry // the last plan a tool gave, sent at the end
	defer func() {
		if plan != nil {
			s.notify(id, sdk.UpdatePlan(plan...))
		}
	}()
	for _, m := range msgs {
		switch m.Role {
		case llm.RoleUser:
			for _, b := range m.Content.Blocks {
				switch b.Type {
				case llm.BlockText:
					s.notify(id, sdk.UpdateUserMessageText(b.Text))
				case llm.BlockImage:
					s.notify(id, sdk.UpdateUserMessage(sdk.ImageBlock(b.Data, b.MimeType)))
				}
			}
		case llm.RoleAssistant:
			for _, b := range m.Content.Blocks {
				switch b.Type {
				case llm.BlockThinking:
					if b.Thinking != "" {
						s.notify(id, sdk.UpdateAgentThoughtText(b.Thinking))
					}
				case llm.BlockText:
					s.notify(id, sdk.UpdateAgentMessageText(b.Text))
				case llm.BlockToolCall:
					args[b.ID] = b.Arguments
					s.notify(id, toolCallStart(b.ID, b.Name, b.Arguments, sdk.ToolCallStatusPending))
				}
			}
		case llm.RoleToolResult:
			s.notify(id, toolResultUpdate(m.ToolCallID, m.ToolName, args[m.ToolCallID],
				llm.ToolResult{Content: m.Content.Blocks}, m.IsError))
			if p := planOf(m.Details); p != nil && !m.IsError {
				plan = p
			}
		default:
			if text := m.Text(); text != "" {
				s.notify(id, sdk.UpdateAgentMessageText(fmt.Sprintf("[%s] %s", m.Role, text)))
			}
		}
	}
}
