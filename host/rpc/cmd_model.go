package rpc

import (
	"context"

	"github.com/atomic-go/atomic/host/app"
	"github.com/atomic-go/atomic/sdk/rpcwire"
)

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
	m, err := s.b.model.SetModel(*c.Provider, *c.ModelID, c.Persist)
	if err != nil {
		return nil, err
	}
	return app.WireModel(m), nil
}

func handleCycleModel(_ context.Context, s *Server, req *Request) (any, error) {
	var c struct {
		Direction string `json:"direction"`
		Persist   bool   `json:"persist"`
	}
	if err := req.Decode(&c); err != nil {
		return nil, err
	}
	res, err := s.b.model.CycleModel(c.Direction, c.Persist)
	if err != nil {
		return nil, err
	}
	if res == nil {
		return Null, nil
	}
	return res, nil
}

func handleGetAvailableModels(_ context.Context, s *Server, _ *Request) (any, error) {
	out := rpcwire.ModelCatalog{Models: app.WireModels(s.b.model.AvailableModels()), ScopedModels: app.WireScoped(s.b.model.ScopedModels())}
	if out.ScopedModels == nil {
		out.ScopedModels = []rpcwire.ScopedModel{}
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
	return s.b.model.LogoutProvider(*c.Provider)
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
	return s.b.model.SetThinkingLevel(*c.Level, c.Persist)
}

func handleCycleThinkingLevel(_ context.Context, s *Server, _ *Request) (any, error) {
	level, ok := s.b.model.CycleThinkingLevel()
	if !ok {
		return Null, nil
	}
	return map[string]any{"level": level}, nil
}

func handleGetThinkingLevels(_ context.Context, s *Server, _ *Request) (any, error) {
	return map[string]any{"levels": s.b.model.AvailableThinkingLevels()}, nil
}

func handleAbortRetry(_ context.Context, s *Server, _ *Request) (any, error) {
	s.b.model.AbortRetry()
	return nil, nil
}
