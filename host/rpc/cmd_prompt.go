package rpc

import (
	"context"
	"fmt"

	"github.com/atomic-go/atomic/host/app"
	"github.com/atomic-go/atomic/host/llm"
)

func init() {
	Register("prompt", Ordinary, handlePrompt)
	Register("steer", Ordinary, handleSteer)
	Register("follow_up", Ordinary, handleFollowUp)
	Register("abort", Concurrent, handleAbort)
	Register("clear_queue", Concurrent, handleClearQueue)
	Register("set_steering_mode", Ordinary, handleSetSteeringMode)
	Register("set_follow_up_mode", Ordinary, handleSetFollowUpMode)
}

// messageCommand is the shape of prompt, steer and follow_up.
type messageCommand struct {
	Message           *string     `json:"message"`
	Images            []imageJSON `json:"images"`
	StreamingBehavior string      `json:"streamingBehavior"`
}

type imageJSON struct {
	Type     string `json:"type"`
	Data     string `json:"data"`
	MimeType string `json:"mimeType"`
}

func (c *messageCommand) decode(req *Request) error {
	if err := req.Decode(c); err != nil {
		return err
	}
	if c.Message == nil {
		return MissingField("message")
	}
	for i, img := range c.Images {
		if img.Data == "" || img.MimeType == "" {
			return fmt.Errorf("Invalid command: images[%d] needs \"data\" (base64) and \"mimeType\"", i)
		}
	}
	return nil
}

func (c *messageCommand) images() []llm.ContentBlock {
	var out []llm.ContentBlock
	for _, img := range c.Images {
		out = append(out, llm.Image(img.Data, img.MimeType))
	}
	return out
}

func handlePrompt(_ context.Context, s *Server, req *Request) (any, error) {
	var c messageCommand
	if err := c.decode(req); err != nil {
		return nil, err
	}
	start, err := s.rt.Prompt(app.PromptInput{Text: *c.Message, Images: c.images(), StreamingBehavior: c.StreamingBehavior})
	if err != nil {
		return nil, err
	}
	if start != nil {
		req.After(start)
	}
	return nil, nil
}

func handleSteer(_ context.Context, s *Server, req *Request) (any, error) {
	var c messageCommand
	if err := c.decode(req); err != nil {
		return nil, err
	}
	return nil, s.rt.Steer(*c.Message, c.images())
}

func handleFollowUp(_ context.Context, s *Server, req *Request) (any, error) {
	var c messageCommand
	if err := c.decode(req); err != nil {
		return nil, err
	}
	return nil, s.rt.FollowUp(*c.Message, c.images())
}

func handleAbort(_ context.Context, s *Server, req *Request) (any, error) {
	s.rt.AbortCompaction()
	if s.rt.AbortRun() {
		// Messages still queued go on in a new run, after the response.
		req.After(s.rt.ContinueQueued)
	}
	return nil, nil
}

func handleClearQueue(_ context.Context, s *Server, _ *Request) (any, error) {
	steering, followUp := s.rt.ClearQueue()
	return map[string]any{"steering": steering, "followUp": followUp}, nil
}

type modeCommand struct {
	Mode *string `json:"mode"`
}

func decodeMode(req *Request) (string, error) {
	var c modeCommand
	if err := req.Decode(&c); err != nil {
		return "", err
	}
	if c.Mode == nil {
		return "", MissingField("mode")
	}
	return *c.Mode, nil
}

func handleSetSteeringMode(_ context.Context, s *Server, req *Request) (any, error) {
	mode, err := decodeMode(req)
	if err != nil {
		return nil, err
	}
	return nil, s.rt.SetSteeringMode(mode)
}

func handleSetFollowUpMode(_ context.Context, s *Server, req *Request) (any, error) {
	mode, err := decodeMode(req)
	if err != nil {
		return nil, err
	}
	return nil, s.rt.SetFollowUpMode(mode)
}
