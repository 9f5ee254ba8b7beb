package acp

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	sdk "github.com/coder/acp-go-sdk"
	"github.com/google/uuid"

	"github.com/atomic-go/atomic/host/extensions"
)

// uiBridge answers extension UI calls over ACP: confirm and select become
// session/request_permission (attached to the tool call being run, if
// any; an "always" answer is remembered for the session); notifications
// are logged.
type uiBridge struct{ s *Server }

func (b *uiBridge) Request(ctx context.Context, method string, params map[string]any) (extensions.UIAnswer, error) {
	s := b.s
	if err := extensions.CheckUIRequest(method, params); err != nil {
		return extensions.UIAnswer{Cancelled: true}, err
	}
	if !extensions.IsUIDialog(method) {
		s.rt.Log().Debug("extension UI notification not shown over ACP", "method", method)
		return extensions.UIAnswer{}, nil
	}
	id := s.activeSession()
	if method != "confirm" && method != "select" {
		return s.elicit(ctx, id, method, params)
	}
	if id == "" {
		return extensions.UIAnswer{Cancelled: true}, nil
	}
	title, _ := params["title"].(string)
	s.mu.Lock()
	callID, t := s.lastTool, s.turn
	toolName := ""
	if ts := s.tools[callID]; ts != nil {
		toolName = ts.name
	}
	key := alwaysKey(method, toolName, title, params)
	remembered, ok := s.always[key]
	s.mu.Unlock()
	if callID != "" && ok {
		// The user chose "always" for this question about this tool.
		if method == "confirm" {
			return extensions.UIAnswer{Confirmed: true}, nil
		}
		return extensions.UIAnswer{Value: remembered, HasValue: true}, nil
	}
	if callID == "" {
		callID = "dialog-" + uuid.NewString()
		key = ""
	}
	tc := sdk.ToolCallUpdate{ToolCallId: sdk.ToolCallId(callID), Title: &title}
	if msg, _ := params["message"].(string); msg != "" {
		tc.Content = []sdk.ToolCallContent{sdk.ToolContent(sdk.TextBlock(msg))}
	}
	var options []sdk.PermissionOption
	var choices []string
	if method == "confirm" {
		options = []sdk.PermissionOption{{OptionId: "allow", Name: "Allow", Kind: sdk.PermissionOptionKindAllowOnce}}
		if key != "" {
			options = append(options, sdk.PermissionOption{OptionId: "allow_always", Name: "Always allow", Kind: sdk.PermissionOptionKindAllowAlways})
		}
		options = append(options, sdk.PermissionOption{OptionId: "reject", Name: "Reject", Kind: sdk.PermissionOptionKindRejectOnce})
	} else {
		for i, o := range params["options"].([]any) {
			name := o.(string)
			choices = append(choices, name)
			options = append(options, sdk.PermissionOption{OptionId: sdk.PermissionOptionId("option-" + strconv.Itoa(i)), Name: name, Kind: optionKind(name)})
		}
	}
	ctx, cancel := s.dialogContext(ctx, t, params)
	defer cancel()
	resp, err := s.conn.RequestPermission(ctx, sdk.RequestPermissionRequest{SessionId: sdk.SessionId(id), ToolCall: tc, Options: options})
	if err != nil || resp.Outcome.Selected == nil {
		return extensions.UIAnswer{Cancelled: true}, nil
	}
	chosen := string(resp.Outcome.Selected.OptionId)
	if cancelledMeanwhile(t) {
		// session/cancel came first: the answer no longer counts.
		return extensions.UIAnswer{Cancelled: true}, nil
	}
	if method == "confirm" {
		switch chosen {
		case "allow_always":
			if key == "" {
				break
			}
			s.remember(key, "")
			return extensions.UIAnswer{Confirmed: true}, nil
		case "allow":
			return extensions.UIAnswer{Confirmed: true}, nil
		case "reject":
			return extensions.UIAnswer{Confirmed: false}, nil
		}
		return extensions.UIAnswer{Cancelled: true}, nil
	}
	i, err := strconv.Atoi(strings.TrimPrefix(chosen, "option-"))
	if err != nil || i < 0 || i >= len(choices) || !strings.HasPrefix(chosen, "option-") {
		return extensions.UIAnswer{Cancelled: true}, nil
	}
	if key != "" && options[i].Kind == sdk.PermissionOptionKindAllowAlways {
		s.remember(key, choices[i])
	}
	return extensions.UIAnswer{Value: choices[i], HasValue: true}, nil
}

// cancelledMeanwhile reports whether the prompt t was cancelled.
func cancelledMeanwhile(t *turn) bool {
	if t == nil {
		return false
	}
	select {
	case <-t.done:
		return true
	default:
		return false
	}
}

// alwaysKey names a question for the session's "always" answers: the
// dialog, the tool it is about, its title and, for a select, its choices.
func alwaysKey(method, tool, title string, params map[string]any) string {
	var b strings.Builder
	b.WriteString(method + "\x00" + tool + "\x00" + title)
	if opts, ok := params["options"].([]any); ok {
		for _, o := range opts {
			s, _ := o.(string)
			b.WriteString("\x00" + s)
		}
	}
	return b.String()
}

// remember records an "always" answer for the active session.
func (s *Server) remember(key, value string) {
	s.mu.Lock()
	s.always[key] = value
	s.mu.Unlock()
}

// optionKind guesses a select option's kind from its words, so that the
// client can style "Allow always" and "Reject" choices (for example the
// permission-gate extension's).
func optionKind(name string) sdk.PermissionOptionKind {
	l := strings.ToLower(name)
	reject := strings.HasPrefix(l, "reject") || strings.HasPrefix(l, "deny") || strings.HasPrefix(l, "no") || strings.HasPrefix(l, "block") || strings.HasPrefix(l, "cancel")
	always := strings.Contains(l, "always")
	switch {
	case reject && always:
		return sdk.PermissionOptionKindRejectAlways
	case reject:
		return sdk.PermissionOptionKindRejectOnce
	case always:
		return sdk.PermissionOptionKindAllowAlways
	}
	return sdk.PermissionOptionKindAllowOnce
}

// dialogContext bounds a request to the client by the dialog's timeout,
// the prompt's cancellation (t may be nil) and the server's end.
func (s *Server) dialogContext(ctx context.Context, t *turn, params map[string]any) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(ctx)
	if d := extensions.UITimeout(params); d > 0 {
		var cancelT context.CancelFunc
		ctx, cancelT = context.WithTimeout(ctx, d)
		prev := cancel
		cancel = func() { cancelT(); prev() }
	}
	var done <-chan struct{}
	if t != nil {
		done = t.done
	}
	go func() {
		select {
		case <-done:
		case <-s.ctx.Done():
		case <-ctx.Done():
		}
		cancel()
	}()
	return ctx, cancel
}

// elicitField is the one field of the form an input or editor dialog
// becomes.
const elicitField = "value"

// elicit asks for text (the extension's input and editor dialogs) with a
// form elicitation (elicitation/create) when the client advertised form
// elicitation; otherwise the extension gets an error saying so.
func (s *Server) elicit(ctx context.Context, id, method string, params map[string]any) (extensions.UIAnswer, error) {
	s.mu.Lock()
	caps, t := s.clientCaps.Elicitation, s.turn
	s.mu.Unlock()
	if caps == nil || caps.Form == nil {
		return extensions.UIAnswer{Cancelled: true}, fmt.Errorf("the %s dialog is not available: the ACP client does not offer form elicitation (clientCapabilities.elicitation.form)", method)
	}
	if id == "" {
		return extensions.UIAnswer{Cancelled: true}, nil
	}
	title, _ := params["title"].(string)
	field := map[string]any{"type": "string", "title": title}
	if p, _ := params["placeholder"].(string); p != "" {
		field["description"] = p
	}
	if p, _ := params["prefill"].(string); p != "" {
		field["default"] = p
	}
	if method == "editor" {
		field["description"] = "multi-line text"
	}
	req := sdk.NewUnstableCreateElicitationRequestForm(sdk.UnstableElicitationSchema{
		Type: "object", Properties: map[string]any{elicitField: field}, Required: []string{elicitField},
	})
	req.Form.Message = title
	ctx, cancel := s.dialogContext(ctx, t, params)
	defer cancel()
	resp, err := s.conn.UnstableCreateElicitation(ctx, req)
	if err != nil || resp.Accept == nil || cancelledMeanwhile(t) {
		return extensions.UIAnswer{Cancelled: true}, nil
	}
	v, ok := resp.Accept.Content[elicitField].(string)
	if !ok {
		return extensions.UIAnswer{Cancelled: true}, nil
	}
	return extensions.UIAnswer{Value: v, HasValue: true}, nil
}
