package rpc

import (
	"context"

	"github.com/atomic-go/atomic/host/llm"
)

func init() {
	Register("set_model", Ordinary, handleSetModel)
	Register("cycle_model", Ordinary, handleCycleModel)
	Register("get_available_models", Ordinary, handleGetAvailableModels)
	Register("logout_provider", Ordinary, handleLogoutProvider)
	Register("set_thinking_level", Ordinary, handleSetThinkingLevel)
	Register("cycle_thinking_level", Ordinary, handleCycleThinkingLevel)
	Register("get_available_thinking_levels", Ordinary, handleGetThinkingLevels)
	Register("abort_retry", Concurrent, handleAbortRetry)
}

func handleSetModel(_ context.Context, s *Server, req *Request) (any, error) {
	var c struct {
		Provider *string `json:"provider"`
		ModelID  *string `json:"modelId"`
		Persist  bool    `json:"persist"`
	}
	if err := req.Decode(&c); err != nil {
		return nil, err
	}
	if c.Provider == nil {
		return nil, MissingField("provider")
	}
	if c.ModelID == nil {
		return nil, MissingField("modelId")
	}
	m, err := s.rt.SetModel(*c.Provider, *c.ModelID, c.Persist)
	if err != nil {
		return nil, err
	}
	return m, nil
}

func handleCycleModel(_ context.Context, s *Server, req *Request) (any, error) {
	var c struct {
		Direction string `json:"direction"`
		Persist   bool   `json:"persist"`
	}
	if err := req.Decode(&c); err != nil {
		return nil, err
	}
	res, err := s.rt.CycleModel(c.Direction, c.Persist)
	if err != nil {
		return nil, err
	}
	if res == nil {
		return Null, nil
	}
	return res, nil
}

func handleGetAvailableModels(_ context.Context, s *Server, _ *Request) (any, error) {
	models := s.rt.AvailableModels()
	if models == nil {
		models = []llm.Model{}
	}
	out := map[string]any{"models": models}
	if scoped := s.rt.ScopedModels(); scoped != nil {
		out["scopedModels"] = scoped
	} else {
		out["scopedModels"] = []any{}
	}
	return out, nil
}

func handleLogoutProvider(_ context.Context, s *Server, req *Request) (any, error) {
	var c struct {
		Provider *string `json:"provider"`
	}
	if err := req.Decode(&c); err != nil {
		return nil, err
	}
	if c.Provider == nil || *c.Provider == "" {
		return nil, MissingField("provider")
	}
	return s.rt.LogoutProvider(*c.Provider)
}

func handleSetThinkingLevel(_ context.Context, s *Server, req *Request) (any, error) {
	var c struct {
		Level   *string `json:"level"`
		Persist bool    `json:"persist"`
	}
	if err := req.Decode(&c); err != nil {
		return nil, err
	}
	if c.Level == nil {
		return nil, MissingField("level")
	}
	return s.rt.SetThinkingLevel(*c.Level, c.Persist)
}

func handleCycleThinkingLevel(_ context.Context, s *Server, _ *Request) (any, error) {
	level, ok := s.rt.CycleThinkingLevel()
	if !ok {
		return Null, nil
	}
	return map[string]any{"level": level}, nil
}

func handleGetThinkingLevels(_ context.Context, s *Server, _ *Request) (any, error) {
	return map[string]any{"levels": s.rt.AvailableThinkingLevels()}, nil
}

func handleAbortRetry(_ context.Context, s *Server, _ *Request) (any, error) {
	s.rt.AbortRetry()
	return nil, nil
}
