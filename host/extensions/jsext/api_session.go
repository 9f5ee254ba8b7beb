package jsext

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/dop251/goja"

	"github.com/atomic-go/atomic/host/extensions"
	"github.com/atomic-go/atomic/host/hooks"
	"github.com/atomic-go/atomic/host/llm"
)

// sessionAPI is the session a call acts on: its context, the messages and
// entries a script adds, the read-only session view, session control and
// compaction.
type sessionAPI struct {
	s *Script
	r *goja.Runtime
}

func (a sessionAPI) exports() map[string]any {
	return map[string]any{
		"handlerContext":  a.handlerContext,
		"sendMessage":     a.sendMessage,
		"sendUserMessage": a.sendUserMessage,
		"appendEntry":     a.appendEntry,
		"setSessionName":  a.setSessionName,
		"setLabel":        a.setLabel,
		"session":         a.session,
		"compact":         a.compact,
		// Session control (a command's ctx.newSession, fork,
		// switchSession, navigateTree, reload).
		"staleMessage":   extensions.StaleContextMessage,
		"sessionControl": a.sessionControl,
	}
}

type handlerContextJSON struct {
	Cwd            string `json:"cwd"`
	Mode           string `json:"mode"`
	HasUI          bool   `json:"hasUI"`
	SessionID      string `json:"sessionId"`
	SessionFile    string `json:"sessionFile,omitempty"`
	ThinkingLevel  string `json:"thinkingLevel"`
	IsIdle         bool   `json:"isIdle"`
	ProjectTrusted bool   `json:"projectTrusted"`
}

type sessionJSON struct {
	SessionID   string          `json:"sessionId"`
	SessionFile string          `json:"sessionFile,omitempty"`
	Name        string          `json:"name,omitempty"`
	LeafID      string          `json:"leafId,omitempty"`
	Cwd         string          `json:"cwd"`
	Header      json.RawMessage `json:"header,omitempty"`
	Entries     json.RawMessage `json:"entries,omitempty"`
	Branch      json.RawMessage `json:"branch,omitempty"`
	Tree        json.RawMessage `json:"tree,omitempty"`
}

// handlerContext is the call's snapshot of the session (JSON; a ctx reads
// it once).
func (a sessionAPI) handlerContext(id goja.Value) string {
	hc := a.s.callOf(id).host.HandlerContext()
	return jsString(handlerContextJSON{Cwd: hc.Cwd, Mode: hc.Mode, HasUI: hc.HasUI, SessionID: hc.SessionID,
		SessionFile: hc.SessionFile, ThinkingLevel: hc.ThinkingLevel, IsIdle: hc.IsIdle, ProjectTrusted: hc.ProjectTrusted})
}

func (a sessionAPI) sendMessage(id goja.Value, msgJSON string, trigger bool, deliverAs string) goja.Value {
	c := a.s.callOf(id)
	msg := mustJSON[hooks.CustomMessage](a.r, "sendMessage", msgJSON)
	turn, taken := a.s.sends.start()
	return a.s.async(a.r, func() (any, error) {
		defer taken()
		<-turn
		return nil, c.host.SendMessage(context.WithoutCancel(c.ctx), msg, trigger, deliverAs)
	}, plainResult)
}

func (a sessionAPI) sendUserMessage(id goja.Value, contentJSON, deliverAs string) goja.Value {
	c := a.s.callOf(id)
	content := mustJSON[llm.Content](a.r, "sendUserMessage", contentJSON)
	turn, taken := a.s.sends.start()
	return a.s.async(a.r, func() (any, error) {
		defer taken()
		<-turn
		return nil, c.host.SendUserMessage(context.WithoutCancel(c.ctx), content, deliverAs)
	}, plainResult)
}

func (a sessionAPI) appendEntry(id goja.Value, customType, dataJSON string) string {
	c := a.s.callOf(id)
	entryID, err := c.host.AppendEntry(context.WithoutCancel(c.ctx), customType, json.RawMessage(dataJSON))
	if err != nil {
		panic(jsErrorValue(a.r, "appendEntry: "+err.Error()))
	}
	return entryID
}

func (a sessionAPI) setSessionName(id goja.Value, name string) {
	c := a.s.callOf(id)
	if err := c.host.SetSessionName(context.WithoutCancel(c.ctx), name); err != nil {
		panic(jsErrorValue(a.r, "setSessionName: "+err.Error()))
	}
}

func (a sessionAPI) setLabel(id goja.Value, entryID, label string) {
	c := a.s.callOf(id)
	if err := c.host.SetLabel(context.WithoutCancel(c.ctx), entryID, label); err != nil {
		panic(jsErrorValue(a.r, err.Error()))
	}
}

// session reads the session (JSON), with the parts asked for.
func (a sessionAPI) session(id goja.Value, entries, branch, tree bool) string {
	c := a.s.callOf(id)
	v, err := c.host.Session(context.WithoutCancel(c.ctx), extensions.SessionQuery{Entries: entries, Branch: branch, Tree: tree})
	if err != nil {
		panic(jsErrorValue(a.r, "reading the session: "+err.Error()))
	}
	return jsString(sessionJSON{SessionID: v.SessionID, SessionFile: v.SessionFile, Name: v.Name, LeafID: v.LeafID,
		Cwd: v.Cwd, Header: v.Header, Entries: v.Entries, Branch: v.Branch, Tree: v.Tree})
}

func (a sessionAPI) compact(id goja.Value) goja.Value {
	c := a.s.callOf(id)
	return a.s.async(a.r, func() (any, error) {
		return c.host.Compact(context.WithoutCancel(c.ctx))
	}, jsonResult)
}

// sessionControl runs a session control method. The host runs
// session_before_* handlers, this script's among them: the work runs off
// the loop.
func (a sessionAPI) sessionControl(id goja.Value, op, argsJSON string) goja.Value {
	c := a.s.callOf(id)
	args := mustJSON[sessionControlArgs](a.r, "ctx."+op, argsJSON)
	return a.s.async(a.r, func() (any, error) {
		sc, ok := c.host.(extensions.SessionController)
		if !ok {
			return nil, errors.New(extensions.SessionControlUnavailable)
		}
		return runSessionControl(context.WithoutCancel(c.ctx), sc, op, args)
	}, jsonResult)
}

// sessionControlArgs are the arguments of a session control method.
type sessionControlArgs struct {
	ParentSession string `json:"parentSession"`
	EntryID       string `json:"entryId"`
	Position      string `json:"position"`
	SessionPath   string `json:"sessionPath"`
	TargetID      string `json:"targetId"`
	extensions.NavigateOptions
}

// runSessionControl runs one session control method; the result is
// {cancelled} (nil for reload).
func runSessionControl(ctx context.Context, sc extensions.SessionController, op string, a sessionControlArgs) (any, error) {
	var ch extensions.SessionChange
	var err error
	switch op {
	case "newSession":
		ch, err = sc.NewSession(ctx, a.ParentSession)
	case "fork":
		ch, err = sc.Fork(ctx, a.EntryID, a.Position)
	case "switchSession":
		ch, err = sc.SwitchSession(ctx, a.SessionPath)
	case "navigateTree":
		ch, err = sc.NavigateTree(ctx, a.TargetID, a.NavigateOptions)
	case "reload":
		return nil, sc.Reload(ctx)
	default:
		return nil, fmt.Errorf("unknown session control %q", op)
	}
	if err != nil {
		return nil, err
	}
	return map[string]any{"cancelled": ch.Cancelled}, nil
}
