package extensions

import "context"

// SessionController is implemented by hosts that let a command's context
// change the session (ctx.newSession, ctx.fork, ctx.switchSession,
// ctx.navigateTree, ctx.reload). Each runs the same code as the RPC
// command of that name, session_before_* hooks included; the Before hooks
// call the extensions again, so a runtime must not block the script that
// asked while the call is in flight.
type SessionController interface {
	// NewSession replaces the session with an empty one (parent: the
	// session file to record as its parent, "" for none).
	NewSession(ctx context.Context, parent string) (SessionChange, error)
	// Fork starts a new session from entryID: position "before" (or "")
	// forks before that user message, "at" copies the path through it.
	Fork(ctx context.Context, entryID, position string) (SessionChange, error)
	// SwitchSession makes the session file at path the active session.
	SwitchSession(ctx context.Context, path string) (SessionChange, error)
	// NavigateTree moves the leaf within the session.
	NavigateTree(ctx context.Context, targetID string, opts NavigateOptions) (SessionChange, error)
	// Reload reloads the extensions (the caller among them) and the
	// resources.
	Reload(ctx context.Context) error
}

// SessionChange is the outcome of a SessionController call.
type SessionChange struct {
	// Cancelled: a session_before_* handler cancelled the change.
	Cancelled bool
	// Context is the handler context of the session active afterwards.
	Context HandlerContext
}

// NavigateOptions are ctx.navigateTree's options.
type NavigateOptions struct {
	Summarize           bool
	CustomInstructions  string
	ReplaceInstructions bool
	Label               string
}

// StaleContextMessage is the error of a handler context (ctx) used after
// the session it was made for was replaced (ctx.newSession, ctx.fork,
// ctx.switchSession) or its extension was reloaded (ctx.reload). Every
// runtime throws this text.
const StaleContextMessage = "This extension ctx is stale: its session was replaced or the extension was reloaded. " +
	"After ctx.newSession(), ctx.fork() or ctx.switchSession(), do the work in the withSession callback with the ctx it is given; " +
	"after await ctx.reload(), return."

// SessionControlUnavailable is the error of session control methods on a
// host that does not offer them.
const SessionControlUnavailable = "session control (ctx.newSession, fork, switchSession, navigateTree, reload) is not available in this agent"
