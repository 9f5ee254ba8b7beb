package rpc

import (
	"context"
)

// Slash commands and resources: get_commands, get_command_completions,
// reload, get_resource_diagnostics.

func handleGetCommands(_ context.Context, s *Server, _ *Request) (any, error) {
	return map[string]any{"commands": s.b.commands.StartedCommands()}, nil
}

func handleGetCommandCompletions(ctx context.Context, s *Server, req *Request) (any, error) {
	var c struct {
		CommandName    *string `json:"commandName"`
		ArgumentPrefix string  `json:"argumentPrefix"`
	}
	if err := req.Decode(&c); err != nil {
		return nil, err
	}
	if c.CommandName == nil {
		return nil, MissingField("commandName")
	}
	list := s.b.commands.CommandCompletions(ctx, *c.CommandName, c.ArgumentPrefix)
	if list == nil {
		return map[string]any{"completions": nil}, nil
	}
	return map[string]any{"completions": list}, nil
}

func handleReload(ctx context.Context, s *Server, _ *Request) (any, error) {
	return nil, s.b.commands.Reload(ctx)
}

func handleGetResourceDiagnostics(_ context.Context, s *Server, _ *Request) (any, error) {
	return map[string]any{"diagnostics": s.b.commands.ResourceDiagnostics()}, nil
}
