package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"syscall"

	"golang.org/x/term"

	"github.com/atomic-go/atomic/host/app"
	"github.com/atomic-go/atomic/host/config"
	"github.com/atomic-go/atomic/host/tui"
)

func stdoutIsTerminal() bool { return term.IsTerminal(int(os.Stdout.Fd())) }

// tuiLogFile is where the interactive UI logs without --log-file:
// atomic.log in the agent directory.
func tuiLogFile() string {
	dir := config.DefaultAgentDir()
	_ = os.MkdirAll(dir, 0o700)
	return filepath.Join(dir, "atomic.log")
}

// takeOverTerminal keeps private close-on-exec descriptors of the
// terminal for the UI and points descriptor 0 at /dev/null and 1 and 2 at
// the log file, so nothing else writes onto the screen or reads the keys.
func takeOverTerminal(logFile string) (out, in *os.File, err error) {
	lf, err := os.OpenFile(logFile, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, nil, err
	}
	defer lf.Close()
	outFD, err := dupCloexec(1)
	if err != nil {
		return nil, nil, err
	}
	inFD, err := dupCloexec(0)
	if err != nil {
		syscall.Close(outFD)
		return nil, nil, err
	}
	out, in = os.NewFile(uintptr(outFD), "tty-out"), os.NewFile(uintptr(inFD), "tty-in")
	for _, fd := range []int{1, 2} {
		if err := syscall.Dup2(int(lf.Fd()), fd); err != nil {
			out.Close()
			in.Close()
			return nil, nil, err
		}
	}
	nullStdin()
	return out, in, nil
}

// runTUI runs the interactive UI: the first message argument is the
// first prompt, the others follow it as follow-ups.
func runTUI(ctx context.Context, rt *app.Runtime, prompts []app.PromptInput, resume bool, in, out *os.File, logger *slog.Logger) int {
	st := rt.Settings()
	opts := tui.Options{In: in, Out: out, Prompts: prompts, Resume: resume, AgentDir: config.DefaultAgentDir(),
		Theme: st.Theme, HideThinking: st.HideThinkingBlock, ProjectTrustDefault: st.DefaultProjectTrust}
	err := tui.Run(ctx, rt, opts)
	rt.Close()
	if err != nil {
		logger.Error("terminal UI", "err", err)
		fmt.Fprintln(out, "atomic:", err)
		return 1
	}
	return 0
}
