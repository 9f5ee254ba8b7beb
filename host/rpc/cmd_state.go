package rpc

import (
	"context"
)

func handleGetState(_ context.Context, s *Server, _ *Request) (any, error) {
	return s.b.state.State(), nil
}

func handleGetMessages(_ context.Context, s *Server, _ *Request) (any, error) {
	msgs := s.b.state.Messages()
	if msgs == nil {
		return map[string]any{"messages": []any{}}, nil
	}
	return map[string]any{"messages": msgs}, nil
}

func handleLastAssistantText(_ context.Context, s *Server, _ *Request) (any, error) {
	text, ok := s.b.state.LastAssistantText()
	if !ok {
		return map[string]any{"text": nil}, nil
	}
	return map[string]any{"text": text}, nil
}

type enabledCommand struct {
	Enabled *bool `json:"enabled"`
}

func decodeEnabled(req *Request) (bool, error) {
	var c enabledCommand
	if err := req.Decode(&c); err != nil {
		return false, err
	}
	if c.Enabled == nil {
		return false, MissingField("enabled")
	}
	return *c.Enabled, nil
}

func handleSetAutoCompaction(_ context.Context, s *Server, req *Request) (any, error) {
	on, err := decodeEnabled(req)
	if err != nil {
		return nil, err
	}
	s.b.state.SetAutoCompaction(on)
	return nil, nil
}

func handleSetAutoRetry(_ context.Context, s *Server, req *Request) (any, error) {
	on, err := decodeEnabled(req)
	if err != nil {
		return nil, err
	}
	s.b.state.SetAutoRetry(on)
	return nil, nil
}
