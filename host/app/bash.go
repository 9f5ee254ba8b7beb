package app

import (
	"context"
	"errors"
	"os"
	"strings"

	"github.com/atomic-go/atomic/host/llm"
	"github.com/atomic-go/atomic/host/session"
	"github.com/atomic-go/atomic/host/tools"
	"github.com/atomic-go/atomic/sdk/rpcwire"
)

// BashRequest is a shell command a client runs directly (the RPC bash and
// user_bash commands), outside of any agent turn.
type BashRequest struct {
	Command string
	// ExcludeFromContext keeps the recorded message out of the model's
	// context.
	ExcludeFromContext bool
	// OnOutput receives each cleaned piece of output with its stream
	// ("stdout" or "stderr"), in the order read.
	OnOutput func(stream, text string)
}

// BashResult is the answer to a direct bash command: Output is the end of
// the merged, cleaned output (at most tools.DefaultMaxLines lines and
// tools.DefaultMaxBytes bytes); ExitCode is absent when the command was
// cancelled or killed by a signal; FullOutputPath names the file with the
// whole output, absent unless the output was truncated and the file could
// be written.
type BashResult = rpcwire.BashResult

// ErrEmptyCommand is returned for a bash request without a command.
var ErrEmptyCommand = errors.New(`Invalid command: "command" must not be empty`)

// bashOutputStore holds the full output of truncated commands.
var bashOutputStore = tools.DefaultOutputStore

type pendingBash struct {
	owner *session.Session
	msg   llm.Message
}

// RunBash runs a command in the working directory with the user's shell
// and the session's environment, until it ends or ctx is cancelled (which
// kills its whole process group). The session current at the start owns
// the command: the bashExecution message is recorded there, even if the
// session was replaced meanwhile. An error means the command could not be
// run at all.
func (rt *Runtime) RunBash(ctx context.Context, req BashRequest) (BashResult, error) {
	if strings.TrimSpace(req.Command) == "" {
		return BashResult{}, ErrEmptyCommand
	}
	rt.mu.Lock()
	owner := rt.sess
	env := rt.toolEnvLocked()
	rt.mu.Unlock()
	if r := rt.UserBash(ctx, req.Command, req.ExcludeFromContext); r != nil {
		return rt.extensionBash(owner, req, r), nil // an extension ran it (user_bash)
	}
	sessionID := owner.ID()
	out, err := tools.RunShell(ctx, tools.ShellRequest{
		Command: req.Command, Shell: rt.shell(), Cwd: rt.Cwd(), Env: env,
		OnOutput: req.OnOutput, StripCR: true,
		SpillFile: func() (*os.File, error) {
			f, err := bashOutputStore.Create(sessionID, tools.BashOutputPrefix)
			if err != nil {
				rt.log.Warn("cannot save the full output of a bash command", "err", err)
			}
			return f, err
		},
		MaxSpillBytes: bashOutputStore.FileCap(),
	})
	if errors.Is(err, tools.ErrAborted) {
		// Cancelled before the shell started: a cancelled command with
		// no output, like one cancelled a moment later.
		out, err = tools.ShellOutput{Cancelled: true}, nil
	}
	if err != nil {
		return BashResult{}, err
	}
	res := BashResult{Output: out.Output, Cancelled: out.Cancelled, Truncated: out.Truncation.Truncated}
	if out.TrailingNewline {
		res.Output += "\n"
	}
	if !out.Cancelled && !out.Signaled {
		code := out.ExitCode
		res.ExitCode = &code
	}
	if out.FullOutputPath != "" {
		if res.Truncated {
			res.FullOutputPath = out.FullOutputPath
		} else {
			_ = os.Remove(out.FullOutputPath) // spilled, but everything fit after all
		}
	}
	if out.SpillCapped {
		rt.log.Info("bash output file reached its size limit", "path", out.FullOutputPath, "limit", bashOutputStore.FileCap())
	}
	rt.recordBash(owner, llm.Message{
		Role: llm.RoleBashExecution, Command: req.Command, Output: res.Output,
		ExitCode: res.ExitCode, Cancelled: res.Cancelled, Truncated: res.Truncated,
		FullOutputPath: res.FullOutputPath, ExcludeFromContext: req.ExcludeFromContext,
		Timestamp: llm.Now(),
	})
	return res, nil
}

// PruneBashOutput starts removing old persisted command output in the
// background (tools.OutputStore.Prune); front ends call it when they start.
func (rt *Runtime) PruneBashOutput() { bashOutputStore.PruneInBackground() }

// recordBash stores a finished command's message in the session that owns
// it. While that session's agent runs, the message is held and added when
// the run ends, so that it never lands in the middle of a turn and reaches
// the model with the next prompt.
func (rt *Runtime) recordBash(owner *session.Session, msg llm.Message) {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if rt.run != nil && rt.isCurrentLocked(owner) {
		rt.pendingBash = append(rt.pendingBash, pendingBash{owner, msg})
		return
	}
	rt.appendBashLocked(owner, msg)
}

// isCurrentLocked reports whether s is the active session: the same
// object, or the same file opened again (switch_session back to it).
func (rt *Runtime) isCurrentLocked(s *session.Session) bool {
	return s == rt.sess || (s.Path() != "" && s.Path() == rt.sess.Path())
}

// appendBashLocked adds msg to its session, and to the runtime's messages
// when that session is the active one. A session that was replaced
// meanwhile (and closed) gets the entry and is closed again, which
// releases the file it reopened to write it.
func (rt *Runtime) appendBashLocked(owner *session.Session, msg llm.Message) {
	entry := session.Entry{Type: session.TypeMessage, Message: &msg}
	if rt.isCurrentLocked(owner) {
		rt.messages = append(rt.contextLocked(), msg)
		rt.appendEntryLocked(rt.sess, entry)
		return
	}
	rt.appendEntryLocked(owner, entry)
	if err := owner.Close(); err != nil {
		rt.log.Warn("closing the previous session file failed", "file", owner.Path(), "err", err)
	}
}

// flushPendingBashLocked adds the messages held during a run. It is called
// when a run ends, before a prompt starts one, and before the session is
// replaced.
func (rt *Runtime) flushPendingBashLocked() {
	for _, p := range rt.pendingBash {
		rt.appendBashLocked(p.owner, p.msg)
	}
	rt.pendingBash = nil
}

// shell is how bash commands run: the shellPath and shellCommandPrefix
// settings (ATOMIC_SHELL overrides shellPath).
func (rt *Runtime) shell() tools.Shell {
	return tools.Shell{Path: rt.settings.ShellPath, CommandPrefix: rt.settings.ShellCommandPrefix}
}
