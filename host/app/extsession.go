package app

import (
	"context"
	"time"

	"github.com/atomic-go/atomic/host/extensions"
)

// Session control from an extension command's context (ctx.newSession,
// ctx.fork, ctx.switchSession, ctx.navigateTree, ctx.reload): the same
// runtime methods as the RPC commands of those names, with their
// session_before_* hooks. A change answers once the notifications it
// caused (session_shutdown, session_start) have been delivered, so that a
// withSession callback runs after the extensions saw the new session, as
// in pi.

var _ extensions.SessionController = (*extHost)(nil)

// sessionChangeFlush bounds the wait for the notifications of a change.
const sessionChangeFlush = 3 * time.Second

func (h *extHost) changed(cancelled bool, err error) (extensions.SessionChange, error) {
	if err != nil {
		return extensions.SessionChange{}, err
	}
	if !cancelled {
		h.rt.ext.bus.Flush(sessionChangeFlush)
	}
	return extensions.SessionChange{Cancelled: cancelled, Context: h.HandlerContext()}, nil
}

// NewSession implements extensions.SessionController.
func (h *extHost) NewSession(_ context.Context, parent string) (extensions.SessionChange, error) {
	return h.changed(h.rt.NewSession(parent))
}

// Fork implements extensions.SessionController: position "at" is a clone
// through the entry.
func (h *extHost) Fork(_ context.Context, entryID, position string) (extensions.SessionChange, error) {
	switch position {
	case "", "before":
		res, err := h.rt.Fork(entryID)
		return h.changed(res.Cancelled, err)
	case "at":
		return h.changed(h.rt.CloneAt(entryID))
	}
	return extensions.SessionChange{}, errInvalidPosition(position)
}

type errInvalidPosition string

func (e errInvalidPosition) Error() string {
	return "fork: position must be \"before\" or \"at\", not \"" + string(e) + "\""
}

// SwitchSession implements extensions.SessionController.
func (h *extHost) SwitchSession(_ context.Context, path string) (extensions.SessionChange, error) {
	return h.changed(h.rt.SwitchSession(path))
}

// NavigateTree implements extensions.SessionController.
func (h *extHost) NavigateTree(_ context.Context, targetID string, o extensions.NavigateOptions) (extensions.SessionChange, error) {
	res, err := h.rt.NavigateTree(targetID, NavigateOptions{Summarize: o.Summarize, CustomInstructions: o.CustomInstructions,
		ReplaceInstructions: o.ReplaceInstructions, Label: o.Label})
	return h.changed(res.Cancelled, err)
}

// Reload implements extensions.SessionController.
func (h *extHost) Reload(ctx context.Context) error {
	return h.rt.Reload(context.WithoutCancel(ctx))
}
