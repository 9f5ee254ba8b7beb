package grpcext

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/atomic-go/atomic/host/extensions"
	"github.com/atomic-go/atomic/host/extensions/hostsvc"
	"github.com/atomic-go/atomic/host/hooks"
	"github.com/atomic-go/atomic/host/llm"
	pb "github.com/atomic-go/atomic/proto/atomic/plugin/v1"
)

// The extensions.Extension side of a plugin: what it registered, and the
// calls into it.

// Path implements hooks.Subscriber.
func (p *Plugin) Path() string { return p.spec.Path }

func (p *Plugin) description() *pb.DescribeResponse {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.desc == nil {
		return &pb.DescribeResponse{}
	}
	return p.desc
}

// Name implements extensions.Extension.
func (p *Plugin) Name() string {
	if n := p.description().Name; n != "" {
		return n
	}
	return filepath.Base(p.spec.Path)
}

// Events implements hooks.Subscriber.
func (p *Plugin) Events() []string { return p.description().Events }

// Timeout implements hooks.TimeoutProvider with the plugin's requests.
func (p *Plugin) Timeout(event string) time.Duration {
	d := p.description()
	if ms, ok := d.TimeoutsMs[event]; ok && ms > 0 {
		return time.Duration(ms) * time.Millisecond
	}
	return 0
}

// Commands implements extensions.Extension.
func (p *Plugin) Commands() []extensions.CommandSpec {
	var out []extensions.CommandSpec
	for _, c := range p.description().Commands {
		out = append(out, extensions.CommandSpec{Name: c.Name, Description: c.Description, HasCompletions: c.HasArgumentCompletions})
	}
	return out
}

// Tools implements extensions.Extension.
func (p *Plugin) Tools() []extensions.ToolSpec {
	return hostsvc.ToolSpecs(p.description())
}

// Flags implements extensions.Extension.
func (p *Plugin) Flags() []extensions.FlagSpec {
	var out []extensions.FlagSpec
	for _, f := range p.description().Flags {
		out = append(out, extensions.FlagSpec{Name: f.Name, Description: f.Description, Type: f.Type, Default: f.DefaultValue})
	}
	return out
}

// Providers implements extensions.ProviderRegistrar.
func (p *Plugin) Providers() []extensions.ProviderSpec {
	return hostsvc.ProviderSpecs(p.description())
}

// Handle implements hooks.Subscriber.
func (p *Plugin) Handle(ctx context.Context, ev *hooks.Event) (json.RawMessage, error) {
	return p.handle(ctx, ev, nil)
}

// Handlers implements hooks.HandlerSet: a plugin with the capability
// "events.per_handler" has each of its handlers called on its own (the
// bus composes their results); others (-1) compose their own.
func (p *Plugin) Handlers(event string) int {
	d := p.description()
	if !hasCapability(d, "events.per_handler") {
		return -1
	}
	n, ok := d.HandlerCounts[event]
	if !ok {
		return -1
	}
	return int(n)
}

// HandleOne implements hooks.HandlerSet.
func (p *Plugin) HandleOne(ctx context.Context, ev *hooks.Event, i int) (json.RawMessage, error) {
	idx := uint32(i)
	return p.handle(ctx, ev, &idx)
}

func (p *Plugin) handle(ctx context.Context, ev *hooks.Event, index *uint32) (json.RawMessage, error) {
	payload, err := ev.JSON()
	if err != nil {
		return nil, err
	}
	in, err := p.ensure(ctx)
	if err != nil {
		// A disabled plugin is reported once for notifications (they would
		// flood the client) and is left out of intercepting hooks: it was
		// reported disabled (extension_error, get_extensions) and must not
		// block every tool call until a restart.
		if p.disabled() != nil && (hooks.Kinds[ev.Name] != hooks.Notify || p.deadNoted.Swap(true)) {
			return nil, nil
		}
		return nil, err
	}
	id, done := p.newCall(ctx)
	defer done()
	cctx, cancel := callContext(ctx, in)
	defer cancel()
	req := &pb.HandleEventRequest{Event: ev.Name, PayloadJson: payload, Context: p.handlerContext(id), HandlerIndex: index}
	var resp *pb.HandleEventResponse
	if p.usesLane(in) {
		resp, err = in.lane.call(cctx, req)
	} else {
		resp, err = in.pc.HandleEvent(cctx, req)
	}
	if err != nil {
		return nil, p.callError(in, err)
	}
	if len(resp.HandlerErrors) > 1 {
		several := make(hooks.HandlerErrors, len(resp.HandlerErrors))
		for i, e := range resp.HandlerErrors {
			several[i] = errors.New(e)
		}
		return nil, several
	}
	if resp.Error != "" {
		return nil, errors.New(resp.Error)
	}
	return resp.ResultJson, nil
}

// HandleBatch implements hooks.BatchSubscriber: one HandleEvents call for
// plugins with the "events.batch" capability, one call per event otherwise.
func (p *Plugin) HandleBatch(ctx context.Context, evs []*hooks.Event) []error {
	errs := make([]error, len(evs))
	if !p.hasCapability("events.batch") {
		for i, ev := range evs {
			_, errs[i] = p.Handle(ctx, ev)
		}
		return errs
	}
	in, err := p.ensure(ctx)
	if err != nil {
		if p.disabled() != nil && p.deadNoted.Swap(true) {
			return errs
		}
		return []error{err}
	}
	req := &pb.HandleEventsRequest{Events: make([]*pb.HandleEventRequest, 0, len(evs))}
	hc := p.handlerContext("")
	for _, ev := range evs {
		payload, err := ev.JSON()
		if err != nil {
			return []error{err}
		}
		req.Events = append(req.Events, &pb.HandleEventRequest{Event: ev.Name, PayloadJson: payload, Context: hc})
	}
	cctx, cancel := callContext(ctx, in)
	defer cancel()
	resp, err := in.pc.HandleEvents(cctx, req)
	if err != nil {
		return []error{p.callError(in, err)}
	}
	for i, e := range resp.Errors {
		if e != "" && i < len(errs) {
			errs[i] = errors.New(e)
		}
	}
	return errs
}

// usesLane: HandleEvent calls to in take its event lane (it has one that
// is up, and the plugin reads it).
func (p *Plugin) usesLane(in *instance) bool {
	return in.lane.up() && p.hasCapability(LaneCapability)
}

// EventLane reports whether HandleEvent calls to the running process take
// its event lane now (for tests and diagnostics).
func (p *Plugin) EventLane() bool {
	p.proc.mu.Lock()
	in := p.proc.inst
	p.proc.mu.Unlock()
	return in != nil && in.alive.Err() == nil && p.usesLane(in)
}

func (p *Plugin) hasCapability(c string) bool { return hasCapability(p.description(), c) }

func hasCapability(d *pb.DescribeResponse, c string) bool {
	for _, x := range d.Capabilities {
		if x == c {
			return true
		}
	}
	return false
}

// RunCommand implements extensions.Extension.
func (p *Plugin) RunCommand(ctx context.Context, name, args string) error {
	return p.runCommand(ctx, &pb.RunCommandRequest{Name: name, Args: args})
}

// Shortcuts implements extensions.ShortcutRunner.
func (p *Plugin) Shortcuts() []extensions.ShortcutSpec {
	return hostsvc.ShortcutSpecs(p.description())
}

// RunShortcut implements extensions.ShortcutRunner: RunCommand with
// shortcut set.
func (p *Plugin) RunShortcut(ctx context.Context, key string) error {
	return p.runCommand(ctx, &pb.RunCommandRequest{Name: key, Shortcut: true})
}

func (p *Plugin) runCommand(ctx context.Context, req *pb.RunCommandRequest) error {
	in, err := p.ensure(ctx)
	if err != nil {
		return err
	}
	id, done := p.newCall(ctx)
	defer done()
	cctx, cancel := callContext(ctx, in)
	defer cancel()
	req.Context = p.handlerContext(id)
	resp, err := in.pc.RunCommand(cctx, req)
	if err != nil {
		return p.callError(in, err)
	}
	if resp.Error != "" {
		return errors.New(resp.Error)
	}
	return nil
}

// Complete implements extensions.Extension.
func (p *Plugin) Complete(ctx context.Context, name, prefix string) ([]extensions.Completion, bool, error) {
	in, err := p.ensure(ctx)
	if err != nil {
		return nil, true, err
	}
	cctx, cancel := callContext(ctx, in)
	defer cancel()
	resp, err := in.pc.GetCommandCompletions(cctx, &pb.GetCommandCompletionsRequest{Name: name, ArgumentPrefix: prefix, Context: p.handlerContext("")})
	if err != nil {
		return nil, true, p.callError(in, err)
	}
	if resp.Error != "" {
		return nil, true, errors.New(resp.Error)
	}
	if resp.None {
		return nil, true, nil
	}
	out := []extensions.Completion{}
	for _, c := range resp.Completions {
		out = append(out, extensions.Completion{Value: c.Value, Label: c.Label, Description: c.Description})
	}
	return out, false, nil
}

// ExecuteTool implements extensions.Extension.
func (p *Plugin) ExecuteTool(ctx context.Context, name, callID string, args map[string]any, update func(llm.ToolResult)) (llm.ToolResult, error) {
	return p.executeTool(ctx, &pb.ExecuteToolRequest{Name: name, ToolCallId: callID}, args, update)
}

// StreamProvider implements extensions.ProviderStreamer: the tool call's
// path with the provider named.
func (p *Plugin) StreamProvider(ctx context.Context, provider string, request map[string]any, update func(llm.ToolResult)) (llm.ToolResult, error) {
	return p.executeTool(ctx, &pb.ExecuteToolRequest{Provider: provider}, request, update)
}

func (p *Plugin) executeTool(ctx context.Context, req *pb.ExecuteToolRequest, args map[string]any, update func(llm.ToolResult)) (llm.ToolResult, error) {
	in, err := p.ensure(ctx)
	if err != nil {
		return llm.ToolResult{}, err
	}
	argJSON, err := json.Marshal(args)
	if err != nil {
		return llm.ToolResult{}, err
	}
	id, done := p.newCall(ctx)
	defer done()
	cctx, cancel := callContext(ctx, in)
	defer cancel()
	req.ArgumentsJson, req.Context = argJSON, p.handlerContext(id)
	stream, err := in.pc.ExecuteTool(cctx, req)
	if err != nil {
		return llm.ToolResult{}, p.callError(in, err)
	}
	for {
		msg, err := stream.Recv()
		if err != nil {
			return llm.ToolResult{}, p.callError(in, err)
		}
		res, derr := toolResult(msg)
		if derr != nil {
			return llm.ToolResult{}, fmt.Errorf("malformed tool result from the extension: %v", derr)
		}
		if !msg.Final {
			if update != nil {
				update(res)
			}
			continue
		}
		if msg.Error != "" {
			return llm.ToolResult{}, errors.New(msg.Error)
		}
		if msg.IsError {
			return llm.ToolResult{}, errors.New(res.ResultText())
		}
		res.Terminate = msg.Terminate
		return res, nil
	}
}

func toolResult(msg *pb.ExecuteToolResponse) (llm.ToolResult, error) {
	var res llm.ToolResult
	if len(msg.ContentJson) > 0 {
		var c llm.Content
		if err := json.Unmarshal(msg.ContentJson, &c); err != nil {
			return res, err
		}
		res.Content = c.Blocks
	}
	if len(msg.DetailsJson) > 0 {
		var d any
		if err := json.Unmarshal(msg.DetailsJson, &d); err != nil {
			return res, err
		}
		res.Details = d
	}
	return res, nil
}
