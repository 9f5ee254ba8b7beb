package rpcwire

import "encoding/json"

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
