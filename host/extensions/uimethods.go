package extensions

import (
	"fmt"
	"time"
)

// The extension UI methods: dialogs wait for an answer, notifications do
// not. Every front end (host/rpc, host/acp) checks a request with
// CheckUIRequest before it shows it.
var (
	uiDialogs       = map[string]bool{"select": true, "confirm": true, "input": true, "editor": true}
	uiNotifications = map[string]bool{"notify": true, "setStatus": true, "setWidget": true, "setTitle": true, "set_editor_text": true}
	// uiTerminal are notifications only the interactive terminal draws:
	// as in pi, they are no-ops in RPC and ACP mode and never reach a
	// client (the runtime drops them outside the terminal).
	uiTerminal = map[string]bool{"setWorkingMessage": true, "setHeader": true, "setFooter": true}
)

// IsTerminalUI reports whether method is drawn by the interactive
// terminal only (setWorkingMessage, setHeader, setFooter).
func IsTerminalUI(method string) bool { return uiTerminal[method] }

// IsUIDialog reports whether method is a dialog (select, confirm, input,
// editor).
func IsUIDialog(method string) bool { return uiDialogs[method] }

// CheckUIRequest reports an unknown method or parameters of the wrong
// shape.
func CheckUIRequest(method string, params map[string]any) error {
	if !uiDialogs[method] && !uiNotifications[method] && !uiTerminal[method] {
		return fmt.Errorf("unknown UI method %q", method)
	}
	return checkUIParams(method, params)
}

// UITimeout is a dialog's "timeout" parameter (milliseconds), or 0.
func UITimeout(params map[string]any) time.Duration {
	if ms, ok := params["timeout"].(float64); ok && ms > 0 {
		return time.Duration(ms) * time.Millisecond
	}
	return 0
}

func checkUIParams(method string, p map[string]any) error {
	need := func(keys ...string) error {
		for _, k := range keys {
			if _, ok := p[k].(string); !ok {
				return fmt.Errorf("%s needs a string %q", method, k)
			}
		}
		return nil
	}
	switch method {
	case "select":
		opts, ok := p["options"].([]any)
		if !ok {
			return fmt.Errorf("select needs \"options\", an array of strings")
		}
		for _, o := range opts {
			if _, ok := o.(string); !ok {
				return fmt.Errorf("select options must be strings")
			}
		}
		return need("title")
	case "confirm":
		return need("title", "message")
	case "input", "editor", "setTitle":
		return need("title")
	case "notify":
		return need("message")
	case "setStatus":
		return need("statusKey")
	case "setWidget":
		if lines, ok := p["widgetLines"]; ok && lines != nil {
			arr, ok := lines.([]any)
			if !ok {
				return fmt.Errorf("setWidget widgetLines must be an array of strings (component widgets are not available over RPC)")
			}
			for _, l := range arr {
				if _, ok := l.(string); !ok {
					return fmt.Errorf("setWidget widgetLines must be strings")
				}
			}
		}
		return need("widgetKey")
	case "set_editor_text":
		return need("text")
	case "setWorkingMessage":
		if m, ok := p["message"]; ok && m != nil {
			if _, ok := m.(string); !ok {
				return fmt.Errorf("setWorkingMessage needs a string \"message\" or none")
			}
		}
	case "setHeader", "setFooter":
		if lines, ok := p["lines"]; ok && lines != nil {
			arr, ok := lines.([]any)
			if !ok {
				return fmt.Errorf("%s lines must be an array of strings", method)
			}
			for _, l := range arr {
				if _, ok := l.(string); !ok {
					return fmt.Errorf("%s lines must be strings", method)
				}
			}
		}
	}
	return nil
}
