package rpcclient

import (
	"context"
	"encoding/json"
)

// UIRequest is an extension_ui_request: an extension in the agent opens a
// dialog (select, confirm, input, editor) or sends a notification
// (notify, setStatus, setWidget, setTitle, set_editor_text).
type UIRequest struct {
	ID     string `json:"id"`
	Method string `json:"method"`

	Title       string   `json:"title,omitempty"`
	Message     string   `json:"message,omitempty"`
	Options     []string `json:"options,omitempty"`     // select
	Placeholder string   `json:"placeholder,omitempty"` // input
	Prefill     string   `json:"prefill,omitempty"`     // editor
	// Timeout is the dialog's timeout in milliseconds (0: none). The agent
	// enforces it; it is here for display.
	Timeout float64 `json:"timeout,omitempty"`

	NotifyType      string   `json:"notifyType,omitempty"` // notify: info, warning, error
	StatusKey       string   `json:"statusKey,omitempty"`
	StatusText      string   `json:"statusText,omitempty"`
	WidgetKey       string   `json:"widgetKey,omitempty"`
	WidgetLines     []string `json:"widgetLines,omitempty"`
	WidgetPlacement string   `json:"widgetPlacement,omitempty"`
	Text            string   `json:"text,omitempty"` // set_editor_text

	// Raw is the whole record as received.
	Raw json.RawMessage `json:"-"`
}

// IsDialog reports whether the request waits for an answer.
func (r UIRequest) IsDialog() bool {
	switch r.Method {
	case "select", "confirm", "input", "editor":
		return true
	}
	return false
}

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
