package app

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"github.com/atomic-go/atomic/host/events"
	"github.com/atomic-go/atomic/host/extensions"
	"github.com/atomic-go/atomic/host/hooks"
	"github.com/atomic-go/atomic/host/llm"
	"github.com/atomic-go/atomic/host/session"
)

// extHost is the session as extensions see it.
type extHost struct {
	rt *Runtime
}

var _ extensions.Host = (*extHost)(nil)

func (h *extHost) HandlerContext() extensions.HandlerContext {
	rt := h.rt
	rt.mu.Lock()
	defer rt.mu.Unlock()
	hc := extensions.HandlerContext{
		Cwd: rt.opts.Cwd, Mode: rt.opts.Mode, HasUI: rt.opts.Mode == ModeRPC,
		SessionID: rt.sess.ID(), ThinkingLevel: rt.thinking, IsIdle: rt.run == nil,
	}
	if rt.ext.mgr != nil {
		hc.ProjectTrusted = rt.ext.mgr.Trusted()
	}
	if rt.model != nil {
		m := *rt.model
		hc.Model = &m
	}
	return hc
}

// SendMessage injects a custom message: queued while a run is in flight,
// starting a run when asked to, or appended to the conversation.
func (h *extHost) SendMessage(_ context.Context, m hooks.CustomMessage, triggerTurn bool, deliverAs string) error {
	rt := h.rt
	msg := customMessage(m)
	if deliverAs == "nextTurn" {
		rt.ext.nextTurnMu.Lock()
		rt.ext.nextTurn = append(rt.ext.nextTurn, msg)
		rt.ext.nextTurnMu.Unlock()
		return nil
	}
	rt.mu.Lock()
	if rt.closing {
		rt.mu.Unlock()
		return ErrClosing
	}
	if rt.run != nil {
		rt.mu.Unlock()
		rt.enqueueMessage(deliverAs != BehaviorFollowUp, msg.Content.JoinText("\n"), msg)
		return nil
	}
	if triggerTurn && rt.model != nil {
		run := rt.beginRunLocked()
		rt.mu.Unlock()
		go rt.execute(run, []llm.Message{msg})
		return nil
	}
	rt.messages = append(rt.messages, msg)
	sess := rt.sess
	rt.mu.Unlock()
	rt.Emit(events.MessageStart{Message: msg})
	rt.Emit(events.MessageEnd{Message: msg})
	sess.AppendMessage(msg)
	return nil
}

// SendUserMessage sends a user message as if typed, without command
// dispatch or expansion (the input hook still runs, source "extension").
func (h *extHost) SendUserMessage(_ context.Context, content llm.Content, deliverAs string) error {
	rt := h.rt
	text := content.JoinText("\n")
	images := content.Images()
	text, images, handled := rt.inputHook(text, images, "extension", deliverAs)
	if handled {
		return nil
	}
	rt.mu.Lock()
	if rt.closing {
		rt.mu.Unlock()
		return ErrClosing
	}
	if rt.run != nil {
		rt.mu.Unlock()
		switch deliverAs {
		case BehaviorSteer, BehaviorFollowUp:
			rt.enqueue(deliverAs == BehaviorSteer, text, images)
			return nil
		}
		err := errors.New("Agent is already processing. Specify deliverAs ('steer' or 'followUp') to queue the message.")
		rt.reportExtensionError(hooks.ExtensionError{ExtensionPath: "<runtime>", Event: "send_user_message", Error: err.Error()})
		return err
	}
	if rt.model == nil {
		rt.mu.Unlock()
		return errors.New("No model selected.")
	}
	run := rt.beginRunLocked()
	rt.mu.Unlock()
	go rt.execute(run, []llm.Message{userMessage(text, images)})
	return nil
}

func (h *extHost) AppendEntry(_ context.Context, customType string, data json.RawMessage) (string, error) {
	rt := h.rt
	var v any
	if len(data) > 0 {
		if err := json.Unmarshal(data, &v); err != nil {
			return "", err
		}
	}
	rt.mu.Lock()
	sess := rt.sess
	rt.mu.Unlock()
	e := sess.Append(session.Entry{Type: session.TypeCustom, CustomType: customType, Data: v})
	rt.Emit(events.Raw{Type: "entry_appended", Fields: map[string]any{"entry": e}})
	return e.ID, nil
}

func (h *extHost) SetSessionName(_ context.Context, name string) error {
	rt := h.rt
	name = strings.TrimSpace(name)
	rt.mu.Lock()
	sess := rt.sess
	rt.mu.Unlock()
	sess.Append(session.Entry{Type: session.TypeSessionInfo, Name: &name})
	rt.Emit(events.SessionInfoChanged{Name: name})
	return nil
}

func (h *extHost) SetLabel(_ context.Context, entryID, label string) error {
	rt := h.rt
	rt.mu.Lock()
	sess := rt.sess
	rt.mu.Unlock()
	if _, ok := sess.Entry(entryID); !ok {
		return fmt.Errorf("Entry %s not found", entryID)
	}
	e := session.Entry{Type: session.TypeLabel, TargetID: entryID}
	if label = strings.TrimSpace(label); label != "" {
		e.Label = &label
	}
	sess.Append(e)
	return nil
}

func (h *extHost) Session(_ context.Context, q extensions.SessionQuery) (extensions.SessionView, error) {
	rt := h.rt
	rt.mu.Lock()
	sess := rt.sess
	rt.mu.Unlock()
	v := extensions.SessionView{SessionID: sess.ID(), Name: sess.Name(), LeafID: sess.Leaf(), Cwd: rt.opts.Cwd}
	var err error
	if v.Header, err = json.Marshal(sess.Header()); err != nil {
		return v, err
	}
	if q.Entries {
		if v.Entries, err = marshalEntries(sess.Entries()); err != nil {
			return v, err
		}
	}
	if q.Branch {
		if v.Branch, err = marshalEntries(sess.Branch("")); err != nil {
			return v, err
		}
	}
	if q.Tree {
		if v.Tree, err = json.Marshal(buildTree(sess.Entries())); err != nil {
			return v, err
		}
	}
	return v, nil
}

func marshalEntries(es []*session.Entry) (json.RawMessage, error) {
	if len(es) == 0 {
		return json.RawMessage("[]"), nil
	}
	return json.Marshal(es)
}

type treeNode struct {
	Entry    *session.Entry `json:"entry"`
	Children []*treeNode    `json:"children"`
	Label    string         `json:"label,omitempty"`
}

// buildTree arranges entries as get_tree does: children in append order,
// entries whose parent is missing become roots.
func buildTree(es []*session.Entry) []*treeNode {
	nodes := map[string]*treeNode{}
	labels := map[string]string{}
	for _, e := range es {
		nodes[e.ID] = &treeNode{Entry: e, Children: []*treeNode{}}
		if e.Type == session.TypeLabel {
			if e.Label != nil {
				labels[e.TargetID] = *e.Label
			} else {
				delete(labels, e.TargetID)
			}
		}
	}
	roots := []*treeNode{}
	for _, e := range es {
		n := nodes[e.ID]
		n.Label = labels[e.ID]
		if p, ok := nodes[e.Parent()]; ok && e.Parent() != e.ID {
			p.Children = append(p.Children, n)
		} else {
			roots = append(roots, n)
		}
	}
	return roots
}

// ContextUsage estimates the context window usage: the last assistant
// usage plus a chars/4 estimate of the messages after it.
func (h *extHost) ContextUsage(context.Context) json.RawMessage {
	rt := h.rt
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if rt.model == nil || rt.model.ContextWindow <= 0 {
		return nil
	}
	tokens := 0
	i := len(rt.messages) - 1
	for ; i >= 0; i-- {
		m := rt.messages[i]
		if m.Role == llm.RoleAssistant && m.Usage.TotalTokens > 0 {
			tokens = m.Usage.TotalTokens
			break
		}
	}
	for j := i + 1; j < len(rt.messages); j++ {
		b, _ := json.Marshal(rt.messages[j].Content)
		tokens += len(b) / 4
	}
	pct := float64(tokens) * 100 / float64(rt.model.ContextWindow)
	b, _ := json.Marshal(map[string]any{"tokens": tokens, "contextWindow": rt.model.ContextWindow, "percent": pct})
	return b
}

func (h *extHost) Tools(context.Context) ([]string, []extensions.ToolInfo) {
	rt := h.rt
	var all []extensions.ToolInfo
	for _, t := range rt.tools.All() {
		all = append(all, extensions.ToolInfo{Name: t.Name(), Description: t.Description(), Parameters: t.Parameters()})
	}
	return rt.tools.ActiveNames(), all
}

func (h *extHost) SetActiveTools(_ context.Context, names []string) { h.rt.tools.SetActive(names) }

func (h *extHost) Model(context.Context) (*llm.Model, string) {
	rt := h.rt
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if rt.model == nil {
		return nil, rt.thinking
	}
	m := *rt.model
	return &m, rt.thinking
}

func (h *extHost) SetModel(_ context.Context, provider, id string) (bool, error) {
	rt := h.rt
	m, ok := rt.catalog.Find(provider, id)
	if !ok {
		return false, nil
	}
	if _, ok := rt.catalog.Credential(m.Provider); !ok {
		return false, nil
	}
	rt.mu.Lock()
	prev := rt.model
	rt.model = &m
	rt.thinking = llm.ClampThinkingLevel(rt.model, rt.thinking)
	rt.mu.Unlock()
	if prev == nil || prev.Provider != m.Provider || prev.ID != m.ID {
		rt.Emit(events.ModelChanged{Model: m, PreviousModel: prev, Source: "set"})
		rt.notifyModelSelect(m, prev, "set")
	}
	return true, nil
}

func (h *extHost) SetThinkingLevel(_ context.Context, level string) string {
	rt := h.rt
	rt.mu.Lock()
	prev := rt.thinking
	rt.thinking = llm.ClampThinkingLevel(rt.model, level)
	now := rt.thinking
	rt.mu.Unlock()
	if now != prev {
		rt.Emit(events.ThinkingLevelChanged{Level: now})
		rt.notifyThinkingLevelSelect(now, prev)
	}
	return now
}

func (h *extHost) Abort(context.Context) { h.rt.Abort() }

func (h *extHost) UI(ctx context.Context, method string, params map[string]any) (extensions.UIAnswer, error) {
	return h.rt.uiRequest(ctx, method, params)
}

// maxExecOutput caps what Exec returns per stream.
const maxExecOutput = 10 << 20

type capped struct {
	bytes.Buffer
}

func (c *capped) Write(p []byte) (int, error) {
	if room := maxExecOutput - c.Len(); room > 0 {
		if len(p) > room {
			c.Buffer.Write(p[:room])
		} else {
			c.Buffer.Write(p)
		}
	}
	return len(p), nil
}

// Exec runs a program (no shell) with no standard input.
func (h *extHost) Exec(ctx context.Context, command string, args []string, cwd string, timeout time.Duration) (extensions.ExecResult, error) {
	if cwd == "" {
		cwd = h.rt.opts.Cwd
	}
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	cmd := exec.CommandContext(ctx, command, args...)
	cmd.Dir = cwd
	cmd.Env = append(cmd.Environ(), h.rt.toolEnv()...)
	var out, errb capped
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	res := extensions.ExecResult{Stdout: out.String(), Stderr: errb.String(), Code: -1}
	if cmd.ProcessState != nil {
		res.Code = cmd.ProcessState.ExitCode()
	}
	if ctx.Err() != nil {
		res.Killed = true
	} else if err != nil && cmd.ProcessState == nil {
		res.Stderr += err.Error()
	}
	return res, nil
}

func (h *extHost) Commands(context.Context) json.RawMessage {
	b, _ := json.Marshal(h.rt.Commands())
	return b
}

func (h *extHost) State(context.Context) extensions.HostState {
	rt := h.rt
	rt.mu.Lock()
	st := extensions.HostState{IsIdle: rt.run == nil, HasPendingMessages: len(rt.steering)+len(rt.followUp) > 0}
	rt.mu.Unlock()
	st.SystemPrompt = rt.systemPrompt()
	return st
}
