package acp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/atomic-go/atomic/internal/e2e"
)

// editor is the client side: it records every session/update and answers
// permission requests with answer.
type editor struct {
	mu      sync.Mutex
	updates []sdk.SessionNotification
	changed chan struct{}
	answer  func(context.Context, sdk.RequestPermissionRequest) sdk.RequestPermissionResponse
	asked   []sdk.RequestPermissionRequest
	// elicit answers elicitation/create; elicited records the requests.
	elicit   func(sdk.UnstableCreateElicitationRequest) sdk.UnstableCreateElicitationResponse
	elicited []sdk.UnstableCreateElicitationRequest
	// files are the editor's buffers (nil: no fs methods); terms its
	// terminals (nil: no terminal methods).
	files     map[string]string
	terms     map[string]*editorTerminal
	created   []sdk.CreateTerminalRequest
	released  []string
	onRelease chan string // when set, receives each released terminal
}

func (e *editor) SessionUpdate(_ context.Context, n sdk.SessionNotification) error {
	e.mu.Lock()
	e.updates = append(e.updates, n)
	e.mu.Unlock()
	select {
	case e.changed <- struct{}{}:
	default:
	}
	return nil
}

func (e *editor) RequestPermission(ctx context.Context, p sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
	e.mu.Lock()
	e.asked = append(e.asked, p)
	answer := e.answer
	e.mu.Unlock()
	if answer == nil {
		return sdk.RequestPermissionResponse{Outcome: sdk.NewRequestPermissionOutcomeCancelled()}, nil
	}
	return answer(ctx, p), nil
}

// ReadTextFile serves the editor's buffers (files), when it has them.
func (e *editor) ReadTextFile(_ context.Context, p sdk.ReadTextFileRequest) (sdk.ReadTextFileResponse, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.files == nil {
		return sdk.ReadTextFileResponse{}, sdk.NewMethodNotFound("fs/read_text_file")
	}
	text, ok := e.files[p.Path]
	if !ok {
		return sdk.ReadTextFileResponse{}, &sdk.RequestError{Code: -32002, Message: "Resource not found", Data: map[string]any{"path": p.Path}}
	}
	return sdk.ReadTextFileResponse{Content: text}, nil
}

func (e *editor) WriteTextFile(_ context.Context, p sdk.WriteTextFileRequest) (sdk.WriteTextFileResponse, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.files == nil {
		return sdk.WriteTextFileResponse{}, sdk.NewMethodNotFound("fs/write_text_file")
	}
	e.files[p.Path] = p.Content
	return sdk.WriteTextFileResponse{}, nil
}

// editorTerminal is a command the editor runs for the agent.
type editorTerminal struct {
	cmd  *exec.Cmd
	out  *syncBuffer
	done chan struct{}
}

type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

func (e *editor) terminal(id string) (*editorTerminal, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	t := e.terms[id]
	if t == nil {
		return nil, sdk.NewInvalidParams(map[string]any{"details": "unknown terminal " + id})
	}
	return t, nil
}

func (e *editor) CreateTerminal(_ context.Context, p sdk.CreateTerminalRequest) (sdk.CreateTerminalResponse, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.terms == nil {
		return sdk.CreateTerminalResponse{}, sdk.NewMethodNotFound("terminal/create")
	}
	e.created = append(e.created, p)
	cmd := exec.Command(p.Command, p.Args...)
	if p.Cwd != nil {
		cmd.Dir = *p.Cwd
	}
	cmd.Env = os.Environ()
	for _, v := range p.Env {
		cmd.Env = append(cmd.Env, v.Name+"="+v.Value)
	}
	t := &editorTerminal{cmd: cmd, out: &syncBuffer{}, done: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = t.out, t.out
	if err := cmd.Start(); err != nil {
		return sdk.CreateTerminalResponse{}, err
	}
	go func() { _ = cmd.Wait(); close(t.done) }()
	id := fmt.Sprintf("term-%d", len(e.created))
	e.terms[id] = t
	return sdk.CreateTerminalResponse{TerminalId: id}, nil
}

func (e *editor) KillTerminal(_ context.Context, p sdk.KillTerminalRequest) (sdk.KillTerminalResponse, error) {
	t, err := e.terminal(p.TerminalId)
	if err != nil {
		return sdk.KillTerminalResponse{}, err
	}
	_ = t.cmd.Process.Kill()
	return sdk.KillTerminalResponse{}, nil
}

func exitOf(t *editorTerminal) *sdk.TerminalExitStatus {
	select {
	case <-t.done:
		code := t.cmd.ProcessState.ExitCode()
		return &sdk.TerminalExitStatus{ExitCode: &code}
	default:
		return nil
	}
}

func (e *editor) TerminalOutput(_ context.Context, p sdk.TerminalOutputRequest) (sdk.TerminalOutputResponse, error) {
	t, err := e.terminal(p.TerminalId)
	if err != nil {
		return sdk.TerminalOutputResponse{}, err
	}
	return sdk.TerminalOutputResponse{Output: t.out.String(), ExitStatus: exitOf(t)}, nil
}

func (e *editor) ReleaseTerminal(_ context.Context, p sdk.ReleaseTerminalRequest) (sdk.ReleaseTerminalResponse, error) {
	t, err := e.terminal(p.TerminalId)
	if err != nil {
		return sdk.ReleaseTerminalResponse{}, err
	}
	_ = t.cmd.Process.Kill()
	e.mu.Lock()
	e.released = append(e.released, p.TerminalId)
	sig := e.onRelease
	e.mu.Unlock()
	if sig != nil {
		sig <- p.TerminalId
	}
	return sdk.ReleaseTerminalResponse{}, nil
}

func (e *editor) WaitForTerminalExit(ctx context.Context, p sdk.WaitForTerminalExitRequest) (sdk.WaitForTerminalExitResponse, error) {
	t, err := e.terminal(p.TerminalId)
	if err != nil {
		return sdk.WaitForTerminalExitResponse{}, err
	}
	select {
	case <-t.done:
	case <-ctx.Done():
		return sdk.WaitForTerminalExitResponse{}, ctx.Err()
	}
	st := exitOf(t)
	return sdk.WaitForTerminalExitResponse{ExitCode: st.ExitCode}, nil
}

// UnstableCreateElicitation answers elicitation/create with elicit (a
// decline when unset).
func (e *editor) UnstableCreateElicitation(_ context.Context, p sdk.UnstableCreateElicitationRequest) (sdk.UnstableCreateElicitationResponse, error) {
	e.mu.Lock()
	e.elicited = append(e.elicited, p)
	elicit := e.elicit
	e.mu.Unlock()
	if elicit == nil {
		return sdk.NewUnstableCreateElicitationResponseDecline(), nil
	}
	return elicit(p), nil
}

func (e *editor) UnstableCompleteElicitation(context.Context, sdk.UnstableCompleteElicitationNotification) error {
	return nil
}

// snapshot returns the updates so far.
func (e *editor) snapshot() []sdk.SessionNotification {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]sdk.SessionNotification(nil), e.updates...)
}

// waitFor waits until an update satisfies ok.
func (e *editor) waitFor(t *testing.T, what string, ok func(sdk.SessionUpdate) bool) {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		for _, n := range e.snapshot() {
			if ok(n.Update) {
				return
			}
		}
		select {
		case <-e.changed:
		case <-deadline:
			t.Fatalf("no %s update arrived", what)
		}
	}
}

type session struct {
	conn *sdk.ClientSideConnection
	ed   *editor
	env  e2e.Env
	id   sdk.SessionId
}

// start runs atomic --mode acp with script as the faux model's turns.
func start(t *testing.T, opts e2e.Options) *session {
	t.Helper()
	opts.NoMode = true
	opts.Args = append([]string{"--mode", "acp"}, opts.Args...)
	cmd, env := e2e.Command(t, opts)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stdin.Close()
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
			t.Error("the agent did not exit after its input closed")
		}
		// With ATOMIC_E2E_RACE=1 the binary is race-checked.
		if strings.Contains(stderr.String(), "WARNING: DATA RACE") {
			t.Errorf("the agent reported a data race:\n%s", stderr.String())
		}
	})
	ed := &editor{changed: make(chan struct{}, 1)}
	conn := sdk.NewClientSideConnection(ed, stdin, stdout)
	return &session{conn: conn, ed: ed, env: env}
}

func (s *session) init(t *testing.T) {
	t.Helper()
	s.initWith(t, sdk.ClientCapabilities{})
}

// initWith runs initialize (with the client's capabilities) and
// session/new.
func (s *session) initWith(t *testing.T, caps sdk.ClientCapabilities) {
	t.Helper()
	ctx := e2e.Ctx(t, 20*time.Second)
	res, err := s.conn.Initialize(ctx, sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber, ClientCapabilities: caps})
	if err != nil {
		t.Fatal(err)
	}
	if res.ProtocolVersion != sdk.ProtocolVersionNumber || !res.AgentCapabilities.LoadSession ||
		res.AgentCapabilities.SessionCapabilities.List == nil || !res.AgentCapabilities.PromptCapabilities.Image {
		t.Fatalf("initialize: %+v", res)
	}
	ns, err := s.conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: s.env.Dir, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	s.id = ns.SessionId
	if len(ns.ConfigOptions) != 2 || ns.ConfigOptions[0].Select == nil || ns.ConfigOptions[0].Select.CurrentValue != "faux/faux-1" {
		t.Fatalf("config options: %+v", ns.ConfigOptions)
	}
}

func (s *session) prompt(t *testing.T, text string) sdk.StopReason {
	t.Helper()
	res, err := s.conn.Prompt(e2e.Ctx(t, 30*time.Second), sdk.PromptRequest{SessionId: s.id, Prompt: []sdk.ContentBlock{sdk.TextBlock(text)}})
	if err != nil {
		t.Fatal(err)
	}
	return res.StopReason
}

// promptAsync sends a prompt and returns where its stop reason arrives.
func (s *session) promptAsync(t *testing.T, text string) <-chan sdk.StopReason {
	res := make(chan sdk.StopReason, 1)
	go func() {
		r, err := s.conn.Prompt(context.Background(), sdk.PromptRequest{SessionId: s.id, Prompt: []sdk.ContentBlock{sdk.TextBlock(text)}})
		if err != nil {
			t.Error(err)
		}
		res <- r.StopReason
	}()
	return res
}

// cancel sends session/cancel and checks that the prompt whose answer
// comes on res ends "cancelled".
func (s *session) cancel(t *testing.T, res <-chan sdk.StopReason) {
	t.Helper()
	if err := s.conn.Cancel(context.Background(), sdk.CancelNotification{SessionId: s.id}); err != nil {
		t.Fatal(err)
	}
	select {
	case r := <-res:
		if r != sdk.StopReasonCancelled {
			t.Fatalf("stop reason %q", r)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the prompt did not end after session/cancel")
	}
}

func agentText(ns []sdk.SessionNotification) string {
	var b strings.Builder
	for _, n := range ns {
		if c := n.Update.AgentMessageChunk; c != nil && c.Content.Text != nil {
			b.WriteString(c.Content.Text.Text)
		}
	}
	return b.String()
}

func TestACPPromptToolsAndLoad(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "f.txt"), []byte("alpha beta\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := start(t, e2e.Options{Dir: dir, Script: []map[string]any{
		{"text": "hello from faux", "chunks": 3, "thinking": "mull"},
		{"toolCalls": []map[string]any{{"name": "bash", "id": "call-bash", "arguments": map[string]any{"command": "echo one; echo two"}}}},
		{"text": "ran it"},
		{"toolCalls": []map[string]any{{"name": "edit", "id": "call-edit", "arguments": map[string]any{"path": "f.txt", "oldText": "beta", "newText": "gamma"}}}},
		{"text": "edited"},
	}})
	s.init(t)
	s.ed.waitFor(t, "available_commands", func(u sdk.SessionUpdate) bool {
		if u.AvailableCommandsUpdate == nil {
			return false
		}
		for _, c := range u.AvailableCommandsUpdate.AvailableCommands {
			if c.Name == "explain" && c.Input != nil {
				return true
			}
		}
		return false
	})

	if r := s.prompt(t, "hi"); r != sdk.StopReasonEndTurn {
		t.Fatalf("stop reason %q", r)
	}
	ups := s.ed.snapshot()
	if got := agentText(ups); got != "hello from faux" {
		t.Fatalf("agent text %q", got)
	}
	chunks, thought := 0, false
	for _, n := range ups {
		if n.Update.AgentMessageChunk != nil {
			chunks++
		}
		thought = thought || n.Update.AgentThoughtChunk != nil
		if n.SessionId != s.id {
			t.Fatalf("update for session %q", n.SessionId)
		}
	}
	if chunks < 2 || !thought {
		t.Fatalf("%d message chunks, thought %v", chunks, thought)
	}

	if r := s.prompt(t, "run"); r != sdk.StopReasonEndTurn {
		t.Fatalf("stop reason %q", r)
	}
	var started, titled, completed bool
	for _, n := range s.ed.snapshot() {
		if tc := n.Update.ToolCall; tc != nil && tc.ToolCallId == "call-bash" {
			started = tc.Kind == sdk.ToolKindExecute
		}
		if tu := n.Update.ToolCallUpdate; tu != nil && tu.ToolCallId == "call-bash" && tu.Title != nil {
			titled = titled || strings.Contains(*tu.Title, "echo one")
		}
		if tu := n.Update.ToolCallUpdate; tu != nil && tu.ToolCallId == "call-bash" && tu.Status != nil && *tu.Status == sdk.ToolCallStatusCompleted {
			for _, c := range tu.Content {
				if c.Content != nil && c.Content.Content.Text != nil && strings.Contains(c.Content.Content.Text.Text, "two") {
					completed = true
				}
			}
		}
	}
	if !started || !titled || !completed {
		t.Fatalf("bash tool call: started %v, titled %v, completed %v", started, titled, completed)
	}

	if r := s.prompt(t, "edit"); r != sdk.StopReasonEndTurn {
		t.Fatalf("stop reason %q", r)
	}
	var diff *sdk.ToolCallContentDiff
	for _, n := range s.ed.snapshot() {
		if tu := n.Update.ToolCallUpdate; tu != nil && tu.ToolCallId == "call-edit" {
			for _, c := range tu.Content {
				if c.Diff != nil {
					diff = c.Diff
				}
			}
		}
	}
	if diff == nil || diff.Path != "f.txt" || diff.NewText != "gamma" || diff.OldText == nil || *diff.OldText != "beta" {
		t.Fatalf("edit diff: %+v", diff)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "f.txt")); string(b) != "alpha gamma\n" {
		t.Fatalf("file: %q", b)
	}

	ctx := e2e.Ctx(t, 20*time.Second)
	list, err := s.conn.ListSessions(ctx, sdk.ListSessionsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Sessions) != 1 || list.Sessions[0].SessionId != s.id {
		t.Fatalf("list: %+v", list.Sessions)
	}

	// A second agent loads the stored session and replays it.
	s2 := start(t, e2e.Options{Dir: dir, Env: map[string]string{"HOME": s.env.Home, "ATOMIC_CODING_AGENT_DIR": s.env.AgentDir}})
	if _, err := s2.conn.Initialize(ctx, sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber}); err != nil {
		t.Fatal(err)
	}
	if _, err := s2.conn.LoadSession(ctx, sdk.LoadSessionRequest{SessionId: s.id, Cwd: dir, McpServers: []sdk.McpServer{}}); err != nil {
		t.Fatal(err)
	}
	var user []string
	var replayedDiff bool
	for _, n := range s2.ed.snapshot() {
		if c := n.Update.UserMessageChunk; c != nil && c.Content.Text != nil {
			user = append(user, c.Content.Text.Text)
		}
		if tu := n.Update.ToolCallUpdate; tu != nil && tu.ToolCallId == "call-edit" {
			for _, c := range tu.Content {
				replayedDiff = replayedDiff || c.Diff != nil
			}
		}
	}
	if strings.Join(user, ",") != "hi,run,edit" || !strings.Contains(agentText(s2.ed.snapshot()), "hello from faux") || !replayedDiff {
		t.Fatalf("replay: user %q, agent %q, diff %v", user, agentText(s2.ed.snapshot()), replayedDiff)
	}
	// The loaded session takes prompts.
	s2.id = s.id
	// A slash command from the listing: the template is expanded (the faux
	// model quotes the prompt it got).
	before := len(agentText(s2.ed.snapshot()))
	if r := s2.prompt(t, "/explain main.go"); r != sdk.StopReasonEndTurn {
		t.Fatalf("stop reason %q", r)
	}
	if got := agentText(s2.ed.snapshot())[before:]; !strings.Contains(got, "Explain main.go") {
		t.Fatalf("the template was not expanded: %q", got)
	}
}

func TestACPCancelMidStream(t *testing.T) {
	s := start(t, e2e.Options{Script: []map[string]any{{"text": strings.Repeat("tick ", 200), "chunks": 200, "delayMs": 20}}})
	s.init(t)
	res := s.promptAsync(t, "go")
	s.ed.waitFor(t, "agent_message_chunk", func(u sdk.SessionUpdate) bool { return u.AgentMessageChunk != nil })
	s.cancel(t, res)
	if n := len(agentText(s.ed.snapshot())); n >= len(strings.Repeat("tick ", 200)) {
		t.Fatalf("the whole reply arrived (%d bytes)", n)
	}
}

func TestACPPermissionAndConfig(t *testing.T) {
	ext := filepath.Join(t.TempDir(), "gate.ts")
	if err := os.WriteFile(ext, []byte(`export default function (pi: any) {
  pi.on("tool_call", async (event: any, ctx: any) => {
    const ok = await ctx.ui.confirm("Run?", event.input.command);
    if (!ok) return { block: true, reason: "denied by the user" };
  });
}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	bash := func(id, cmd string) map[string]any {
		return map[string]any{"toolCalls": []map[string]any{{"name": "bash", "id": id, "arguments": map[string]any{"command": cmd}}}}
	}
	s := start(t, e2e.Options{Args: []string{"-e", ext}, Script: []map[string]any{
		bash("c1", "echo allowed-run"), {"text": "ok"},
		bash("c2", "echo rejected-run"), {"text": "ok"},
		bash("c3", "echo always-run"), {"text": "ok"},
		bash("c4", "echo remembered-run"), {"text": "ok"},
	}})
	s.init(t)
	s.ed.answer = func(_ context.Context, p sdk.RequestPermissionRequest) sdk.RequestPermissionResponse {
		want := map[sdk.ToolCallId]string{"c1": "allow", "c2": "reject", "c3": "allow_always"}[p.ToolCall.ToolCallId]
		for _, o := range p.Options {
			if string(o.OptionId) == want {
				return sdk.RequestPermissionResponse{Outcome: sdk.NewRequestPermissionOutcomeSelected(o.OptionId)}
			}
		}
		return sdk.RequestPermissionResponse{Outcome: sdk.NewRequestPermissionOutcomeCancelled()}
	}
	s.prompt(t, "one")
	s.prompt(t, "two")
	// "Always allow" is remembered: c4 runs without a question.
	s.prompt(t, "three")
	s.prompt(t, "four")
	results := map[string]string{}
	for _, n := range s.ed.snapshot() {
		if tu := n.Update.ToolCallUpdate; tu != nil && tu.Status != nil && (*tu.Status == sdk.ToolCallStatusCompleted || *tu.Status == sdk.ToolCallStatusFailed) {
			for _, c := range tu.Content {
				if c.Content != nil && c.Content.Content.Text != nil {
					results[string(tu.ToolCallId)] = string(*tu.Status) + ":" + c.Content.Content.Text.Text
				}
			}
		}
	}
	if !strings.HasPrefix(results["c1"], "completed:allowed-run") || !strings.Contains(results["c2"], "denied by the user") || !strings.HasPrefix(results["c2"], "failed") ||
		!strings.HasPrefix(results["c3"], "completed:always-run") || !strings.HasPrefix(results["c4"], "completed:remembered-run") {
		t.Fatalf("results: %q", results)
	}
	if len(s.ed.asked) != 3 || len(s.ed.asked[0].Options) != 3 || s.ed.asked[0].ToolCall.ToolCallId != "c1" ||
		s.ed.asked[0].Options[1].Kind != sdk.PermissionOptionKindAllowAlways {
		t.Fatalf("permission requests: %+v", s.ed.asked)
	}

	ctx := e2e.Ctx(t, 20*time.Second)
	res, err := s.conn.SetSessionConfigOption(ctx, sdk.SetSessionConfigOptionRequest{ValueId: &sdk.SetSessionConfigOptionValueId{SessionId: s.id, ConfigId: "model", Value: "faux/faux-2"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.ConfigOptions[0].Select.CurrentValue != "faux/faux-2" {
		t.Fatalf("after the change: %+v", res.ConfigOptions[0].Select)
	}
	s.ed.waitFor(t, "config_option_update", func(u sdk.SessionUpdate) bool {
		return u.ConfigOptionUpdate != nil && u.ConfigOptionUpdate.ConfigOptions[0].Select.CurrentValue == "faux/faux-2"
	})
	// A choice is the session's: the user's settings keep their defaults
	// unless the client asks (_meta.persist).
	settingsFile := filepath.Join(s.env.AgentDir, "settings.json")
	if b, _ := os.ReadFile(settingsFile); strings.Contains(string(b), "faux-2") {
		t.Fatalf("the session's model choice was saved: %s", b)
	}
	if _, err := s.conn.SetSessionConfigOption(ctx, sdk.SetSessionConfigOptionRequest{ValueId: &sdk.SetSessionConfigOptionValueId{SessionId: s.id, ConfigId: "thinking", Value: "low"}}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(settingsFile); strings.Contains(string(b), "defaultThinkingLevel") {
		t.Fatalf("the session's thinking level was saved: %s", b)
	}
	if _, err := s.conn.SetSessionConfigOption(ctx, sdk.SetSessionConfigOptionRequest{ValueId: &sdk.SetSessionConfigOptionValueId{
		SessionId: s.id, ConfigId: "thinking", Value: "high", Meta: map[string]any{"persist": true}}}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(settingsFile); !strings.Contains(string(b), `"defaultThinkingLevel"`) { // the model's level (faux has none: off)
		t.Fatalf("_meta.persist did not save the level: %s", b)
	}
	if _, err := s.conn.SetSessionConfigOption(ctx, sdk.SetSessionConfigOptionRequest{ValueId: &sdk.SetSessionConfigOptionValueId{SessionId: s.id, ConfigId: "model", Value: "faux/nope"}}); err == nil {
		t.Fatal("an unknown model was accepted")
	}
	// A prompt to an unknown session is an error.
	if _, err := s.conn.Prompt(ctx, sdk.PromptRequest{SessionId: "nope", Prompt: []sdk.ContentBlock{sdk.TextBlock("x")}}); err == nil {
		t.Fatal("a prompt to an unknown session succeeded")
	}
}

// TestACPMalformed writes raw lines: every bad one gets the standard error
// with its id echoed, and the agent goes on.
func TestACPMalformed(t *testing.T) {
	opts := e2e.Options{NoMode: true, Args: []string{"--mode", "acp"}}
	cmd, _ := e2e.Command(t, opts)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { stdin.Close(); _ = cmd.Wait() }()
	lines := []string{
		`{not json`,
		`[{"jsonrpc":"2.0","id":1,"method":"initialize"}]`,
		`{"jsonrpc":"1.0","id":"a","method":"initialize","params":{"protocolVersion":1}}`,
		`{"jsonrpc":"2.0","id":{"x":1},"method":"initialize"}`,
		`{"jsonrpc":"2.0","id":7,"method":"no/such"}`,
		`{"jsonrpc":"2.0","id":"p","method":"session/prompt","params":{"sessionId":5,"prompt":[]}}`,
		`{"jsonrpc":"2.0","id":9,"method":"initialize","params":{"protocolVersion":1}}`,
	}
	want := []struct {
		id   string
		code int
	}{{"null", -32700}, {"null", -32600}, {`"a"`, -32600}, {"null", -32600}, {"7", -32601}, {`"p"`, -32602}, {"9", 0}}
	go func() {
		for _, l := range lines {
			io.WriteString(stdin, l+"\n")
		}
	}()
	// An answer that never comes fails the test instead of hanging it.
	timer := time.AfterFunc(30*time.Second, func() { _ = cmd.Process.Kill() })
	defer timer.Stop()
	sc := bufio.NewScanner(stdout)
	got := map[string][]int{}
	for i := 0; i < len(want) && sc.Scan(); i++ {
		var m struct {
			ID    json.RawMessage `json:"id"`
			Error *struct {
				Code int `json:"code"`
			} `json:"error"`
		}
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("bad output line %q", sc.Text())
		}
		code := 0
		if m.Error != nil {
			code = m.Error.Code
		}
		got[string(m.ID)] = append(got[string(m.ID)], code)
	}
	for _, w := range want {
		codes := got[w.id]
		found := false
		for i, c := range codes {
			if c == w.code {
				got[w.id] = append(codes[:i], codes[i+1:]...)
				found = true
				break
			}
		}
		if !found {
			t.Errorf("no answer %d for id %s (got %v)", w.code, w.id, got)
		}
	}
}

// TestACPPermissionCancelled: a session/cancel while a permission request
// waits resolves it as cancelled (whatever the client answers later), the
// tool does not run and the prompt answers "cancelled".
func TestACPPermissionCancelled(t *testing.T) {
	ext := filepath.Join(t.TempDir(), "gate.ts")
	if err := os.WriteFile(ext, []byte(`export default function (pi: any) {
  pi.on("tool_call", async (event: any, ctx: any) => {
    const ok = await ctx.ui.confirm("Run?", event.input.command);
    if (!ok) return { block: true, reason: "not allowed" };
  });
}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	s := start(t, e2e.Options{Dir: dir, Args: []string{"-e", ext}, Script: []map[string]any{
		{"toolCalls": []map[string]any{{"name": "bash", "id": "c1", "arguments": map[string]any{"command": "touch ran"}}}},
		{"text": "should not come"},
	}})
	s.init(t)
	withdrawn := make(chan bool, 1)
	s.ed.answer = func(ctx context.Context, p sdk.RequestPermissionRequest) sdk.RequestPermissionResponse {
		// The editor cancels the turn; the agent withdraws the request
		// ($/cancel_request); the editor (late) allows anyway.
		if err := s.conn.Cancel(context.Background(), sdk.CancelNotification{SessionId: s.id}); err != nil {
			t.Error(err)
		}
		select {
		case <-ctx.Done():
			withdrawn <- true
		case <-time.After(20 * time.Second):
			withdrawn <- false
		}
		return sdk.RequestPermissionResponse{Outcome: sdk.NewRequestPermissionOutcomeSelected("allow")}
	}
	if r := s.prompt(t, "go"); r != sdk.StopReasonCancelled {
		t.Fatalf("stop reason %q", r)
	}
	if _, err := os.Stat(filepath.Join(dir, "ran")); err == nil {
		t.Fatal("the tool ran after the cancel")
	}
	if len(s.ed.asked) != 1 {
		t.Fatalf("permission requests: %d", len(s.ed.asked))
	}
	if !<-withdrawn {
		t.Fatal("the agent did not withdraw the permission request after session/cancel")
	}
}
