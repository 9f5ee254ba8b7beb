package sdk

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"google.golang.org/grpc"

	pb "github.com/atomic-go/atomic/proto/atomic/plugin/v1"
)

// grpcHost is the Host served by the agent through the go-plugin broker.
type grpcHost struct {
	c  pb.HostServiceClient
	cc grpc.ClientConnInterface
}

// RawHost is implemented by the Host that Serve gives a plugin: one
// HostService call by method name ("SetLabel"), the request and the
// response in protobuf's wire form. For programs that carry the
// protocol's messages themselves (atomic's isolated scripts forward
// their host calls as they are); the errors are gRPC statuses.
type RawHost interface {
	CallHost(ctx context.Context, method string, req []byte) ([]byte, error)
}

var _ RawHost = (*grpcHost)(nil)

// CallHost implements RawHost.
func (h *grpcHost) CallHost(ctx context.Context, method string, req []byte) ([]byte, error) {
	var resp []byte
	err := h.cc.Invoke(ctx, "/atomic.plugin.v1.HostService/"+method, &req, &resp, grpc.ForceCodec(rawCodec{}))
	return resp, err
}

// rawCodec passes messages already in protobuf's wire form.
type rawCodec struct{}

func (rawCodec) Marshal(v any) ([]byte, error) {
	b, ok := v.(*[]byte)
	if !ok {
		return nil, fmt.Errorf("raw codec: unexpected %T", v)
	}
	return *b, nil
}

func (rawCodec) Unmarshal(data []byte, v any) error {
	b, ok := v.(*[]byte)
	if !ok {
		return fmt.Errorf("raw codec: unexpected %T", v)
	}
	*b = append([]byte(nil), data...)
	return nil
}

func (rawCodec) Name() string { return "proto" }

func marshalOpt(v any) ([]byte, error) {
	if v == nil {
		return nil, nil
	}
	return json.Marshal(v)
}

func (h *grpcHost) SendMessage(ctx context.Context, msg CustomMessage, opts SendOptions) error {
	content, err := json.Marshal(msg.Content)
	if err != nil {
		return err
	}
	details, err := marshalOpt(msg.Details)
	if err != nil {
		return err
	}
	_, err = h.c.SendMessage(ctx, &pb.SendMessageRequest{
		CustomType: msg.CustomType, ContentJson: content, Display: msg.Display, DetailsJson: details,
		TriggerTurn: opts.TriggerTurn, DeliverAs: opts.DeliverAs,
	})
	return err
}

func (h *grpcHost) SendUserMessage(ctx context.Context, content any, deliverAs string) error {
	c, err := json.Marshal(content)
	if err != nil {
		return err
	}
	_, err = h.c.SendUserMessage(ctx, &pb.SendUserMessageRequest{ContentJson: c, DeliverAs: deliverAs})
	return err
}

func (h *grpcHost) AppendEntry(ctx context.Context, customType string, data any) (string, error) {
	d, err := marshalOpt(data)
	if err != nil {
		return "", err
	}
	r, err := h.c.AppendEntry(ctx, &pb.AppendEntryRequest{CustomType: customType, DataJson: d})
	if err != nil {
		return "", err
	}
	return r.EntryId, nil
}

func (h *grpcHost) SetSessionName(ctx context.Context, name string) error {
	_, err := h.c.SetSessionName(ctx, &pb.SetSessionNameRequest{Name: name})
	return err
}

func (h *grpcHost) SetLabel(ctx context.Context, entryID, label string) error {
	_, err := h.c.SetLabel(ctx, &pb.SetLabelRequest{EntryId: entryID, Label: label})
	return err
}

func (h *grpcHost) Session(ctx context.Context, q SessionQuery) (*SessionView, error) {
	r, err := h.c.GetSession(ctx, &pb.GetSessionRequest{Entries: q.Entries, Branch: q.Branch, Tree: q.Tree})
	if err != nil {
		return nil, err
	}
	v := &SessionView{SessionID: r.SessionId, SessionFile: r.SessionFile, Name: r.Name, LeafID: r.LeafId, Cwd: r.Cwd, Header: r.HeaderJson}
	for _, p := range []struct {
		raw []byte
		dst *[]map[string]any
	}{{r.EntriesJson, &v.Entries}, {r.BranchJson, &v.Branch}, {r.TreeJson, &v.Tree}} {
		if len(p.raw) > 0 {
			if err := json.Unmarshal(p.raw, p.dst); err != nil {
				return nil, err
			}
		}
	}
	return v, nil
}

func (h *grpcHost) ContextUsage(ctx context.Context) (*ContextUsage, error) {
	r, err := h.c.GetContextUsage(ctx, &pb.GetContextUsageRequest{})
	if err != nil || len(r.UsageJson) == 0 {
		return nil, err
	}
	var u ContextUsage
	return &u, json.Unmarshal(r.UsageJson, &u)
}

func (h *grpcHost) Tools(ctx context.Context) ([]string, []ToolInfo, error) {
	r, err := h.c.GetTools(ctx, &pb.GetToolsRequest{})
	if err != nil {
		return nil, nil, err
	}
	var all []ToolInfo
	if len(r.AllJson) > 0 {
		if err := json.Unmarshal(r.AllJson, &all); err != nil {
			return nil, nil, err
		}
	}
	return r.Active, all, nil
}

func (h *grpcHost) SetActiveTools(ctx context.Context, names []string) error {
	_, err := h.c.SetActiveTools(ctx, &pb.SetActiveToolsRequest{Names: names})
	return err
}

func (h *grpcHost) Model(ctx context.Context) (*Model, string, error) {
	r, err := h.c.GetModel(ctx, &pb.GetModelRequest{})
	if err != nil {
		return nil, "", err
	}
	if len(r.ModelJson) == 0 {
		return nil, r.ThinkingLevel, nil
	}
	var m Model
	return &m, r.ThinkingLevel, json.Unmarshal(r.ModelJson, &m)
}

func (h *grpcHost) SetModel(ctx context.Context, provider, id string) (bool, error) {
	r, err := h.c.SetModel(ctx, &pb.SetModelRequest{Provider: provider, ModelId: id})
	if err != nil {
		return false, err
	}
	return r.Ok, nil
}

func (h *grpcHost) SetThinkingLevel(ctx context.Context, level string) (string, error) {
	r, err := h.c.SetThinkingLevel(ctx, &pb.SetThinkingLevelRequest{Level: level})
	if err != nil {
		return "", err
	}
	return r.Level, nil
}

func (h *grpcHost) Abort(ctx context.Context) error {
	_, err := h.c.Abort(ctx, &pb.AbortRequest{})
	return err
}

func (h *grpcHost) UI(ctx context.Context, method string, params map[string]any) (UIAnswer, error) {
	p, err := json.Marshal(params)
	if err != nil {
		return UIAnswer{Cancelled: true}, err
	}
	r, err := h.c.UI(ctx, &pb.UIRequest{Method: method, ParamsJson: p})
	if err != nil {
		return UIAnswer{Cancelled: true}, err
	}
	return UIAnswer{Cancelled: r.Cancelled, Value: r.Value, HasValue: r.HasValue, Confirmed: r.Confirmed}, nil
}

func (h *grpcHost) Exec(ctx context.Context, command string, args []string, opts ExecOptions) (*ExecResult, error) {
	r, err := h.c.Exec(ctx, &pb.ExecRequest{Command: command, Args: args, Cwd: opts.Cwd, TimeoutMs: uint32(opts.Timeout.Milliseconds())})
	if err != nil {
		return nil, err
	}
	return &ExecResult{Stdout: r.Stdout, Stderr: r.Stderr, Code: int(r.Code), Killed: r.Killed}, nil
}

func (h *grpcHost) Commands(ctx context.Context) ([]CommandInfo, error) {
	r, err := h.c.GetCommands(ctx, &pb.GetCommandsRequest{})
	if err != nil {
		return nil, err
	}
	var out []CommandInfo
	return out, json.Unmarshal(r.CommandsJson, &out)
}

func (h *grpcHost) State(ctx context.Context) (*State, error) {
	r, err := h.c.GetState(ctx, &pb.GetStateRequest{})
	if err != nil {
		return nil, err
	}
	return &State{IsIdle: r.IsIdle, HasPendingMessages: r.HasPendingMessages, SystemPrompt: r.SystemPrompt}, nil
}

func (h *grpcHost) Compact(ctx context.Context) (json.RawMessage, error) {
	r, err := h.c.Compact(ctx, &pb.CompactRequest{})
	if err != nil {
		return nil, err
	}
	if r.Error != "" {
		return nil, errors.New(r.Error)
	}
	return r.ResultJson, nil
}

func (h *grpcHost) RegisterMCPServer(ctx context.Context, name string, config json.RawMessage) error {
	_, err := h.c.RegisterMcpServer(ctx, &pb.RegisterMcpServerRequest{Name: name, ConfigJson: config})
	return err
}

// ErrNoHost is returned by host calls made before the agent connected.
var ErrNoHost = errors.New("the agent has not connected yet")

// NoHost is the Host before the agent connected: every call answers
// ErrNoHost (atomic's isolated scripts use it while they load).
type NoHost struct{}

var _ Host = NoHost{}

func (NoHost) SendMessage(context.Context, CustomMessage, SendOptions) error { return ErrNoHost }
func (NoHost) SendUserMessage(context.Context, any, string) error            { return ErrNoHost }
func (NoHost) AppendEntry(context.Context, string, any) (string, error)      { return "", ErrNoHost }
func (NoHost) SetSessionName(context.Context, string) error                  { return ErrNoHost }
func (NoHost) SetLabel(context.Context, string, string) error                { return ErrNoHost }
func (NoHost) Session(context.Context, SessionQuery) (*SessionView, error)   { return nil, ErrNoHost }
func (NoHost) ContextUsage(context.Context) (*ContextUsage, error)           { return nil, ErrNoHost }
func (NoHost) Tools(context.Context) ([]string, []ToolInfo, error)           { return nil, nil, ErrNoHost }
func (NoHost) SetActiveTools(context.Context, []string) error                { return ErrNoHost }
func (NoHost) Model(context.Context) (*Model, string, error)                 { return nil, "", ErrNoHost }
func (NoHost) SetModel(context.Context, string, string) (bool, error)        { return false, ErrNoHost }
func (NoHost) SetThinkingLevel(context.Context, string) (string, error)      { return "", ErrNoHost }
func (NoHost) Abort(context.Context) error                                   { return ErrNoHost }
func (NoHost) UI(context.Context, string, map[string]any) (UIAnswer, error) {
	return UIAnswer{Cancelled: true}, ErrNoHost
}
func (NoHost) Exec(context.Context, string, []string, ExecOptions) (*ExecResult, error) {
	return nil, ErrNoHost
}
func (NoHost) Commands(context.Context) ([]CommandInfo, error)  { return nil, ErrNoHost }
func (NoHost) State(context.Context) (*State, error)            { return nil, ErrNoHost }
func (NoHost) Compact(context.Context) (json.RawMessage, error) { return nil, ErrNoHost }
func (NoHost) RegisterMCPServer(context.Context, string, json.RawMessage) error {
	return ErrNoHost
}

// SessionControl is the session control of a command (pi's
// ctx.newSession, fork, switchSession, navigateTree, reload), offered by
// the agent's Host besides the Host methods: assert it on ctx.Host. Each
// runs the RPC command of that name, session_before_* handlers included
// (this extension's too: do not hold the handler that would answer them).
// The bool is true when a handler cancelled the change.
type SessionControl interface {
	NewSession(ctx context.Context, parentSession string) (cancelled bool, err error)
	// Fork: position "before" (or "") forks before a user message, "at"
	// copies the path through the entry.
	Fork(ctx context.Context, entryID, position string) (cancelled bool, err error)
	SwitchSession(ctx context.Context, path string) (cancelled bool, err error)
	NavigateTree(ctx context.Context, targetID string, opts NavigateOptions) (cancelled bool, err error)
	// Reload reloads the extensions (this one too: the answer may not
	// come) and resources.
	Reload(ctx context.Context) error
}

// NavigateOptions are NavigateTree's options.
type NavigateOptions struct {
	Summarize           bool
	CustomInstructions  string
	ReplaceInstructions bool
	Label               string
}

var _ SessionControl = (*grpcHost)(nil)

func (h *grpcHost) NewSession(ctx context.Context, parent string) (bool, error) {
	r, err := h.c.NewSession(ctx, &pb.NewSessionRequest{ParentSession: parent})
	return r.GetCancelled(), err
}

func (h *grpcHost) Fork(ctx context.Context, entryID, position string) (bool, error) {
	r, err := h.c.Fork(ctx, &pb.ForkRequest{EntryId: entryID, Position: position})
	return r.GetCancelled(), err
}

func (h *grpcHost) SwitchSession(ctx context.Context, path string) (bool, error) {
	r, err := h.c.SwitchSession(ctx, &pb.SwitchSessionRequest{SessionPath: path})
	return r.GetCancelled(), err
}

func (h *grpcHost) NavigateTree(ctx context.Context, targetID string, o NavigateOptions) (bool, error) {
	r, err := h.c.NavigateTree(ctx, &pb.NavigateTreeRequest{TargetId: targetID, Summarize: o.Summarize,
		CustomInstructions: o.CustomInstructions, ReplaceInstructions: o.ReplaceInstructions, Label: o.Label})
	return r.GetCancelled(), err
}

func (h *grpcHost) Reload(ctx context.Context) error {
	_, err := h.c.Reload(ctx, &pb.ReloadRequest{})
	return err
}
