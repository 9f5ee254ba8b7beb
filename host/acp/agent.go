package acp

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/atomic-go/atomic/host/app"
	"github.com/atomic-go/atomic/host/llm"
)

// agent implements the SDK's Agent interface over the server.
type agent struct{ s *Server }

var (
	_ sdk.Agent       = agent{}
	_ sdk.AgentLoader = agent{}
)

func invalid(format string, a ...any) error {
	return sdk.NewInvalidParams(map[string]any{"details": fmt.Sprintf(format, a...)})
}

func (a agent) Initialize(_ context.Context, p sdk.InitializeRequest) (sdk.InitializeResponse, error) {
	a.s.mu.Lock()
	a.s.clientCaps = p.ClientCapabilities
	a.s.mu.Unlock()
	a.s.useClientBackends(p.ClientCapabilities)
	title := "Atomic"
	return sdk.InitializeResponse{
		// Version 1 is the only stable one: a client asking for another
		// gets 1 and decides whether it can go on.
		ProtocolVersion: sdk.ProtocolVersion(sdk.ProtocolVersionNumber),
		AgentInfo:       &sdk.Implementation{Name: "atomic", Title: &title, Version: a.s.opts.Version},
		AgentCapabilities: sdk.AgentCapabilities{
			LoadSession:        true,
			PromptCapabilities: sdk.PromptCapabilities{Image: true, EmbeddedContext: true},
			McpCapabilities:    sdk.McpCapabilities{Http: true},
			SessionCapabilities: sdk.SessionCapabilities{
				List:   &sdk.SessionListCapabilities{},
				Resume: &sdk.SessionResumeCapabilities{},
				Close:  &sdk.SessionCloseCapabilities{},
			},
		},
		AuthMethods: []sdk.AuthMethod{},
	}, nil
}

func (a agent) Authenticate(context.Context, sdk.AuthenticateRequest) (sdk.AuthenticateResponse, error) {
	// Credentials are the agent's own (auth.json, environment); no method
	// is advertised, so there is nothing to authenticate.
	return sdk.AuthenticateResponse{}, nil
}

// checkCwd refuses a working directory other than the agent's: the tools
// run in the runtime's directory, and silently using another one would
// surprise.
func (a agent) checkCwd(cwd string) error {
	if cwd == "" {
		return nil
	}
	if !filepath.IsAbs(cwd) {
		return invalid("cwd must be an absolute path, got %q", cwd)
	}
	have := a.s.rt.Cwd()
	if sameDir(cwd, have) {
		return nil
	}
	return invalid("this agent serves %s; start it in %s to work there", have, cwd)
}

func sameDir(a, b string) bool {
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	ra, err1 := filepath.EvalSymlinks(a)
	rb, err2 := filepath.EvalSymlinks(b)
	return err1 == nil && err2 == nil && ra == rb
}

func (a agent) NewSession(_ context.Context, p sdk.NewSessionRequest) (sdk.NewSessionResponse, error) {
	if err := a.checkCwd(p.Cwd); err != nil {
		return sdk.NewSessionResponse{}, err
	}
	if err := a.s.idle(); err != nil {
		return sdk.NewSessionResponse{}, err
	}
	st := a.s.rt.State()
	a.s.mu.Lock()
	reuse := st.MessageCount == 0 && !a.s.announced[st.SessionID]
	a.s.mu.Unlock()
	if !reuse {
		cancelled, err := a.s.rt.NewSession("")
		if err != nil {
			return sdk.NewSessionResponse{}, err
		}
		if cancelled {
			return sdk.NewSessionResponse{}, fmt.Errorf("an extension cancelled the new session")
		}
	}
	id := a.s.activate()
	if err := a.s.connectMCP(p.McpServers); err != nil {
		return sdk.NewSessionResponse{}, err
	}
	return sdk.NewSessionResponse{SessionId: sdk.SessionId(id), ConfigOptions: a.s.configOptions()}, nil
}

// activate records the active session as the client's and resets the
// per-session figures.
func (s *Server) activate() string {
	id := s.rt.State().SessionID
	s.mu.Lock()
	s.announced[id] = true
	s.cost = 0
	s.tools = map[string]*toolState{}
	s.lastTool = ""
	clear(s.always)
	s.mu.Unlock()
	return id
}

// idle fails while a prompt is being served.
func (s *Server) idle() error {
	s.mu.Lock()
	busy := s.turn != nil
	s.mu.Unlock()
	if busy || s.rt.IsStreaming() {
		return fmt.Errorf("a prompt is in progress; cancel it first")
	}
	return nil
}

// sessionPath finds a stored session by id.
func (s *Server) sessionPath(id string) (string, bool) {
	list, _ := s.rt.ListSessions(app.SessionScopeCwd)
	for _, l := range list {
		if l.ID == id {
			return l.Path, true
		}
	}
	return "", false
}

// ensureActive makes session id the runtime's active one (switching to
// its file when the client works with several) or fails for an unknown id.
func (s *Server) ensureActive(id string) error {
	if id == "" {
		return invalid("sessionId is required")
	}
	if s.rt.State().SessionID == id {
		return nil
	}
	path, ok := s.sessionPath(id)
	if !ok {
		return sdk.NewInvalidParams(map[string]any{"details": "unknown session " + id})
	}
	if err := s.idle(); err != nil {
		return err
	}
	cancelled, err := s.rt.SwitchSession(path)
	if err != nil {
		return err
	}
	if cancelled {
		return fmt.Errorf("an extension cancelled the switch to session %s", id)
	}
	s.activate()
	return nil
}

func (a agent) LoadSession(_ context.Context, p sdk.LoadSessionRequest) (sdk.LoadSessionResponse, error) {
	if err := a.checkCwd(p.Cwd); err != nil {
		return sdk.LoadSessionResponse{}, err
	}
	if err := a.s.ensureActive(string(p.SessionId)); err != nil {
		return sdk.LoadSessionResponse{}, err
	}
	id := a.s.activate()
	if err := a.s.connectMCP(p.McpServers); err != nil {
		return sdk.LoadSessionResponse{}, err
	}
	// The replay goes out before the response: the client shows the
	// history and then gets the session.
	a.s.replay(id, a.s.rt.Messages())
	return sdk.LoadSessionResponse{ConfigOptions: a.s.configOptions()}, nil
}

func (a agent) ResumeSession(_ context.Context, p sdk.ResumeSessionRequest) (sdk.ResumeSessionResponse, error) {
	if err := a.checkCwd(p.Cwd); err != nil {
		return sdk.ResumeSessionResponse{}, err
	}
	if err := a.s.ensureActive(string(p.SessionId)); err != nil {
		return sdk.ResumeSessionResponse{}, err
	}
	a.s.activate()
	if err := a.s.connectMCP(p.McpServers); err != nil {
		return sdk.ResumeSessionResponse{}, err
	}
	return sdk.ResumeSessionResponse{ConfigOptions: a.s.configOptions()}, nil
}

func (a agent) CloseSession(_ context.Context, p sdk.CloseSessionRequest) (sdk.CloseSessionResponse, error) {
	id := string(p.SessionId)
	a.s.mu.Lock()
	known := a.s.announced[id]
	delete(a.s.announced, id)
	a.s.mu.Unlock()
	if !known {
		return sdk.CloseSessionResponse{}, invalid("unknown session %s", id)
	}
	if a.s.rt.State().SessionID == id {
		a.s.cancelTurn(id)
	}
	return sdk.CloseSessionResponse{}, nil
}

func (a agent) ListSessions(_ context.Context, p sdk.ListSessionsRequest) (sdk.ListSessionsResponse, error) {
	cwd := ""
	if p.Cwd != nil {
		if !filepath.IsAbs(*p.Cwd) {
			return sdk.ListSessionsResponse{}, invalid("cwd must be an absolute path")
		}
		cwd = filepath.Clean(*p.Cwd)
	}
	out := []sdk.SessionInfo{}
	list, err := a.s.rt.ListSessionsOf(app.SessionScopeCwd, cwd)
	if err != nil {
		return sdk.ListSessionsResponse{}, err
	}
	for _, l := range list {
		info := sdk.SessionInfo{SessionId: sdk.SessionId(l.ID), Cwd: l.Cwd}
		updated := l.Modified
		info.UpdatedAt = &updated
		if l.Name != "" {
			name := l.Name
			info.Title = &name
		}
		out = append(out, info)
	}
	return sdk.ListSessionsResponse{Sessions: out}, nil
}

func (a agent) SetSessionMode(context.Context, sdk.SetSessionModeRequest) (sdk.SetSessionModeResponse, error) {
	return sdk.SetSessionModeResponse{}, sdk.NewMethodNotFound("session/set_mode")
}

func (a agent) SetSessionConfigOption(_ context.Context, p sdk.SetSessionConfigOptionRequest) (sdk.SetSessionConfigOptionResponse, error) {
	v := p.ValueId
	if v == nil {
		return sdk.SetSessionConfigOptionResponse{}, invalid("only select options exist here: model and thinking")
	}
	if err := a.s.ensureActive(string(v.SessionId)); err != nil {
		return sdk.SetSessionConfigOptionResponse{}, err
	}
	value := string(v.Value)
	// A choice is the session's; it becomes the default of later runs
	// (settings.json) only when the client asks: "_meta": {"persist": true}.
	persist, _ := v.Meta["persist"].(bool)
	switch string(v.ConfigId) {
	case optModel:
		provider, id, ok := strings.Cut(value, "/")
		if !ok {
			return sdk.SetSessionConfigOptionResponse{}, invalid("model values are provider/id, got %q", value)
		}
		if _, err := a.s.rt.SetModel(provider, id, persist); err != nil {
			return sdk.SetSessionConfigOptionResponse{}, invalid("%v", err)
		}
	case optThinking:
		if _, err := a.s.rt.SetThinkingLevel(value, persist); err != nil {
			return sdk.SetSessionConfigOptionResponse{}, invalid("%v", err)
		}
	default:
		return sdk.SetSessionConfigOptionResponse{}, invalid("unknown config option %q", v.ConfigId)
	}
	return sdk.SetSessionConfigOptionResponse{ConfigOptions: a.s.configOptions()}, nil
}

func (a agent) Cancel(_ context.Context, p sdk.CancelNotification) error {
	a.s.cancelTurn(string(p.SessionId))
	return nil
}

// cancelTurn aborts the prompt of session id: the run stops, dialogs
// waiting on the client resolve as cancelled, and the prompt answers
// "cancelled".
func (s *Server) cancelTurn(id string) {
	if s.markCancelled(id) {
		s.abortTurn()
	}
}

// requestCancel is cancelTurn for session/cancel, called on the reading
// goroutine: the turn is marked at once and the run aborted on a goroutine
// of its own (aborting waits for the run to stop), one per turn whatever
// the number of cancels.
func (s *Server) requestCancel(id string) {
	if s.markCancelled(id) {
		go s.abortTurn()
	}
}

// markCancelled marks the prompt of session id cancelled (dialogs waiting
// on the client resolve as cancelled); false when there is none or it was
// already cancelled.
func (s *Server) markCancelled(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.turn
	if t == nil || t.sessionID != id || t.cancelled {
		return false
	}
	t.cancelled = true
	close(t.done)
	return true
}

func (s *Server) abortTurn() { s.rt.CancelTurn() }

func (a agent) Prompt(ctx context.Context, p sdk.PromptRequest) (sdk.PromptResponse, error) {
	s := a.s
	id := string(p.SessionId)
	if err := s.ensureActive(id); err != nil {
		return sdk.PromptResponse{}, err
	}
	text, images := promptInput(p.Prompt)
	t := &turn{sessionID: id, done: make(chan struct{})}
	s.mu.Lock()
	if s.turn != nil {
		s.mu.Unlock()
		return sdk.PromptResponse{}, fmt.Errorf("a prompt is in progress in this session")
	}
	s.turn = t
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.turn = nil
		s.mu.Unlock()
	}()
	start, err := s.rt.Prompt(app.PromptInput{Text: text, Images: images})
	if err != nil {
		return sdk.PromptResponse{}, err
	}
	if start != nil {
		start()
	}
	if err := s.rt.WaitIdle(ctx); err != nil {
		s.cancelTurn(id)
		return sdk.PromptResponse{StopReason: sdk.StopReasonCancelled}, nil
	}
	s.mu.Lock()
	cancelled, stop, msg, refused, limited := t.cancelled, t.lastStop, t.lastError, t.refused, t.limited
	s.mu.Unlock()
	switch {
	case cancelled || stop == llm.StopAborted:
		return sdk.PromptResponse{StopReason: sdk.StopReasonCancelled}, nil
	case limited:
		return sdk.PromptResponse{StopReason: sdk.StopReasonMaxTurnRequests}, nil
	case stop == llm.StopLength:
		return sdk.PromptResponse{StopReason: sdk.StopReasonMaxTokens}, nil
	case stop == llm.StopError && refused:
		return sdk.PromptResponse{StopReason: sdk.StopReasonRefusal}, nil
	case stop == llm.StopError:
		return sdk.PromptResponse{}, sdk.NewInternalError(map[string]any{"details": msg})
	}
	return sdk.PromptResponse{StopReason: sdk.StopReasonEndTurn}, nil
}

// promptInput turns ACP content into the runtime's prompt: text blocks
// joined, embedded text resources appended as fenced blocks with their
// URI, resource links named, images passed on.
func promptInput(blocks []sdk.ContentBlock) (string, []llm.ContentBlock) {
	var parts []string
	var images []llm.ContentBlock
	for _, b := range blocks {
		switch {
		case b.Text != nil:
			parts = append(parts, b.Text.Text)
		case b.Image != nil:
			images = append(images, llm.Image(b.Image.Data, b.Image.MimeType))
		case b.Resource != nil && b.Resource.Resource.TextResourceContents != nil:
			r := b.Resource.Resource.TextResourceContents
			parts = append(parts, fmt.Sprintf("<context uri=%q>\n%s\n</context>", r.Uri, r.Text))
		case b.Resource != nil && b.Resource.Resource.BlobResourceContents != nil:
			parts = append(parts, fmt.Sprintf("[binary resource %s]", b.Resource.Resource.BlobResourceContents.Uri))
		case b.ResourceLink != nil:
			parts = append(parts, fmt.Sprintf("[%s](%s)", b.ResourceLink.Name, b.ResourceLink.Uri))
		}
	}
	return strings.Join(parts, "\n"), images
}
