package rpc

import (
	"context"
)

func init() {
	Register("get_state", Quick, handleGetState)
	Register("get_messages", Ordinary, handleGetMessages)
	Register("get_last_assistant_text", Ordinary, handleLastAssistantText)
	Register("set_auto_compaction", Ordinary, handleSetAutoCompaction)
	Register("set_auto_retry", Ordinary, handleSetAutoRetry)
}

func handleGetState(_ context.Context, s *Server, _ *Request) (any, error) {
	return s.rt.State(), nil
}

func handleGetMessages(_ context.Context, s *Server, _ *Request) (any, error) {
	msgs := s.rt.Messages()
	if msgs == nil {
		return map[string]any{"messages": []any{}}, nil
	}
	return map[string]any{"messages": msgs}, nil
}

func handleLastAssistantText(_ context.Context, s *Server, _ *Request) (any, error) {
	text, ok := s.rt.LastAssistantText()
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
	s.rt.SetAutoCompaction(on)
	return nil, nil
}

func handleSetAutoRetry(_ context.Context, s *Server, req *Request) (any, error) {
	on, err := decodeEnabled(req)
	if err != nil {
		return nil, err
	}
	s.rt.SetAutoRetry(on)
	return nil, nil
}
