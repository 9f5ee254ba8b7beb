package rpc

import (
	"context"
	"fmt"

	"github.com/atomic-go/atomic/host/app"
	"github.com/atomic-go/atomic/host/llm"
	"github.com/atomic-go/atomic/sdk/rpcwire"
)

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
	a, err := s.b.prompt.Submit(app.PromptInput{Text: *c.Message, Images: c.images(), StreamingBehavior: c.StreamingBehavior})
	if err != nil {
		return nil, err
	}
	switch {
	case a.Start != nil && a.Disposition == app.DispositionHandled:
		// An extension command: answered once it has finished, as pi 1.6
		// answers it.
		req.Later(func() (any, error) {
			a.Start()
			return disposition{a.Disposition}, nil
		})
		return nil, nil
	case a.Start != nil:
		req.After(a.Start)
	}
	return disposition{a.Disposition}, nil
}

// disposition is the data of a prompt, steer or follow_up response.
type disposition struct {
	Disposition string `json:"disposition"`
}

func handleQueue(req *Request, s *Server, steer bool) (any, error) {
	var c messageCommand
	if err := c.decode(req); err != nil {
		return nil, err
	}
	d, err := s.b.prompt.Queue(steer, *c.Message, c.images())
	if err != nil {
		return nil, err
	}
	return disposition{d}, nil
}

func handleSteer(_ context.Context, s *Server, req *Request) (any, error) {
	return handleQueue(req, s, true)
}

func handleFollowUp(_ context.Context, s *Server, req *Request) (any, error) {
	return handleQueue(req, s, false)
}

func handleAbort(_ context.Context, s *Server, req *Request) (any, error) {
	if s.b.prompt.CancelTurn() {
		// Messages still queued go on in a new run, after the response.
		req.After(s.b.prompt.ContinueQueued)
	}
	return nil, nil
}

func handleClearQueue(_ context.Context, s *Server, _ *Request) (any, error) {
	steering, followUp := s.b.prompt.ClearQueue()
	return rpcwire.Queue{Steering: steering, FollowUp: followUp}, nil
}

func handlePauseQueued(_ context.Context, s *Server, _ *Request) (any, error) {
	s.b.prompt.PauseQueued()
	return nil, nil
}

func handleResumeQueued(_ context.Context, s *Server, _ *Request) (any, error) {
	return map[string]bool{"released": s.b.prompt.ResumeQueued()}, nil
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
	return nil, s.b.prompt.SetSteeringMode(mode)
}

func handleSetFollowUpMode(_ context.Context, s *Server, req *Request) (any, error) {
	mode, err := decodeMode(req)
	if err != nil {
		return nil, err
	}
	return nil, s.b.prompt.SetFollowUpMode(mode)
}
