package sdk

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	plugin "github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"

	pb "github.com/atomic-go/atomic/proto/atomic/plugin/v1"
)

// Serve runs the extension as a plugin of the agent until the agent stops
// it. It does not return. Run directly (not by the agent) it prints a
// short explanation and exits with status 1.
func Serve(ext *Extension) {
	if os.Getenv(MagicCookieKey) != MagicCookieValue {
		fmt.Fprintf(os.Stderr, "%s is an atomic extension; load it with: atomic -e %s\n", ext.Name, os.Args[0])
		os.Exit(1)
	}
	go exitWithParent()
	plugin.Serve(&plugin.ServeConfig{
		HandshakeConfig: handshake(),
		Plugins:         plugin.PluginSet{PluginName: &grpcPlugin{ext: ext}},
		GRPCServer:      newGRPCServer,
	})
}

// newGRPCServer is the gRPC server plugins are served with: fixed
// flow-control windows turn off gRPC's bandwidth probing, which would cost
// a ping round per small call.
func newGRPCServer(opts []grpc.ServerOption) *grpc.Server {
	opts = append(opts, grpc.InitialWindowSize(1<<20), grpc.InitialConnWindowSize(1<<20))
	return grpc.NewServer(opts...)
}

// exitWithParent ends the plugin when the agent that started it is gone
// (killed without a chance to stop its plugins), so that no orphan keeps
// running.
func exitWithParent() {
	parent := os.Getppid()
	for range time.Tick(500 * time.Millisecond) {
		if os.Getppid() != parent {
			os.Exit(0)
		}
	}
}

// grpcPlugin is the go-plugin plugin that serves an Extension (plugin
// side only).
type grpcPlugin struct {
	plugin.NetRPCUnsupportedPlugin
	ext *Extension
}

// GRPCServer registers the PluginService.
func (p *grpcPlugin) GRPCServer(broker *plugin.GRPCBroker, s *grpc.Server) error {
	srv := &server{ext: p.ext, broker: broker}
	p.ext.served.Store(srv)
	pb.RegisterPluginServiceServer(s, srv)
	return nil
}

// GRPCClient is not used on the plugin side.
func (p *grpcPlugin) GRPCClient(context.Context, *plugin.GRPCBroker, *grpc.ClientConn) (any, error) {
	return nil, fmt.Errorf("the plugin side has no client")
}

type server struct {
	pb.UnimplementedPluginServiceServer
	ext    *Extension
	broker *plugin.GRPCBroker

	mu    sync.Mutex
	host  Host
	flags map[string]string
}

func (s *server) Describe(ctx context.Context, req *pb.DescribeRequest) (*pb.DescribeResponse, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.host == nil && req.HostBrokerId != 0 {
		conn, err := s.broker.Dial(req.HostBrokerId)
		if err != nil {
			return nil, fmt.Errorf("connect to the host service: %w", err)
		}
		s.host = &grpcHost{c: pb.NewHostServiceClient(conn), cc: conn}
	}
	s.flags = map[string]string{}
	for _, f := range s.ext.flags {
		s.flags[f.Name] = f.Default
	}
	for k, v := range req.FlagValues {
		s.flags[k] = v
	}
	if s.host != nil {
		info := contextInfo(req.Context, s.flags)
		for _, fn := range s.ext.connect {
			fn(s.host, info)
		}
	}
	return describeProto(s.ext), nil
}

func contextInfo(hc *pb.HandlerContext, flags map[string]string) ContextInfo {
	info := ContextInfo{Flags: flags}
	if hc == nil {
		return info
	}
	info = ContextInfo{
		Cwd: hc.Cwd, Mode: hc.Mode, HasUI: hc.HasUi, SessionID: hc.SessionId, SessionFile: hc.SessionFile,
		ThinkingLevel: hc.ThinkingLevel, IsIdle: hc.IsIdle, ProjectTrusted: hc.ProjectTrusted, Flags: flags,
	}
	if len(hc.ModelJson) > 0 {
		var m Model
		if json.Unmarshal(hc.ModelJson, &m) == nil {
			info.Model = &m
		}
	}
	return info
}

// describeProto is the Describe answer for an extension.
func describeProto(ext *Extension) *pb.DescribeResponse {
	resp := &pb.DescribeResponse{
		Name: ext.Name, Version: ext.Version, ProtocolVersion: ProtocolVersion,
		Capabilities: Capabilities(), Events: ext.Events(), TimeoutsMs: map[string]uint32{},
	}
	for _, c := range ext.commands {
		resp.Commands = append(resp.Commands, &pb.CommandSpec{Name: c.Name, Description: c.Description, HasArgumentCompletions: c.Complete != nil})
	}
	for _, t := range ext.tools {
		params := t.Parameters
		if len(params) == 0 {
			params = json.RawMessage(`{"type":"object","properties":{}}`)
		}
		resp.Tools = append(resp.Tools, &pb.ToolSpec{
			Name: t.Name, Label: t.Label, Description: t.Description, ParametersJson: params,
			PromptSnippet: t.PromptSnippet, PromptGuidelines: t.PromptGuidelines,
			Exposure: t.Exposure, Inactive: t.Inactive, ExecutionMode: t.ExecutionMode,
			NamespaceJson: t.Namespace, AnnotationsJson: t.Annotations,
		})
	}
	for _, f := range ext.flags {
		resp.Flags = append(resp.Flags, &pb.FlagSpec{Name: f.Name, Description: f.Description, Type: f.Type, DefaultValue: f.Default})
	}
	for _, p := range ext.provs {
		resp.Providers = append(resp.Providers, &pb.ProviderSpec{Name: p.Name, ConfigJson: p.Config, VirtualModelsJson: p.VirtualModels, Streams: p.Stream != nil})
	}
	for _, k := range ext.keys {
		resp.Shortcuts = append(resp.Shortcuts, &pb.ShortcutSpec{Key: k.Key, Description: k.Description})
	}
	resp.HandlerCounts = map[string]uint32{}
	for ev, hs := range ext.handlers {
		resp.HandlerCounts[ev] = uint32(len(hs))
	}
	for ev, d := range ext.timeouts {
		resp.TimeoutsMs[ev] = uint32(d.Milliseconds())
	}
	return resp
}

// current is the extension served now (Extension.Update replaces it).
func (s *server) current() *Extension {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ext
}

// Update makes next's registrations (handlers, commands, tools, providers)
// the extension's, once it is served: the agent is told at once
// (HostService.UpdateRegistrations) and later calls reach next's. For an
// extension whose registrations change while it runs (atomic's isolated
// scripts: pi.registerTool from a handler); its flags and OnConnect
// functions stay the first extension's.
func (e *Extension) Update(ctx context.Context, next *Extension) error {
	s := e.served.Load()
	if s == nil {
		return errors.New("the extension is not served yet")
	}
	s.mu.Lock()
	first := s.ext
	next.flags, next.connect = first.flags, first.connect
	s.ext = next
	host := s.host
	s.mu.Unlock()
	gh, ok := host.(*grpcHost)
	if !ok {
		return errors.New("the extension has no connection to the agent yet")
	}
	_, err := gh.c.UpdateRegistrations(ctx, &pb.UpdateRegistrationsRequest{Description: describeProto(next)})
	return err
}

func (s *server) context(ctx context.Context, hc *pb.HandlerContext) *Context {
	s.mu.Lock()
	host, flags := s.host, s.flags
	s.mu.Unlock()
	if host == nil {
		host = NoHost{}
	}
	info := contextInfo(hc, flags)
	if hc != nil && hc.CallId != "" {
		ctx = metadata.AppendToOutgoingContext(ctx, CallIDMetadata, hc.CallId)
	}
	return NewContext(ctx, host, info)
}

func (s *server) HandleEvent(ctx context.Context, req *pb.HandleEventRequest) (*pb.HandleEventResponse, error) {
	var res json.RawMessage
	var err error
	if req.HandlerIndex != nil {
		res, err = s.current().HandleEventAt(s.context(ctx, req.Context), req.Event, int(*req.HandlerIndex), req.PayloadJson)
	} else {
		res, err = s.current().HandleEvent(s.context(ctx, req.Context), req.Event, req.PayloadJson)
	}
	if err != nil {
		return &pb.HandleEventResponse{Error: err.Error(), HandlerErrors: handlerErrors(err)}, nil
	}
	return &pb.HandleEventResponse{ResultJson: res}, nil
}

// handlerErrors lists the errors of an error that wraps several
// (errors.Join): several handlers run by one call failed, and the agent
// reports each as an extension_error of its own.
func handlerErrors(err error) []string {
	several, ok := err.(interface{ Unwrap() []error })
	if !ok || len(several.Unwrap()) < 2 {
		return nil
	}
	var out []string
	for _, e := range several.Unwrap() {
		out = append(out, e.Error())
	}
	return out
}

func (s *server) HandleEvents(ctx context.Context, req *pb.HandleEventsRequest) (*pb.HandleEventsResponse, error) {
	resp := &pb.HandleEventsResponse{Errors: make([]string, len(req.Events))}
	for i, ev := range req.Events {
		if ctx.Err() != nil {
			resp.Errors[i] = ctx.Err().Error()
			continue
		}
		if _, err := s.current().HandleEvent(s.context(ctx, ev.Context), ev.Event, ev.PayloadJson); err != nil {
			resp.Errors[i] = err.Error()
		}
	}
	return resp, nil
}

func (s *server) RunCommand(ctx context.Context, req *pb.RunCommandRequest) (*pb.RunCommandResponse, error) {
	run := s.current().RunCommand
	if req.Shortcut {
		run = func(c *Context, key, _ string) error { return s.current().RunShortcut(c, key) }
	}
	if err := run(s.context(ctx, req.Context), req.Name, req.Args); err != nil {
		return &pb.RunCommandResponse{Error: err.Error()}, nil
	}
	return &pb.RunCommandResponse{}, nil
}

func (s *server) GetCommandCompletions(ctx context.Context, req *pb.GetCommandCompletionsRequest) (*pb.GetCommandCompletionsResponse, error) {
	items, none, err := s.current().Complete(s.context(ctx, req.Context), req.Name, req.ArgumentPrefix)
	if err != nil {
		return &pb.GetCommandCompletionsResponse{Error: err.Error()}, nil
	}
	resp := &pb.GetCommandCompletionsResponse{None: none}
	for _, it := range items {
		resp.Completions = append(resp.Completions, &pb.Completion{Value: it.Value, Label: it.Label, Description: it.Description})
	}
	return resp, nil
}

func (s *server) ExecuteTool(req *pb.ExecuteToolRequest, stream pb.PluginService_ExecuteToolServer) error {
	var args map[string]any
	if len(req.ArgumentsJson) > 0 {
		if err := json.Unmarshal(req.ArgumentsJson, &args); err != nil {
			return stream.Send(&pb.ExecuteToolResponse{Final: true, IsError: true, Error: "arguments are not a JSON object: " + err.Error()})
		}
	}
	ctx := s.context(stream.Context(), req.Context)
	var sendMu sync.Mutex
	update := func(o ToolOutput) {
		msg, err := outputProto(o)
		if err != nil {
			return
		}
		sendMu.Lock()
		defer sendMu.Unlock()
		_ = stream.Send(msg)
	}
	var out ToolOutput
	var err error
	if req.Provider != "" {
		out, err = s.current().StreamProvider(ctx, req.Provider, args, update)
	} else {
		out, err = s.current().ExecuteTool(ctx, req.Name, ToolInvocation{ToolCallID: req.ToolCallId, Args: args}, update)
	}
	sendMu.Lock()
	defer sendMu.Unlock()
	if err != nil {
		msg, _ := outputProto(out)
		if msg == nil {
			msg = &pb.ExecuteToolResponse{}
		}
		msg.Final, msg.IsError, msg.Error = true, true, err.Error()
		return stream.Send(msg)
	}
	msg, merr := outputProto(out)
	if merr != nil {
		return stream.Send(&pb.ExecuteToolResponse{Final: true, IsError: true, Error: merr.Error()})
	}
	msg.Final, msg.Terminate = true, out.Terminate
	return stream.Send(msg)
}

func outputProto(o ToolOutput) (*pb.ExecuteToolResponse, error) {
	content := o.Content
	if content == nil {
		content = []Block{}
	}
	cj, err := json.Marshal(content)
	if err != nil {
		return nil, err
	}
	msg := &pb.ExecuteToolResponse{ContentJson: cj}
	if o.Details != nil {
		if msg.DetailsJson, err = json.Marshal(o.Details); err != nil {
			return nil, err
		}
	}
	return msg, nil
}
