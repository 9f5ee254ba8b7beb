package rpc

import (
	"context"
)

func init() {
	Register("compact", Ordinary, handleCompact)
	Register("abort_compaction", Concurrent, handleAbortCompaction)
}

// handleCompact runs a manual compaction and answers with its result.
// Extra fields (pi's customInstructions) are ignored.
func handleCompact(ctx context.Context, s *Server, _ *Request) (any, error) {
	res, err := s.rt.Compact(ctx)
	if err != nil {
		return nil, err
	}
	return res, nil
}

func handleAbortCompaction(_ context.Context, s *Server, _ *Request) (any, error) {
	s.rt.AbortCompaction()
	return nil, nil
}
