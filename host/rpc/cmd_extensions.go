package rpc

import (
	"context"
)

func init() {
	Register("get_commands", Ordinary, handleGetCommands)
	Register("get_command_completions", Ordinary, handleGetCommandCompletions)
	Register("get_extensions", Ordinary, handleGetExtensions)
	Register("trust_project", Ordinary, handleTrustProject)
}

func handleGetCommands(_ context.Context, s *Server, _ *Request) (any, error) {
	cmds := s.rt.Commands()
	if cmds == nil {
		return map[string]any{"commands": []any{}}, nil
	}
	return map[string]any{"commands": cmds}, nil
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
	items := s.rt.CommandCompletions(ctx, *c.CommandName, c.ArgumentPrefix)
	if items == nil {
		return map[string]any{"completions": nil}, nil
	}
	return map[string]any{"completions": items}, nil
}

// get_extensions lists every extension found and what became of it
// (loaded, skipped, failed, disabled), so that clients can show why an
// extension does not run.
func handleGetExtensions(_ context.Context, s *Server, _ *Request) (any, error) {
	st := s.rt.ExtensionStatuses()
	if st == nil {
		return map[string]any{"extensions": []any{}, "projectTrusted": s.rt.Extensions().Trusted()}, nil
	}
	return map[string]any{"extensions": st, "projectTrusted": s.rt.Extensions().Trusted()}, nil
}

// trust_project records the project as trusted and loads its extensions.
func handleTrustProject(ctx context.Context, s *Server, _ *Request) (any, error) {
	n, err := s.rt.TrustProject(ctx)
	if err != nil {
		return nil, err
	}
	return map[string]any{"loaded": n}, nil
}
