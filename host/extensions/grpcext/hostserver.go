package grpcext

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/atomic-go/atomic/host/extensions"
	"github.com/atomic-go/atomic/host/hooks"
	"github.com/atomic-go/atomic/host/llm"
	"github.com/atomic-go/atomic/host/tools"
	pb "github.com/atomic-go/atomic/proto/atomic/plugin/v1"
	"github.com/atomic-go/atomic/sdk"
)

// hostServer serves the HostService to one plugin.
type hostServer struct {
	pb.UnimplementedHostServiceServer
	p *Plugin
}

func invalid(err error) error { return status.Error(codes.InvalidArgument, err.Error()) }

func failed(err error) error {
	if err == nil {
		return nil
	}
	if _, ok := status.FromError(err); ok {
		return err
	}
	return status.Error(codes.FailedPrecondition, err.Error())
}

// callCtx returns the hook call a host call is made for (when the plugin
// passed its id), so that dialogs pause that call's deadline.
func (s *hostServer) callCtx(ctx context.Context) context.Context {
	md, _ := metadata.FromIncomingContext(ctx)
	for _, id := range md.Get(sdk.CallIDMetadata) {
		if v, ok := s.p.calls.Load(id); ok {
			return v.(context.Context)
		}
	}
	return nil
}

func (s *hostServer) SendMessage(ctx context.Context, r *pb.SendMessageRequest) (*pb.SendMessageResponse, error) {
	msg := hooks.CustomMessage{CustomType: r.CustomType, Display: r.Display}
	// As pi: customType is optional.
	if len(r.ContentJson) > 0 {
		if err := json.Unmarshal(r.ContentJson, &msg.Content); err != nil {
			return nil, invalid(err)
		}
	}
	if len(r.DetailsJson) > 0 {
		if err := json.Unmarshal(r.DetailsJson, &msg.Details); err != nil {
			return nil, invalid(err)
		}
	}
	return &pb.SendMessageResponse{}, failed(s.p.host.SendMessage(ctx, msg, r.TriggerTurn, r.DeliverAs))
}

type errText string

func (e errText) Error() string { return string(e) }

func (s *hostServer) SendUserMessage(ctx context.Context, r *pb.SendUserMessageRequest) (*pb.SendUserMessageResponse, error) {
	var c llm.Content
	if err := json.Unmarshal(r.ContentJson, &c); err != nil {
		return nil, invalid(err)
	}
	return &pb.SendUserMessageResponse{}, failed(s.p.host.SendUserMessage(ctx, c, r.DeliverAs))
}

func (s *hostServer) AppendEntry(ctx context.Context, r *pb.AppendEntryRequest) (*pb.AppendEntryResponse, error) {
	if r.CustomType == "" {
		return nil, invalid(errText("customType is required"))
	}
	if len(r.DataJson) > 0 && !json.Valid(r.DataJson) {
		return nil, invalid(errText("data is not valid JSON"))
	}
	id, err := s.p.host.AppendEntry(ctx, r.CustomType, r.DataJson)
	if err != nil {
		return nil, failed(err)
	}
	return &pb.AppendEntryResponse{EntryId: id}, nil
}

func (s *hostServer) SetSessionName(ctx context.Context, r *pb.SetSessionNameRequest) (*pb.SetSessionNameResponse, error) {
	return &pb.SetSessionNameResponse{}, failed(s.p.host.SetSessionName(ctx, r.Name))
}

func (s *hostServer) SetLabel(ctx context.Context, r *pb.SetLabelRequest) (*pb.SetLabelResponse, error) {
	if err := s.p.host.SetLabel(ctx, r.EntryId, r.Label); err != nil {
		return nil, status.Error(codes.NotFound, err.Error())
	}
	return &pb.SetLabelResponse{}, nil
}

func (s *hostServer) GetSession(ctx context.Context, r *pb.GetSessionRequest) (*pb.GetSessionResponse, error) {
	v, err := s.p.host.Session(ctx, sessionQuery(r))
	if err != nil {
		return nil, failed(err)
	}
	return &pb.GetSessionResponse{
		SessionId: v.SessionID, SessionFile: v.SessionFile, Name: v.Name, LeafId: v.LeafID, Cwd: v.Cwd,
		HeaderJson: v.Header, EntriesJson: v.Entries, BranchJson: v.Branch, TreeJson: v.Tree,
	}, nil
}

func (s *hostServer) GetContextUsage(ctx context.Context, _ *pb.GetContextUsageRequest) (*pb.GetContextUsageResponse, error) {
	return &pb.GetContextUsageResponse{UsageJson: s.p.host.ContextUsage(ctx)}, nil
}

func (s *hostServer) GetTools(ctx context.Context, _ *pb.GetToolsRequest) (*pb.GetToolsResponse, error) {
	active, all := s.p.host.Tools(ctx)
	b, err := json.Marshal(all)
	if err != nil {
		return nil, failed(err)
	}
	return &pb.GetToolsResponse{Active: active, AllJson: b}, nil
}

func (s *hostServer) SetActiveTools(ctx context.Context, r *pb.SetActiveToolsRequest) (*pb.SetActiveToolsResponse, error) {
	s.p.host.SetActiveTools(ctx, r.Names)
	return &pb.SetActiveToolsResponse{}, nil
}

func (s *hostServer) GetModel(ctx context.Context, _ *pb.GetModelRequest) (*pb.GetModelResponse, error) {
	m, level := s.p.host.Model(ctx)
	resp := &pb.GetModelResponse{ThinkingLevel: level}
	if m != nil {
		resp.ModelJson, _ = json.Marshal(m)
	}
	return resp, nil
}

func (s *hostServer) SetModel(ctx context.Context, r *pb.SetModelRequest) (*pb.SetModelResponse, error) {
	ok, err := s.p.host.SetModel(ctx, r.Provider, r.ModelId)
	if err != nil {
		return nil, failed(err)
	}
	return &pb.SetModelResponse{Ok: ok}, nil
}

func (s *hostServer) SetThinkingLevel(ctx context.Context, r *pb.SetThinkingLevelRequest) (*pb.SetThinkingLevelResponse, error) {
	if !llm.IsThinkingLevel(r.Level) {
		return nil, invalid(errText("unknown thinking level " + r.Level))
	}
	return &pb.SetThinkingLevelResponse{Level: s.p.host.SetThinkingLevel(ctx, r.Level)}, nil
}

func (s *hostServer) Abort(ctx context.Context, _ *pb.AbortRequest) (*pb.AbortResponse, error) {
	// Abort waits for the run to stop, and the run may be waiting for
	// this very plugin: do not block the plugin's call on it.
	go s.p.host.Abort(context.WithoutCancel(ctx))
	return &pb.AbortResponse{}, nil
}

func (s *hostServer) UI(ctx context.Context, r *pb.UIRequest) (*pb.UIResponse, error) {
	params := map[string]any{}
	if len(r.ParamsJson) > 0 {
		if err := json.Unmarshal(r.ParamsJson, &params); err != nil {
			return nil, invalid(err)
		}
	}
	if call := s.callCtx(ctx); call != nil {
		resume := hooks.PauseDeadline(call)
		defer resume()
	}
	a, err := s.p.host.UI(ctx, r.Method, params)
	if err != nil {
		return nil, invalid(err)
	}
	return &pb.UIResponse{Cancelled: a.Cancelled, Value: a.Value, HasValue: a.HasValue, Confirmed: a.Confirmed}, nil
}

func (s *hostServer) Exec(ctx context.Context, r *pb.ExecRequest) (*pb.ExecResponse, error) {
	res, err := s.p.host.Exec(ctx, r.Command, r.Args, r.Cwd, time.Duration(r.TimeoutMs)*time.Millisecond)
	if err != nil {
		return nil, failed(err)
	}
	return &pb.ExecResponse{Stdout: res.Stdout, Stderr: res.Stderr, Code: int32(res.Code), Killed: res.Killed}, nil
}

func (s *hostServer) GetCommands(ctx context.Context, _ *pb.GetCommandsRequest) (*pb.GetCommandsResponse, error) {
	return &pb.GetCommandsResponse{CommandsJson: s.p.host.Commands(ctx)}, nil
}

func (s *hostServer) GetState(ctx context.Context, _ *pb.GetStateRequest) (*pb.GetStateResponse, error) {
	st := s.p.host.State(ctx)
	return &pb.GetStateResponse{IsIdle: st.IsIdle, HasPendingMessages: st.HasPendingMessages, SystemPrompt: st.SystemPrompt, Context: s.p.handlerContext("")}, nil
}

func (s *hostServer) RegisterMcpServer(_ context.Context, r *pb.RegisterMcpServerRequest) (*pb.RegisterMcpServerResponse, error) {
	reg, ok := s.p.host.(extensions.MCPServerRegistrar)
	if !ok {
		return nil, status.Error(codes.Unimplemented, "this agent cannot add MCP servers for extensions")
	}
	if r.Name == "" {
		return nil, invalid(errText("name is required"))
	}
	if err := reg.RegisterMCPServer(s.p.spec.Path, r.Name, json.RawMessage(r.ConfigJson)); err != nil {
		return nil, invalid(err)
	}
	return &pb.RegisterMcpServerResponse{}, nil
}

func (s *hostServer) Compact(ctx context.Context, _ *pb.CompactRequest) (*pb.CompactResponse, error) {
	res, err := s.p.host.Compact(ctx)
	if err != nil {
		return &pb.CompactResponse{Error: err.Error()}, nil
	}
	return &pb.CompactResponse{ResultJson: res}, nil
}

func sessionQuery(r *pb.GetSessionRequest) extensions.SessionQuery {
	return extensions.SessionQuery{Entries: r.Entries, Branch: r.Branch, Tree: r.Tree}
}

// Session control (ctx.newSession, fork, switchSession, navigateTree,
// reload of a command's context), served when the host offers it.

func (s *hostServer) sessionController() (extensions.SessionController, error) {
	sc, ok := s.p.host.(extensions.SessionController)
	if !ok {
		return nil, status.Error(codes.Unimplemented, extensions.SessionControlUnavailable)
	}
	return sc, nil
}

// change runs one session change and describes its outcome.
func (s *hostServer) change(do func(extensions.SessionController) (extensions.SessionChange, error)) (bool, *pb.HandlerContext, error) {
	sc, err := s.sessionController()
	if err != nil {
		return false, nil, err
	}
	ch, err := do(sc)
	if err != nil {
		return false, nil, failed(err)
	}
	return ch.Cancelled, handlerContextProto(ch.Context, ""), nil
}

func (s *hostServer) NewSession(ctx context.Context, r *pb.NewSessionRequest) (*pb.NewSessionResponse, error) {
	cancelled, hc, err := s.change(func(sc extensions.SessionController) (extensions.SessionChange, error) {
		return sc.NewSession(ctx, r.ParentSession)
	})
	return &pb.NewSessionResponse{Cancelled: cancelled, Context: hc}, err
}

func (s *hostServer) Fork(ctx context.Context, r *pb.ForkRequest) (*pb.ForkResponse, error) {
	cancelled, hc, err := s.change(func(sc extensions.SessionController) (extensions.SessionChange, error) {
		return sc.Fork(ctx, r.EntryId, r.Position)
	})
	return &pb.ForkResponse{Cancelled: cancelled, Context: hc}, err
}

func (s *hostServer) SwitchSession(ctx context.Context, r *pb.SwitchSessionRequest) (*pb.SwitchSessionResponse, error) {
	cancelled, hc, err := s.change(func(sc extensions.SessionController) (extensions.SessionChange, error) {
		return sc.SwitchSession(ctx, r.SessionPath)
	})
	return &pb.SwitchSessionResponse{Cancelled: cancelled, Context: hc}, err
}

func (s *hostServer) NavigateTree(ctx context.Context, r *pb.NavigateTreeRequest) (*pb.NavigateTreeResponse, error) {
	cancelled, hc, err := s.change(func(sc extensions.SessionController) (extensions.SessionChange, error) {
		return sc.NavigateTree(ctx, r.TargetId, extensions.NavigateOptions{Summarize: r.Summarize,
			CustomInstructions: r.CustomInstructions, ReplaceInstructions: r.ReplaceInstructions, Label: r.Label})
	})
	return &pb.NavigateTreeResponse{Cancelled: cancelled, Context: hc}, err
}

func (s *hostServer) Reload(ctx context.Context, _ *pb.ReloadRequest) (*pb.ReloadResponse, error) {
	sc, err := s.sessionController()
	if err != nil {
		return nil, err
	}
	return &pb.ReloadResponse{}, failed(sc.Reload(context.WithoutCancel(ctx)))
}

// UpdateRegistrations takes what the plugin registered after Describe; new
// tools are offered to the model from its next request.
func (s *hostServer) UpdateRegistrations(_ context.Context, r *pb.UpdateRegistrationsRequest) (*pb.UpdateRegistrationsResponse, error) {
	d := r.GetDescription()
	if d == nil {
		return nil, invalid(errText("description is required"))
	}
	if err := s.p.updateRegistrations(d); err != nil {
		return nil, invalid(err)
	}
	if tr, ok := s.p.host.(extensions.ToolRefresher); ok {
		tr.RefreshExtensionTools()
	}
	return &pb.UpdateRegistrationsResponse{}, nil
}

// RunBuiltinTool runs a built-in tool for pi's tool factories
// (tools.RunBuiltin, as the goja runtime does), streaming its partial
// results.
func (s *hostServer) RunBuiltinTool(r *pb.RunBuiltinToolRequest, stream pb.HostService_RunBuiltinToolServer) error {
	var args map[string]any
	if len(r.ArgumentsJson) > 0 {
		if err := json.Unmarshal(r.ArgumentsJson, &args); err != nil {
			return invalid(fmt.Errorf("arguments_json: %w", err))
		}
	}
	cwd := r.Cwd
	if cwd == "" {
		cwd = s.p.host.HandlerContext().Cwd
	}
	var mu sync.Mutex
	ended := false
	send := func(msg *pb.RunBuiltinToolResponse) error {
		mu.Lock()
		defer mu.Unlock()
		if ended {
			return nil
		}
		ended = msg.Final
		return stream.Send(msg)
	}
	update := func(res llm.ToolResult) {
		if b, err := json.Marshal(res); err == nil {
			_ = send(&pb.RunBuiltinToolResponse{ResultJson: b})
		}
	}
	res, err := tools.RunBuiltin(stream.Context(), r.Name, args, cwd, r.Env, update)
	if err != nil {
		return send(&pb.RunBuiltinToolResponse{Final: true, Error: err.Error()})
	}
	b, err := json.Marshal(res)
	if err != nil {
		return send(&pb.RunBuiltinToolResponse{Final: true, Error: err.Error()})
	}
	return send(&pb.RunBuiltinToolResponse{Final: true, ResultJson: b})
}
