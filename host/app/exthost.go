package app

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os/exec"
	"strings"
	"time"

	"github.com/atomic-go/atomic/host/events"
	"github.com/atomic-go/atomic/host/extensions"
	"github.com/atomic-go/atomic/host/hooks"
	"github.com/atomic-go/atomic/host/llm"
	"github.com/atomic-go/atomic/host/session"
	"github.com/atomic-go/atomic/host/tools"
	"github.com/atomic-go/atomic/internal/proc"
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
		Cwd: rt.Cwd(), Mode: rt.opts.Mode, HasUI: rt.servesClient(),
		SessionID: rt.sess.ID(), SessionFile: rt.sess.Path(), ThinkingLevel: rt.thinking, IsIdle: rt.run == nil,
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
		rt.ext.holdNextTurn(msg)
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
	rt.messages = append(rt.contextLocked(), msg)
	sess := rt.sess
	rt.mu.Unlock()
	sess.AppendMessage(msg)
	rt.Emit(events.MessageStart{Message: msg})
	rt.Emit(events.MessageEnd{Message: msg})
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
	e := rt.appendEntry(rt.Session(), session.Entry{Type: session.TypeCustom, CustomType: customType, Data: v})
	rt.Emit(events.Raw{Type: "entry_appended", Fields: map[string]any{"entry": e}})
	return e.ID, nil
}

// SetSessionName names the session; an empty name clears it.
func (h *extHost) SetSessionName(_ context.Context, name string) error {
	rt := h.rt
	if name = strings.TrimSpace(name); name != "" {
		return rt.SetSessionName(name)
	}
	rt.appendEntry(rt.Session(), session.Entry{Type: session.TypeSessionInfo, Name: &name})
	rt.Emit(events.SessionInfoChanged{})
	return nil
}

func (h *extHost) SetLabel(_ context.Context, entryID, label string) error {
	label = strings.TrimSpace(label)
	return h.rt.SetLabel(entryID, &label)
}

func (h *extHost) Session(_ context.Context, q extensions.SessionQuery) (extensions.SessionView, error) {
	rt := h.rt
	sess := rt.Session()
	v := extensions.SessionView{SessionID: sess.ID(), SessionFile: sess.Path(), Name: sess.Name(), LeafID: sess.Leaf(), Cwd: rt.Cwd()}
	var err error
	if v.Header, err = json.Marshal(sess.Header()); err != nil {
		return v, err
	}
	if q.Entries {
		es, err := sess.Entries()
		if err != nil {
			return v, err
		}
		if v.Entries, err = marshalEntries(es); err != nil {
			return v, err
		}
	}
	if q.Branch {
		if v.Branch, err = marshalEntries(sess.Branch("")); err != nil {
			return v, err
		}
	}
	if q.Tree {
		tree, err := sess.Tree()
		if err != nil {
			return v, err
		}
		if v.Tree, err = json.Marshal(tree); err != nil {
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

// ContextUsage is get_session_stats' contextUsage, for ctx.getContextUsage().
func (h *extHost) ContextUsage(context.Context) json.RawMessage {
	rt := h.rt
	rt.mu.Lock()
	model := rt.model
	rt.mu.Unlock()
	var est contextUsageEstimate
	rt.eachContextMessage(est.add)
	cu := est.usage(model)
	if cu == nil {
		return nil
	}
	b, _ := json.Marshal(cu)
	return b
}

func (h *extHost) Tools(context.Context) ([]string, []extensions.ToolInfo) {
	rt := h.rt
	var all []extensions.ToolInfo
	for _, t := range rt.tools.All() {
		info := extensions.ToolInfo{Name: t.Name(), Description: t.Description(), Parameters: t.Parameters(), Exposure: tools.ExposureDirect}
		if p, ok := t.(tools.Prompted); ok {
			info.PromptGuidelines = p.PromptGuidelines()
		}
		if et, ok := t.(*extensions.Tool); ok {
			if e := et.Ref.Spec.Exposure; e != "" {
				info.Exposure = e
			}
			info.Namespace, info.Annotations = et.Ref.Spec.Namespace, et.Ref.Spec.Annotations
		}
		all = append(all, info)
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

// SetModel selects a model like set_model (the reference's setModel also
// saves it as the default); false when it is unknown or unusable.
func (h *extHost) SetModel(_ context.Context, provider, id string) (bool, error) {
	if _, err := h.rt.SetModel(provider, id, true); err != nil {
		return false, nil
	}
	return true, nil
}

// SetThinkingLevel sets the level like set_thinking_level and returns the
// level in effect after clamping to the model.
func (h *extHost) SetThinkingLevel(_ context.Context, level string) string {
	if _, err := h.rt.SetThinkingLevel(level, false); err != nil {
		h.rt.log.Warn("extension set an invalid thinking level", "level", level, "err", err)
	}
	h.rt.mu.Lock()
	defer h.rt.mu.Unlock()
	return h.rt.thinking
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

// execGrace is how long a program run by pi.exec has between SIGTERM and
// SIGKILL once its timeout or signal ends it.
const execGrace = 2 * time.Second

// Exec runs a program (no shell) with no standard input.
func (h *extHost) Exec(ctx context.Context, command string, args []string, cwd string, timeout time.Duration) (extensions.ExecResult, error) {
	if cwd == "" {
		cwd = h.rt.Cwd()
	}
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	cmd := exec.Command(command, args...)
	cmd.Dir = cwd
	cmd.Env = append(cmd.Environ(), h.rt.toolEnv()...)
	var out, errb capped
	cmd.Stdout, cmd.Stderr = &out, &errb
	// In a process group of its own: a timeout or an abort ends what the
	// program started too (SIGTERM, SIGKILL after the grace).
	err := proc.Run(ctx, cmd, execGrace)
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
	st := extensions.HostState{IsIdle: rt.run == nil, HasPendingMessages: rt.queue.status().pending > 0}
	rt.mu.Unlock()
	st.SystemPrompt = rt.systemPrompt()
	return st
}

// Compact compacts the session like the compact command.
func (h *extHost) Compact(ctx context.Context) (json.RawMessage, error) {
	res, err := h.rt.Compact(ctx)
	if err != nil {
		return nil, err
	}
	return json.Marshal(res)
}
