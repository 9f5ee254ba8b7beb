package rpcclient

import (
	"context"
	"encoding/json"
)

// UIResponse is the answer to a dialog: a Value (select, input, editor),
// Confirmed (confirm) or Cancelled.
type UIResponse struct {
	Value     *string
	Confirmed *bool
	Cancelled bool
}

// UIValue answers select, input or editor with a value.
func UIValue(v string) UIResponse { return UIResponse{Value: &v} }

// UIConfirm answers confirm.
func UIConfirm(ok bool) UIResponse { return UIResponse{Confirmed: &ok} }

// UICancel dismisses a dialog (the agent uses the dialog's default).
func UICancel() UIResponse { return UIResponse{Cancelled: true} }

// UIHandler answers extension UI requests. It runs on its own goroutine
// for each request; ctx ends when the agent exits. For a dialog, return
// the answer and true; return false to leave the dialog unanswered (it
// stays open until the agent's own timeout, or until RespondUI). The
// answer to a notification is ignored. Every UI request is also
// delivered to subscribers as an event of type extension_ui_request.
type UIHandler func(ctx context.Context, req UIRequest) (UIResponse, bool)

// RespondUI answers the dialog with request id id. It gets no response:
// the agent ignores answers to unknown or expired dialogs.
func (c *Client) RespondUI(id string, resp UIResponse) error {
	rec := map[string]any{"type": "extension_ui_response", "id": id}
	switch {
	case resp.Cancelled:
		rec["cancelled"] = true
	case resp.Confirmed != nil:
		rec["confirmed"] = *resp.Confirmed
	case resp.Value != nil:
		rec["value"] = *resp.Value
	default:
		rec["cancelled"] = true
	}
	line, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	return c.writeLine(line)
}
