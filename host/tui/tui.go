// Package tui is the interactive terminal front end: a chat over the
// session runtime on Bubble Tea, with the extension UI drawn as overlays,
// lines and footer entries. It reaches the runtime only through the
// interface in runtime.go.
package tui

import (
	"context"
	"errors"
	"fmt"
	"os"

	tea "charm.land/bubbletea/v2"

	"github.com/atomic-go/atomic/host/app"
)

// Options configure Run.
type Options struct {
	// In and Out are the terminal (cmd/atomic passes private descriptors
	// of it; descriptors 1 and 2 then point at the log).
	In, Out *os.File
	// Prompts are sent in order when the UI opens (the message
	// arguments): the first as a prompt, the others as follow-ups.
	Prompts []app.PromptInput
	// Resume opens the session picker first (-r, --resume).
	Resume bool
	// AgentDir holds keybindings.json, themes/ and the prompt history
	// (history/); "" reads and keeps none of them.
	AgentDir string
	// Theme is the theme setting ("" or "system": by the terminal's
	// background; "light/dark": one for each; a name); HideThinking the
	// hideThinkingBlock setting.
	Theme        string
	HideThinking bool
	// ProjectTrustDefault is the defaultProjectTrust setting.
	ProjectTrustDefault string
}

// Run draws the terminal UI until the user quits, an extension asks the
// agent to shut down, or ctx ends (a signal). The terminal is restored on
// every one of these paths, and after a panic in the UI.
func Run(ctx context.Context, rt *app.Runtime, opts Options) error {
	return run(ctx, rt, opts)
}

func run(ctx context.Context, rt runtime, opts Options) (err error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	p := &pump{}
	m := newModel(ctx, rt, p, opts)
	// Bubble Tea writes a frame on its ticker: at 120 frames a second
	// (its most) the first frame is out about 8 ms after the start instead
	// of 16 ms; an idle UI costs no more (nothing changed, nothing drawn),
	// and a streamed answer is still rendered at most every 50 ms.
	progOpts := []tea.ProgramOption{tea.WithContext(ctx), tea.WithFPS(120)}
	if opts.In != nil {
		progOpts = append(progOpts, tea.WithInput(opts.In))
	}
	if opts.Out != nil {
		progOpts = append(progOpts, tea.WithOutput(opts.Out))
	}
	prog := tea.NewProgram(m, progOpts...)
	p.send = prog.Send
	done := make(chan struct{})
	rt.SetUI(&uiBridge{send: prog.Send, done: done})
	unsubscribe := rt.Subscribe(p.sink)
	go func() {
		select {
		case <-rt.ShutdownRequested():
			rt.Log().Info("an extension asked the agent to shut down")
			prog.Quit()
		case <-done:
		}
	}()
	defer func() {
		if r := recover(); r != nil {
			// A panic outside Bubble Tea's own recovery: give the terminal
			// back before it is reported.
			prog.Kill()
			err = fmt.Errorf("terminal UI panic: %v", r)
		}
	}()
	_, err = prog.Run()
	close(done)
	unsubscribe()
	if errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil {
		return nil // a signal: the caller shuts down
	}
	if errors.Is(err, tea.ErrInterrupted) {
		return nil
	}
	return err
}
