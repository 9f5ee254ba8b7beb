package jsext

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"google.golang.org/grpc/metadata"

	"github.com/atomic-go/atomic/host/extensions"
	"github.com/atomic-go/atomic/host/hooks"
	"github.com/atomic-go/atomic/host/llm"
	"github.com/atomic-go/atomic/sdk"
)

// sdkHost is the agent seen through the plugin SDK (a script running in a
// child process): extensions.Host over sdk.Host. info is the handler
// context snapshot of the call it serves (or of the connection).
type sdkHost struct {
	h    sdk.Host
	info sdk.ContextInfo
	// ctx carries the call's metadata (its id, so that the agent pauses
	// the call's deadline during dialogs); nil for none.
	ctx context.Context
}

var _ extensions.Host = (*sdkHost)(nil)

// newSDKHost serves a call: the sdk.Context is both the host and the
// call's context.
func newSDKHost(c *sdk.Context) *sdkHost {
	return &sdkHost{h: c.Host, ctx: c, info: sdk.ContextInfo{
		Cwd: c.Cwd, Mode: c.Mode, HasUI: c.HasUI, SessionID: c.SessionID, SessionFile: c.SessionFile,
		Model: c.Model, ThinkingLevel: c.ThinkingLevel, IsIdle: c.IsIdle, ProjectTrusted: c.ProjectTrusted,
	}}
}

// callCtx keeps the call's metadata on a context derived elsewhere.
func (h *sdkHost) callCtx(ctx context.Context) context.Context {
	if h.ctx == nil || ctx == h.ctx {
		return ctx
	}
	// The jsext side passes the call's own context (which is h.ctx) or a
	// context without cancellation; keep the metadata either way.
	return mergeMetadata(ctx, h.ctx)
}

func (h *sdkHost) HandlerContext() extensions.HandlerContext {
	i := h.info
	hc := extensions.HandlerContext{Cwd: i.Cwd, Mode: i.Mode, HasUI: i.HasUI, SessionID: i.SessionID, SessionFile: i.SessionFile,
		ThinkingLevel: i.ThinkingLevel, IsIdle: i.IsIdle, ProjectTrusted: i.ProjectTrusted}
	if i.Model != nil {
		hc.Model = fromSDKModel(i.Model)
	}
	return hc
}

func fromSDKModel(m *sdk.Model) *llm.Model {
	if m == nil {
		return nil
	}
	b, _ := json.Marshal(m)
	var out llm.Model
	if json.Unmarshal(b, &out) != nil {
		return nil
	}
	return &out
}

func (h *sdkHost) SendMessage(ctx context.Context, msg hooks.CustomMessage, triggerTurn bool, deliverAs string) error {
	return h.h.SendMessage(h.callCtx(ctx), sdk.CustomMessage{CustomType: msg.CustomType, Content: msg.Content, Display: msg.Display, Details: msg.Details},
		sdk.SendOptions{TriggerTurn: triggerTurn, DeliverAs: deliverAs})
}

func (h *sdkHost) SendUserMessage(ctx context.Context, content llm.Content, deliverAs string) error {
	return h.h.SendUserMessage(h.callCtx(ctx), content, deliverAs)
}

func (h *sdkHost) AppendEntry(ctx context.Context, customType string, data json.RawMessage) (string, error) {
	var v any
	if len(data) > 0 {
		v = data
	}
	return h.h.AppendEntry(h.callCtx(ctx), customType, v)
}

func (h *sdkHost) SetSessionName(ctx context.Context, name string) error {
	return h.h.SetSessionName(h.callCtx(ctx), name)
}

func (h *sdkHost) SetLabel(ctx context.Context, entryID, label string) error {
	return h.h.SetLabel(h.callCtx(ctx), entryID, label)
}

func rawOf(v any) json.RawMessage {
	if v == nil {
		return nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	return b
}

func (h *sdkHost) Session(ctx context.Context, q extensions.SessionQuery) (extensions.SessionView, error) {
	v, err := h.h.Session(h.callCtx(ctx), sdk.SessionQuery{Entries: q.Entries, Branch: q.Branch, Tree: q.Tree})
	if err != nil || v == nil {
		return extensions.SessionView{}, err
	}
	out := extensions.SessionView{SessionID: v.SessionID, SessionFile: v.SessionFile, Name: v.Name, LeafID: v.LeafID, Cwd: v.Cwd, Header: v.Header}
	list := func(want bool, l []map[string]any) json.RawMessage {
		if !want {
			return nil
		}
		if l == nil {
			return json.RawMessage("[]")
		}
		return rawOf(l)
	}
	out.Entries, out.Branch, out.Tree = list(q.Entries, v.Entries), list(q.Branch, v.Branch), list(q.Tree, v.Tree)
	return out, nil
}

func (h *sdkHost) ContextUsage(ctx context.Context) json.RawMessage {
	u, err := h.h.ContextUsage(h.callCtx(ctx))
	if err != nil || u == nil {
		return nil
	}
	return rawOf(u)
}

func (h *sdkHost) Tools(ctx context.Context) ([]string, []extensions.ToolInfo) {
	active, all, err := h.h.Tools(h.callCtx(ctx))
	if err != nil {
		return nil, nil
	}
	out := make([]extensions.ToolInfo, len(all))
	for i, t := range all {
		out[i] = extensions.ToolInfo{Name: t.Name, Description: t.Description, Parameters: t.Parameters}
	}
	return active, out
}

func (h *sdkHost) SetActiveTools(ctx context.Context, names []string) {
	_ = h.h.SetActiveTools(h.callCtx(ctx), names)
}

func (h *sdkHost) Model(ctx context.Context) (*llm.Model, string) {
	m, level, err := h.h.Model(h.callCtx(ctx))
	if err != nil {
		return fromSDKModel(h.info.Model), h.info.ThinkingLevel
	}
	return fromSDKModel(m), level
}

func (h *sdkHost) SetModel(ctx context.Context, provider, id string) (bool, error) {
	return h.h.SetModel(h.callCtx(ctx), provider, id)
}

func (h *sdkHost) SetThinkingLevel(ctx context.Context, level string) string {
	l, err := h.h.SetThinkingLevel(h.callCtx(ctx), level)
	if err != nil {
		return h.info.ThinkingLevel
	}
	return l
}

func (h *sdkHost) Abort(ctx context.Context) { _ = h.h.Abort(h.callCtx(ctx)) }

func (h *sdkHost) UI(ctx context.Context, method string, params map[string]any) (extensions.UIAnswer, error) {
	a, err := h.h.UI(h.callCtx(ctx), method, params)
	return extensions.UIAnswer{Cancelled: a.Cancelled, Value: a.Value, HasValue: a.HasValue, Confirmed: a.Confirmed}, err
}

func (h *sdkHost) Exec(ctx context.Context, command string, args []string, cwd string, timeout time.Duration) (extensions.ExecResult, error) {
	r, err := h.h.Exec(h.callCtx(ctx), command, args, sdk.ExecOptions{Cwd: cwd, Timeout: timeout})
	if err != nil || r == nil {
		return extensions.ExecResult{Code: -1}, err
	}
	return extensions.ExecResult{Stdout: r.Stdout, Stderr: r.Stderr, Code: r.Code, Killed: r.Killed}, nil
}

func (h *sdkHost) Commands(ctx context.Context) json.RawMessage {
	c, err := h.h.Commands(h.callCtx(ctx))
	if err != nil {
		return nil
	}
	if c == nil {
		return json.RawMessage("[]")
	}
	return rawOf(c)
}

func (h *sdkHost) State(ctx context.Context) extensions.HostState {
	st, err := h.h.State(h.callCtx(ctx))
	if err != nil || st == nil {
		return extensions.HostState{IsIdle: h.info.IsIdle}
	}
	return extensions.HostState{IsIdle: st.IsIdle, HasPendingMessages: st.HasPendingMessages, SystemPrompt: st.SystemPrompt}
}

func (h *sdkHost) Compact(ctx context.Context) (json.RawMessage, error) {
	return h.h.Compact(h.callCtx(ctx))
}

// RegisterMCPServer implements extensions.MCPServerRegistrar for an
// isolated script: the agent names the script's own path.
func (h *sdkHost) RegisterMCPServer(_, name string, config json.RawMessage) error {
	return h.h.RegisterMCPServer(h.callCtx(context.Background()), name, config)
}

// mergeMetadata puts the call's outgoing gRPC metadata (its call id) on
// ctx.
func mergeMetadata(ctx, call context.Context) context.Context {
	if _, ok := metadata.FromOutgoingContext(ctx); ok {
		return ctx
	}
	if md, ok := metadata.FromOutgoingContext(call); ok {
		return metadata.NewOutgoingContext(ctx, md)
	}
	return ctx
}

// An isolated script's session control goes to the agent through the
// SDK's SessionControl (when the agent offers it).
var _ extensions.SessionController = (*sdkHost)(nil)

func (h *sdkHost) sessionControl() (sdk.SessionControl, error) {
	sc, ok := h.h.(sdk.SessionControl)
	if !ok {
		return nil, errors.New(extensions.SessionControlUnavailable)
	}
	return sc, nil
}

func sdkChange(cancelled bool, err error) (extensions.SessionChange, error) {
	return extensions.SessionChange{Cancelled: cancelled}, err
}

func (h *sdkHost) NewSession(ctx context.Context, parent string) (extensions.SessionChange, error) {
	sc, err := h.sessionControl()
	if err != nil {
		return extensions.SessionChange{}, err
	}
	return sdkChange(sc.NewSession(h.callCtx(ctx), parent))
}

func (h *sdkHost) Fork(ctx context.Context, entryID, position string) (extensions.SessionChange, error) {
	sc, err := h.sessionControl()
	if err != nil {
		return extensions.SessionChange{}, err
	}
	return sdkChange(sc.Fork(h.callCtx(ctx), entryID, position))
}

func (h *sdkHost) SwitchSession(ctx context.Context, path string) (extensions.SessionChange, error) {
	sc, err := h.sessionControl()
	if err != nil {
		return extensions.SessionChange{}, err
	}
	return sdkChange(sc.SwitchSession(h.callCtx(ctx), path))
}

func (h *sdkHost) NavigateTree(ctx context.Context, targetID string, o extensions.NavigateOptions) (extensions.SessionChange, error) {
	sc, err := h.sessionControl()
	if err != nil {
		return extensions.SessionChange{}, err
	}
	return sdkChange(sc.NavigateTree(h.callCtx(ctx), targetID, sdk.NavigateOptions(o)))
}

func (h *sdkHost) Reload(ctx context.Context) error {
	sc, err := h.sessionControl()
	if err != nil {
		return err
	}
	return sc.Reload(h.callCtx(ctx))
}
