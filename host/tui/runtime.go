package tui

import (
	"context"
	"log/slog"

	"github.com/atomic-go/atomic/host/app"
	"github.com/atomic-go/atomic/host/compaction"
	"github.com/atomic-go/atomic/host/events"
	"github.com/atomic-go/atomic/host/llm"
	"github.com/atomic-go/atomic/host/session"
)

// runtime is the session runtime as the terminal front end uses it: just
// the methods this package calls (*app.Runtime satisfies it; Run takes
// one). Every call that may wait (a prompt, a command, a session change)
// is made from a tea.Cmd, never from Update or View.
type runtime interface {
	// Events out, the extension UI in, the logger, shutdown.
	Subscribe(fn events.Sink) func()
	SetUI(ui app.UI)
	Log() *slog.Logger
	ShutdownRequested() <-chan struct{}
	Close()

	// The footer.
	Cwd() string
	State() app.State
	SessionStats() app.SessionStats

	// Prompts, queues and cancelling a turn.
	Submit(in app.PromptInput) (app.Accepted, error)
	Queue(steer bool, text string, images []llm.ContentBlock) (string, error)
	CancelTurn() bool
	ClearQueue() (steering, followUp []string)
	IsStreaming() bool
	Messages() []llm.Message
	LastAssistantText() (string, bool)

	// Model and thinking level.
	CycleModel(direction string, persist bool) (*app.CycleResult, error)
	CycleThinkingLevel() (string, bool)
	AvailableModels() []llm.Model
	SetModel(provider, id string, persist bool) (llm.Model, error)

	// Commands and sessions.
	StartedCommands() []app.SlashCommand
	Shortcuts() []app.ExtensionShortcut
	RunShortcut(path, key string) bool
	RenderMessage(ctx context.Context, customType string, message map[string]any, expanded bool, width int) ([]string, bool)
	RenderTool(ctx context.Context, in app.ToolRenderInput) (app.ToolRender, bool)
	NewSession(parentSession string) (cancelled bool, err error)
	SwitchSession(path string) (cancelled bool, err error)
	ListSessions(scope string) ([]session.Info, error)
	ForkMessages() ([]session.UserMessage, error)
	Fork(entryID string) (app.ForkResult, error)
	Tree() (session.Tree, string, error)
	NavigateTree(targetID string, opts app.NavigateOptions) (app.NavigateResult, error)
	SetSessionName(name string) error
	CompactWith(ctx context.Context, instructions string) (*compaction.Result, error)
	ExportHTML(outputPath string) (string, error)
	ProjectTrusted() bool

	// Settings (/settings).
	SetAutoCompaction(on bool)
	SetSteeringMode(mode string) error
	SetFollowUpMode(mode string) error
	SaveSetting(key string, value any) error
	ThemeFiles() []string
	TrustProject(ctx context.Context) (int, error)
}

var _ runtime = (*app.Runtime)(nil)
