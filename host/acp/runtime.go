package acp

import (
	"context"
	"encoding/json"
	"log/slog"

	"github.com/atomic-go/atomic/host/app"
	"github.com/atomic-go/atomic/host/config"
	"github.com/atomic-go/atomic/host/events"
	"github.com/atomic-go/atomic/host/llm"
	"github.com/atomic-go/atomic/host/session"
	"github.com/atomic-go/atomic/host/tools"
)

// runtime is the session runtime as the ACP front end uses it: just the
// methods this package calls (*app.Runtime satisfies it; New takes one).
type runtime interface {
	// The server: events out, the extension UI in, the logger, the
	// client's files and terminals, shutdown.
	Subscribe(fn events.Sink) func()
	SetUI(ui app.UI)
	Log() *slog.Logger
	Settings() config.Settings
	SetToolBackends(files tools.Files, runner tools.CommandRunner)
	RegisterMCPServer(extensionPath, name string, config json.RawMessage) error
	Close()

	// Sessions (session/new, load, resume, list).
	Cwd() string
	State() app.State
	Session() *session.Session
	Messages() []llm.Message
	NewSession(parentSession string) (cancelled bool, err error)
	SwitchSession(path string) (cancelled bool, err error)
	ListSessions(scope string) ([]session.Info, error)
	ListSessionsOf(scope, cwd string) ([]session.Info, error)

	// Configuration options: model, thinking level, commands.
	SetModel(provider, id string, persist bool) (llm.Model, error)
	SetThinkingLevel(level string, persist bool) (app.ThinkingAck, error)
	AvailableModels() []llm.Model
	AvailableThinkingLevels() []string
	Commands() []app.SlashCommand

	// Prompt turns (session/prompt, session/cancel).
	Prompt(in app.PromptInput) (start func(), err error)
	IsStreaming() bool
	WaitIdle(ctx context.Context) error
	CancelTurn() bool
}
