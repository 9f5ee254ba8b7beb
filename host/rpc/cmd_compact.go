package rpc

import (
	"context"
)

type compactCommand struct {
	CustomInstructions string `json:"customInstructions"`
}

// handleCompact runs a manual compaction and answers with its result.
// customInstructions (pi) become the planner's relevance query.
func handleCompact(ctx context.Context, s *Server, req *Request) (any, error) {
	var c compactCommand
	if err := req.Decode(&c); err != nil {
		return nil, err
	}
	res, err := s.b.compact.CompactWith(ctx, c.CustomInstructions)
	if err != nil {
		return nil, err
	}
	return res, nil
}

func handleAbortCompaction(_ context.Context, s *Server, _ *Request) (any, error) {
	s.b.compact.AbortCompaction()
	return nil, nil
}
