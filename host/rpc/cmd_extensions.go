package rpc

import (
	"context"
)

func init() {
	Register("get_extensions", Ordinary, handleGetExtensions)
	Register("trust_project", Ordinary, handleTrustProject)
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
