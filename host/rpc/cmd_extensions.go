package rpc

import (
	"context"

	"github.com/atomic-go/atomic/sdk/rpcwire"
)

// get_extensions lists every extension found and what became of it
// (loaded, skipped, failed, disabled), so that clients can show why an
// extension does not run.
func handleGetExtensions(_ context.Context, s *Server, _ *Request) (any, error) {
	st := s.b.extensions.ExtensionStatuses()
	if st == nil {
		st = []rpcwire.ExtensionStatus{}
	}
	return rpcwire.Extensions{Extensions: st, ProjectTrusted: s.b.extensions.ProjectTrusted()}, nil
}

// trust_project records the project as trusted and loads its extensions.
func handleTrustProject(ctx context.Context, s *Server, _ *Request) (any, error) {
	n, err := s.b.extensions.TrustProject(ctx)
	if err != nil {
		return nil, err
	}
	return map[string]any{"loaded": n}, nil
}
