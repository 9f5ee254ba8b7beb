// Package hostsvc is the HostService (proto/atomic/plugin/v1/host.proto)
// over an extensions.Host: one Go implementation of every host method,
// served to plugins over gRPC (grpcext) and called in process by the goja
// runtime's host port (jsext). Adding a host method: the proto, its method
// here, and the line of host/extensions/jsext/js/api.js that exposes it.
package hostsvc

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/atomic-go/atomic/host/extensions"
	"github.com/atomic-go/atomic/host/hooks"
	"github.com/atomic-go/atomic/host/llm"
	"github.com/atomic-go/atomic/host/tools"
	pb "github.com/atomic-go/atomic/proto/atomic/plugin/v1"
)

// Server serves the HostService of one extension over its Host.
type Server struct {
	pb.UnimplementedHostServiceServer
	// Host is the session the extension acts on.
	Host extensions.Host
	// Path is the extension's path (the owner of the MCP servers it adds).
	Path string
	// Call returns the hook call a host call is made for (dialogs pause
	// its deadline); nil, or a nil result, for none.
	Call func(ctx context.Context) context.Context
	// Registrations takes what the extension registers after it was
	// described (UpdateRegistrations); nil refuses the call.
	Registrations func(*pb.DescribeResponse) error
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

func (s *Server) callCtx(ctx context.Context) context.Context {
	if s.Call == nil {
		return nil
	}
	return s.Call(ctx)
}

func (s *Server) SendMessage(ctx context.Context, r *pb.SendMessageRequest) (*pb.SendMessageResponse, error) {
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
	return &pb.SendMessageResponse{}, failed(s.Host.SendMessage(ctx, msg, r.TriggerTurn, r.DeliverAs))
}

type errText string

func (e errText) Error() string { return string(e) }

func (s *Server) SendUserMessage(ctx context.Context, r *pb.SendUserMessageRequest) (*pb.SendUserMessageResponse, error) {
	var c llm.Content
	if err := json.Unmarshal(r.ContentJson, &c); err != nil {
		return nil, invalid(err)
	}
	return &pb.SendUserMessageResponse{}, failed(s.Host.SendUserMessage(ctx, c, r.DeliverAs))
}

func (s *Server) AppendEntry(ctx context.Context, r *pb.AppendEntryRequest) (*pb.AppendEntryResponse, error) {
	if r.CustomType == "" {
		return nil, invalid(errText("customType is required"))
	}
	if len(r.DataJson) > 0 && !json.Valid(r.DataJson) {
		return nil, invalid(errText("data is not valid JSON"))
	}
	id, err := s.Host.AppendEntry(ctx, r.CustomType, r.DataJson)
	if err != nil {
		return nil, failed(err)
	}
	return &pb.AppendEntryResponse{EntryId: id}, nil
}

func (s *Server) SetSessionName(ctx context.Context, r *pb.SetSessionNameRequest) (*pb.SetSessionNameResponse, error) {
	return &pb.SetSessionNameResponse{}, failed(s.Host.SetSessionName(ctx, r.Name))
}

func (s *Server) SetLabel(ctx context.Context, r *pb.SetLabelRequest) (*pb.SetLabelResponse, error) {
	if err := s.Host.SetLabel(ctx, r.EntryId, r.Label); err != nil {
		return nil, status.Error(codes.NotFound, err.Error())
	}
	return &pb.SetLabelResponse{}, nil
}

func (s *Server) GetSession(ctx context.Context, r *pb.GetSessionRequest) (*pb.GetSessionResponse, error) {
	v, err := s.Host.Session(ctx, sessionQuery(r))
	if err != nil {
		return nil, failed(err)
	}
	return &pb.GetSessionResponse{
		SessionId: v.SessionID, SessionFile: v.SessionFile, Name: v.Name, LeafId: v.LeafID, Cwd: v.Cwd,
		HeaderJson: v.Header, EntriesJson: v.Entries, BranchJson: v.Branch, TreeJson: v.Tree,
	}, nil
}

func (s *Server) GetContextUsage(ctx context.Context, _ *pb.GetContextUsageRequest) (*pb.GetContextUsageResponse, error) {
	return &pb.GetContextUsageResponse{UsageJson: s.Host.ContextUsage(ctx)}, nil
}

func (s *Server) GetTools(ctx context.Context, _ *pb.GetToolsRequest) (*pb.GetToolsResponse, error) {
	active, all := s.Host.Tools(ctx)
	b, err := json.Marshal(all)
	if err != nil {
		return nil, failed(err)
	}
	return &pb.GetToolsResponse{Active: active, AllJson: b}, nil
}

func (s *Server) SetActiveTools(ctx context.Context, r *pb.SetActiveToolsRequest) (*pb.SetActiveToolsResponse, error) {
	s.Host.SetActiveTools(ctx, r.Names)
	return &pb.SetActiveToolsResponse{}, nil
}

func (s *Server) GetModel(ctx context.Context, _ *pb.GetModelRequest) (*pb.GetModelResponse, error) {
	m, level := s.Host.Model(ctx)
	resp := &pb.GetModelResponse{ThinkingLevel: level}
	if m != nil {
		resp.ModelJson, _ = json.Marshal(m)
	}
	return resp, nil
}

func (s *Server) SetModel(ctx context.Context, r *pb.SetModelRequest) (*pb.SetModelResponse, error) {
	ok, err := s.Host.SetModel(ctx, r.Provider, r.ModelId)
	if err != nil {
		return nil, failed(err)
	}
	return &pb.SetModelResponse{Ok: ok}, nil
}

func (s *Server) SetThinkingLevel(ctx context.Context, r *pb.SetThinkingLevelRequest) (*pb.SetThinkingLevelResponse, error) {
	if !llm.IsThinkingLevel(r.Level) {
		return nil, invalid(errText("unknown thinking level " + r.Level))
	}
	return &pb.SetThinkingLevelResponse{Level: s.Host.SetThinkingLevel(ctx, r.Level)}, nil
}

func (s *Server) Abort(ctx context.Context, _ *pb.AbortRequest) (*pb.AbortResponse, error) {
	// Abort waits for the run to stop, and the run may be waiting for
	// this very plugin: do not block the plugin's call on it.
	go s.Host.Abort(context.WithoutCancel(ctx))
	return &pb.AbortResponse{}, nil
}

func (s *Server) UI(ctx context.Context, r *pb.UIRequest) (*pb.UIResponse, error) {
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
	a, err := s.Host.UI(ctx, r.Method, params)
	if err != nil {
		return nil, invalid(err)
	}
	return &pb.UIResponse{Cancelled: a.Cancelled, Value: a.Value, HasValue: a.HasValue, Confirmed: a.Confirmed}, nil
}

func (s *Server) Exec(ctx context.Context, r *pb.ExecRequest) (*pb.ExecResponse, error) {
	res, err := s.Host.Exec(ctx, r.Command, r.Args, r.Cwd, time.Duration(r.TimeoutMs)*time.Millisecond)
	if err != nil {
		return nil, failed(err)
	}
	return &pb.ExecResponse{Stdout: res.Stdout, Stderr: res.Stderr, Code: int32(res.Code), Killed: res.Killed}, nil
}

func (s *Server) GetCommands(ctx context.Context, _ *pb.GetCommandsRequest) (*pb.GetCommandsResponse, error) {
	return &pb.GetCommandsResponse{CommandsJson: s.Host.Commands(ctx)}, nil
}

func (s *Server) GetState(ctx context.Context, _ *pb.GetStateRequest) (*pb.GetStateResponse, error) {
	st := s.Host.State(ctx)
	return &pb.GetStateResponse{IsIdle: st.IsIdle, HasPendingMessages: st.HasPendingMessages, SystemPrompt: st.SystemPrompt, Context: HandlerContext(s.Host.HandlerContext(), "")}, nil
}

func (s *Server) RegisterMcpServer(_ context.Context, r *pb.RegisterMcpServerRequest) (*pb.RegisterMcpServerResponse, error) {
	reg, ok := s.Host.(extensions.MCPServerRegistrar)
	if !ok {
		return nil, status.Error(codes.Unimplemented, "this agent cannot add MCP servers for extensions")
	}
	if r.Name == "" {
		return nil, invalid(errText("name is required"))
	}
	if err := reg.RegisterMCPServer(s.Path, r.Name, json.RawMessage(r.ConfigJson)); err != nil {
		return nil, invalid(err)
	}
	return &pb.RegisterMcpServerResponse{}, nil
}

func (s *Server) mcpRegistry() (extensions.MCPServerRegistry, error) {
	if reg, ok := s.Host.(extensions.MCPServerRegistry); ok {
		return reg, nil
	}
	return nil, status.Error(codes.Unimplemented, "this agent has no MCP servers of extensions")
}

func (s *Server) UnregisterMcpServer(_ context.Context, r *pb.UnregisterMcpServerRequest) (*pb.UnregisterMcpServerResponse, error) {
	reg, err := s.mcpRegistry()
	if err != nil {
		return nil, err
	}
	reg.UnregisterMCPServer(s.Path, r.Name)
	return &pb.UnregisterMcpServerResponse{}, nil
}

func (s *Server) ListMcpServers(context.Context, *pb.ListMcpServersRequest) (*pb.ListMcpServersResponse, error) {
	reg, err := s.mcpRegistry()
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(reg.RegisteredMCPServers())
	if err != nil {
		return nil, failed(err)
	}
	return &pb.ListMcpServersResponse{ServersJson: b}, nil
}

func (s *Server) Compact(ctx context.Context, _ *pb.CompactRequest) (*pb.CompactResponse, error) {
	res, err := s.Host.Compact(ctx)
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

func (s *Server) sessionController() (extensions.SessionController, error) {
	sc, ok := s.Host.(extensions.SessionController)
	if !ok {
		return nil, status.Error(codes.Unimplemented, extensions.SessionControlUnavailable)
	}
	return sc, nil
}

// change runs one session change and describes its outcome.
func (s *Server) change(do func(extensions.SessionController) (extensions.SessionChange, error)) (bool, *pb.HandlerContext, error) {
	sc, err := s.sessionController()
	if err != nil {
		return false, nil, err
	}
	ch, err := do(sc)
	if err != nil {
		return false, nil, failed(err)
	}
	return ch.Cancelled, HandlerContext(ch.Context, ""), nil
}

func (s *Server) NewSession(ctx context.Context, r *pb.NewSessionRequest) (*pb.NewSessionResponse, error) {
	cancelled, hc, err := s.change(func(sc extensions.SessionController) (extensions.SessionChange, error) {
		return sc.NewSession(ctx, r.ParentSession)
	})
	return &pb.NewSessionResponse{Cancelled: cancelled, Context: hc}, err
}

func (s *Server) Fork(ctx context.Context, r *pb.ForkRequest) (*pb.ForkResponse, error) {
	cancelled, hc, err := s.change(func(sc extensions.SessionController) (extensions.SessionChange, error) {
		return sc.Fork(ctx, r.EntryId, r.Position)
	})
	return &pb.ForkResponse{Cancelled: cancelled, Context: hc}, err
}

func (s *Server) SwitchSession(ctx context.Context, r *pb.SwitchSessionRequest) (*pb.SwitchSessionResponse, error) {
	cancelled, hc, err := s.change(func(sc extensions.SessionController) (extensions.SessionChange, error) {
		return sc.SwitchSession(ctx, r.SessionPath)
	})
	return &pb.SwitchSessionResponse{Cancelled: cancelled, Context: hc}, err
}

func (s *Server) NavigateTree(ctx context.Context, r *pb.NavigateTreeRequest) (*pb.NavigateTreeResponse, error) {
	cancelled, hc, err := s.change(func(sc extensions.SessionController) (extensions.SessionChange, error) {
		return sc.NavigateTree(ctx, r.TargetId, extensions.NavigateOptions{Summarize: r.Summarize,
			CustomInstructions: r.CustomInstructions, ReplaceInstructions: r.ReplaceInstructions, Label: r.Label})
	})
	return &pb.NavigateTreeResponse{Cancelled: cancelled, Context: hc}, err
}

func (s *Server) Reload(ctx context.Context, _ *pb.ReloadRequest) (*pb.ReloadResponse, error) {
	sc, err := s.sessionController()
	if err != nil {
		return nil, err
	}
	return &pb.ReloadResponse{}, failed(sc.Reload(context.WithoutCancel(ctx)))
}

// UpdateRegistrations takes what the plugin registered after Describe; new
// tools are offered to the model from its next request.
func (s *Server) UpdateRegistrations(_ context.Context, r *pb.UpdateRegistrationsRequest) (*pb.UpdateRegistrationsResponse, error) {
	d := r.GetDescription()
	if d == nil {
		return nil, invalid(errText("description is required"))
	}
	if s.Registrations == nil {
		return nil, status.Error(codes.Unimplemented, "this host takes no registrations after loading")
	}
	if err := s.Registrations(d); err != nil {
		return nil, invalid(err)
	}
	if tr, ok := s.Host.(extensions.ToolRefresher); ok {
		tr.RefreshExtensionTools()
	}
	return &pb.UpdateRegistrationsResponse{}, nil
}

// RunBuiltinTool runs a built-in tool for pi's tool factories
// (tools.RunBuiltin, as the goja runtime does), streaming its partial
// results.
func (s *Server) RunBuiltinTool(r *pb.RunBuiltinToolRequest, stream pb.HostService_RunBuiltinToolServer) error {
	var args map[string]any
	if len(r.ArgumentsJson) > 0 {
		if err := json.Unmarshal(r.ArgumentsJson, &args); err != nil {
			return invalid(fmt.Errorf("arguments_json: %w", err))
		}
	}
	cwd := r.Cwd
	if cwd == "" {
		cwd = s.Host.HandlerContext().Cwd
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

// HandlerContext is a handler context as the protocol sends it.
func HandlerContext(hc extensions.HandlerContext, callID string) *pb.HandlerContext {
	out := &pb.HandlerContext{
		Cwd: hc.Cwd, Mode: hc.Mode, HasUi: hc.HasUI, SessionId: hc.SessionID, SessionFile: hc.SessionFile,
		ThinkingLevel: hc.ThinkingLevel, IsIdle: hc.IsIdle, CallId: callID, ProjectTrusted: hc.ProjectTrusted,
	}
	if hc.Model != nil {
		out.ModelJson, _ = json.Marshal(hc.Model)
	}
	return out
}

// Shutdown asks the host to end when it can (extensions.ShutdownRequester);
// other hosts ignore it.
func (s *Server) Shutdown(_ context.Context, _ *pb.ShutdownRequest) (*pb.ShutdownResponse, error) {
	if sr, ok := s.Host.(extensions.ShutdownRequester); ok {
		go sr.RequestShutdown()
	}
	return &pb.ShutdownResponse{}, nil
}

// idlePoll is how often WaitForIdle looks at the session.
const idlePoll = 25 * time.Millisecond

// WaitForIdle answers once the host is idle, or fails when ctx ends.
func (s *Server) WaitForIdle(ctx context.Context, _ *pb.WaitForIdleRequest) (*pb.WaitForIdleResponse, error) {
	t := time.NewTicker(idlePoll)
	defer t.Stop()
	for !s.Host.State(ctx).IsIdle {
		select {
		case <-ctx.Done():
			return nil, status.FromContextError(ctx.Err()).Err()
		case <-t.C:
		}
	}
	return &pb.WaitForIdleResponse{}, nil
}

// modelHost is the host's ModelHost, or an Unimplemented error.
// CallTool runs a tool for the tool the call is made from.
func (s *Server) CallTool(ctx context.Context, r *pb.CallToolRequest) (*pb.CallToolResponse, error) {
	tc, ok := s.Host.(extensions.ToolCaller)
	if !ok {
		return nil, status.Error(codes.Unimplemented, "this host runs no tools for extensions")
	}
	var args map[string]any
	if len(r.ArgumentsJson) > 0 {
		if err := json.Unmarshal(r.ArgumentsJson, &args); err != nil {
			return nil, invalid(fmt.Errorf("arguments_json: %w", err))
		}
	}
	// The tool call's context carries the calling tool (and ends with it).
	cc := s.callCtx(ctx)
	if cc == nil {
		cc = ctx
	}
	out := tc.CallTool(cc, r.Name, args)
	b, err := json.Marshal(out.Result)
	if err != nil {
		return nil, failed(err)
	}
	ms := int64(-1)
	if out.DurationMs != nil {
		ms = *out.DurationMs
	}
	return &pb.CallToolResponse{ResultJson: b, IsError: out.IsError, ToolCallId: out.ID, DurationMs: ms}, nil
}

// GetSystemPromptOptions answers with the system prompt's inputs.
func (s *Server) GetSystemPromptOptions(context.Context, *pb.GetSystemPromptOptionsRequest) (*pb.GetSystemPromptOptionsResponse, error) {
	sh, ok := s.Host.(extensions.SystemPromptHost)
	if !ok {
		return nil, status.Error(codes.Unimplemented, "the agent does not share its system prompt options")
	}
	return &pb.GetSystemPromptOptionsResponse{OptionsJson: sh.SystemPromptOptions()}, nil
}

// GetSettings answers with the host's effective settings.
func (s *Server) GetSettings(context.Context, *pb.GetSettingsRequest) (*pb.GetSettingsResponse, error) {
	sh, ok := s.Host.(extensions.SettingsHost)
	if !ok {
		return nil, status.Error(codes.Unimplemented, "this host has no settings for extensions")
	}
	return &pb.GetSettingsResponse{SettingsJson: sh.Settings()}, nil
}

func (s *Server) modelHost() (extensions.ModelHost, error) {
	if mh, ok := s.Host.(extensions.ModelHost); ok {
		return mh, nil
	}
	return nil, status.Error(codes.Unimplemented, "this host has no models for extensions")
}

func (s *Server) ListModels(ctx context.Context, _ *pb.ListModelsRequest) (*pb.ListModelsResponse, error) {
	mh, err := s.modelHost()
	if err != nil {
		return nil, err
	}
	all, avail := mh.Models(ctx)
	if all == nil {
		all = []llm.Model{}
	}
	if avail == nil {
		avail = []llm.Model{}
	}
	resp := &pb.ListModelsResponse{}
	resp.AllJson, _ = json.Marshal(all)
	resp.AvailableJson, _ = json.Marshal(avail)
	type scopedModel struct {
		Model         llm.Model `json:"model"`
		ThinkingLevel string    `json:"thinkingLevel,omitempty"`
	}
	scoped := []scopedModel{}
	if sh, ok := s.Host.(extensions.ScopedModelHost); ok {
		for _, m := range sh.ScopedModels() {
			scoped = append(scoped, scopedModel{m.Model, m.ThinkingLevel})
		}
	}
	resp.ScopedJson, _ = json.Marshal(scoped)
	return resp, nil
}

func (s *Server) GetModelAuth(ctx context.Context, r *pb.GetModelAuthRequest) (*pb.GetModelAuthResponse, error) {
	mh, err := s.modelHost()
	if err != nil {
		return nil, err
	}
	a := mh.ModelAuth(ctx, r.Provider, r.ModelId)
	resp := &pb.GetModelAuthResponse{Ok: a.OK, ApiKey: a.APIKey, BaseUrl: a.BaseURL, Error: a.Error}
	if a.Headers != nil {
		resp.HeadersJson, _ = json.Marshal(a.Headers)
	}
	return resp, nil
}

// modelContext is pi's Context of a model request.
type modelContext struct {
	SystemPrompt string         `json:"systemPrompt"`
	Messages     []llm.Message  `json:"messages"`
	Tools        []llm.ToolSpec `json:"tools"`
}

// modelOptions are the stream options of pi that atomic applies.
type modelOptions struct {
	MaxTokens int    `json:"maxTokens"`
	Reasoning string `json:"reasoning"`
}

func (s *Server) CompleteModel(ctx context.Context, r *pb.CompleteModelRequest) (*pb.CompleteModelResponse, error) {
	mh, err := s.modelHost()
	if err != nil {
		return nil, err
	}
	var mc modelContext
	if len(r.ContextJson) > 0 {
		if err := json.Unmarshal(r.ContextJson, &mc); err != nil {
			return nil, invalid(fmt.Errorf("context: %w", err))
		}
	}
	var opts modelOptions
	if len(r.OptionsJson) > 0 {
		if err := json.Unmarshal(r.OptionsJson, &opts); err != nil {
			return nil, invalid(fmt.Errorf("options: %w", err))
		}
	}
	if opts.Reasoning != "" && !llm.IsThinkingLevel(opts.Reasoning) {
		return nil, invalid(errText("unknown thinking level " + opts.Reasoning))
	}
	msg := mh.CompleteModel(ctx, r.Provider, r.ModelId, extensions.ModelCall{
		SystemPrompt: mc.SystemPrompt, Messages: mc.Messages, Tools: mc.Tools,
		MaxTokens: opts.MaxTokens, Reasoning: opts.Reasoning,
	})
	b, err := json.Marshal(msg)
	if err != nil {
		return nil, failed(err)
	}
	return &pb.CompleteModelResponse{MessageJson: b}, nil
}
