package acp

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/atomic-go/atomic/host/tools"
)

// The client's file system and terminals, for the tools (the settings
// acp.useClientFs and acp.useClientTerminal, when the client offers
// them): clientFiles implements tools.Files over fs/read_text_file and
// fs/write_text_file, clientTerminal implements tools.CommandRunner over
// terminal/*. The tools keep their own rules around them.

// useClientBackends hands the runtime the client's files and terminal
// when the settings ask for them and the client advertised them.
func (s *Server) useClientBackends(caps sdk.ClientCapabilities) {
	set := s.rt.Settings().ACP
	var files tools.Files
	var runner tools.CommandRunner
	if set.UseClientFs && caps.Fs.ReadTextFile && caps.Fs.WriteTextFile {
		files = clientFiles{s}
	}
	if set.UseClientTerminal && caps.Terminal {
		runner = clientTerminal{s}
	}
	s.rt.SetToolBackends(files, runner)
}

// errResourceNotFound is ACP's error code for a missing resource.
const errResourceNotFound = -32002

type clientFiles struct{ s *Server }

func (c clientFiles) session() (sdk.SessionId, error) {
	id := c.s.activeSession()
	if id == "" {
		return "", errors.New("no session is open with the client")
	}
	return sdk.SessionId(id), nil
}

func (c clientFiles) ReadTextFile(ctx context.Context, path string) (string, error) {
	id, err := c.session()
	if err != nil {
		return "", err
	}
	ctx, cancel := c.s.bound(ctx)
	defer cancel()
	resp, err := c.s.conn.ReadTextFile(ctx, sdk.ReadTextFileRequest{SessionId: id, Path: path})
	if err != nil {
		return "", clientError(err)
	}
	return resp.Content, nil
}

func (c clientFiles) WriteTextFile(ctx context.Context, path, content string) error {
	id, err := c.session()
	if err != nil {
		return err
	}
	ctx, cancel := c.s.bound(ctx)
	defer cancel()
	_, err = c.s.conn.WriteTextFile(ctx, sdk.WriteTextFileRequest{SessionId: id, Path: path, Content: content})
	return clientError(err)
}

// clientError words an error answer of the client; a missing resource
// wraps fs.ErrNotExist.
func clientError(err error) error {
	if err == nil {
		return nil
	}
	var re *sdk.RequestError
	if errors.As(err, &re) {
		msg := re.Message
		if d, ok := re.Data.(map[string]any); ok {
			if s, ok := d["details"].(string); ok && s != "" {
				msg += ": " + s
			}
		}
		l := strings.ToLower(msg)
		if re.Code == errResourceNotFound || strings.Contains(l, "not found") || strings.Contains(l, "no such file") {
			return fmt.Errorf("the client: %s: %w", msg, fs.ErrNotExist)
		}
		return fmt.Errorf("the client: %s", msg)
	}
	return fmt.Errorf("the client: %w", err)
}

// bound is ctx, ended also with the server; cancel releases it.
func (s *Server) bound(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(ctx)
	stop := context.AfterFunc(s.ctx, cancel)
	return ctx, func() { stop(); cancel() }
}

// terminalOutputLimit is the output the client keeps of a command (its
// end); the tool shows less (tools.DefaultMaxBytes).
const terminalOutputLimit = 1 << 20

// terminalPoll is how often a running command's output is fetched for
// the tool's progress updates.
const terminalPoll = 250 * time.Millisecond

// cleanupTimeout bounds the kill and release of a terminal.
const cleanupTimeout = 5 * time.Second

type clientTerminal struct{ s *Server }

func (c clientTerminal) RunCommand(ctx context.Context, callID string, req tools.ShellRequest) (tools.ShellOutput, error) {
	s := c.s
	id := s.activeSession()
	if id == "" {
		return tools.ShellOutput{}, errors.New("no session is open with the client")
	}
	if ctx.Err() != nil {
		return tools.ShellOutput{}, tools.ErrAborted
	}
	var env []sdk.EnvVariable
	for _, kv := range req.Env {
		if k, v, ok := strings.Cut(kv, "="); ok {
			env = append(env, sdk.EnvVariable{Name: k, Value: v})
		}
	}
	sh, args, err := req.Shell.Argv(req.Command)
	if err != nil {
		return tools.ShellOutput{}, err
	}
	cwd, limit := req.Cwd, terminalOutputLimit
	cctx, ccancel := s.bound(ctx)
	created, err := s.conn.CreateTerminal(cctx, sdk.CreateTerminalRequest{SessionId: sdk.SessionId(id),
		Command: sh, Args: args, Cwd: &cwd, Env: env, OutputByteLimit: &limit})
	ccancel()
	if err != nil {
		if ctx.Err() != nil {
			return tools.ShellOutput{}, tools.ErrAborted
		}
		return tools.ShellOutput{}, fmt.Errorf("the client's terminal did not start the command: %v", clientError(err))
	}
	term := created.TerminalId
	sid := sdk.SessionId(id)
	cleanup := func(f func(context.Context) error) {
		// Not bound to the server: at shutdown the command is still
		// killed and released, within cleanupTimeout.
		cctx, cancel := context.WithTimeout(context.Background(), cleanupTimeout)
		defer cancel()
		if err := f(cctx); err != nil {
			s.rt.Log().Debug("terminal cleanup", "terminal", term, "err", err)
		}
	}
	defer cleanup(func(ctx context.Context) error {
		_, err := s.conn.ReleaseTerminal(ctx, sdk.ReleaseTerminalRequest{SessionId: sid, TerminalId: term})
		return err
	})
	// The client shows the terminal in the tool call.
	s.mu.Lock()
	if ts := s.tools[callID]; ts != nil {
		ts.terminal = term
	}
	s.mu.Unlock()
	s.notify(id, sdk.UpdateToolCall(sdk.ToolCallId(callID), sdk.WithUpdateContent([]sdk.ToolCallContent{sdk.ToolTerminalRef(term)})))

	wctx, wcancel := s.bound(ctx)
	defer wcancel()
	var timedOut <-chan time.Time
	if req.Timeout > 0 {
		t := time.NewTimer(req.Timeout)
		defer t.Stop()
		timedOut = t.C
	}
	type exit struct {
		resp sdk.WaitForTerminalExitResponse
		err  error
	}
	exited := make(chan exit, 1)
	go func() {
		r, err := s.conn.WaitForTerminalExit(wctx, sdk.WaitForTerminalExitRequest{SessionId: sid, TerminalId: term})
		exited <- exit{r, err}
	}()
	var tick <-chan time.Time
	if req.OnUpdate != nil {
		t := time.NewTicker(terminalPoll)
		defer t.Stop()
		tick = t.C
	}
	output := func(ctx context.Context) (sdk.TerminalOutputResponse, error) {
		return s.conn.TerminalOutput(ctx, sdk.TerminalOutputRequest{SessionId: sid, TerminalId: term})
	}
	var res exit
	cancelled, timeout := false, false
wait:
	for {
		select {
		case res = <-exited:
			break wait
		case <-tick:
			if o, err := output(wctx); err == nil {
				req.OnUpdate(tools.OutputOf(req, o.Output, o.Truncated))
			}
		case <-timedOut:
			timeout = true
			break wait
		case <-ctx.Done():
			cancelled = true
			break wait
		case <-s.ctx.Done():
			cancelled = true
			break wait
		}
	}
	if cancelled || timeout {
		wcancel()
		cleanup(func(ctx context.Context) error {
			_, err := s.conn.KillTerminal(ctx, sdk.KillTerminalRequest{SessionId: sid, TerminalId: term})
			return err
		})
	} else if res.err != nil {
		return tools.ShellOutput{}, fmt.Errorf("the client's terminal failed: %v", clientError(res.err))
	}
	var final sdk.TerminalOutputResponse
	cleanup(func(ctx context.Context) error {
		var err error
		final, err = output(ctx)
		return err
	})
	out := tools.OutputOf(req, final.Output, final.Truncated)
	out.Cancelled, out.TimedOut = cancelled, timeout
	code, sig := res.resp.ExitCode, res.resp.Signal
	if final.ExitStatus != nil && code == nil && sig == nil {
		code, sig = final.ExitStatus.ExitCode, final.ExitStatus.Signal
	}
	switch {
	case code != nil:
		out.ExitCode = *code
	case sig != nil:
		out.Signaled, out.ExitCode = true, 128+signalNumber(*sig)
	}
	if req.OnUpdate != nil {
		req.OnUpdate(out)
	}
	return out, nil
}

// signalNumber is the number of a signal named as the client names it
// ("SIGTERM", "TERM"), or 0.
func signalNumber(name string) int {
	switch strings.TrimPrefix(strings.ToUpper(name), "SIG") {
	case "HUP":
		return 1
	case "INT":
		return 2
	case "QUIT":
		return 3
	case "ABRT":
		return 6
	case "KILL":
		return 9
	case "SEGV":
		return 11
	case "PIPE":
		return 13
	case "TERM":
		return 15
	}
	return 0
}
