// Package mcptest is an MCP server for the tests, on the official Go SDK:
// tools that echo, report progress, crash the process, hang until
// cancelled, add a tool (tools/list_changed), return an image or an
// error, and a text resource. The same server runs over stdio
// (mcptestserver) or streamable HTTP (Handler, in the test process).
package mcptest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Options change the server.
type Options struct {
	// ExtraTools adds extra_0 … extra_N-1 (the deferred-search case).
	ExtraTools int
	// CancelFile, when set, gets a line when a hanging call is cancelled.
	CancelFile string
}

func object(props string, required ...string) json.RawMessage {
	req, _ := json.Marshal(required)
	if required == nil {
		req = []byte("[]")
	}
	return json.RawMessage(`{"type":"object","properties":{` + props + `},"required":` + string(req) + `}`)
}

func args(req *mcp.CallToolRequest) map[string]any {
	var m map[string]any
	_ = json.Unmarshal(req.Params.Arguments, &m)
	return m
}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

// New returns the test server.
func New(o Options) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "atomic-test", Version: "1.0.0"}, &mcp.ServerOptions{Instructions: "Test server for atomic."})
	s.AddTool(&mcp.Tool{Name: "echo", Description: "Echo the message back", InputSchema: object(`"message":{"type":"string"}`, "message")},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return text(fmt.Sprint("Echo: ", args(req)["message"])), nil
		})
	s.AddTool(&mcp.Tool{Name: "slow", Description: "Count to steps, reporting progress", InputSchema: object(`"steps":{"type":"integer"},"delayMs":{"type":"integer"}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			a := args(req)
			steps, _ := a["steps"].(float64)
			delay, _ := a["delayMs"].(float64)
			for i := 1; i <= int(steps); i++ {
				select {
				case <-time.After(time.Duration(delay) * time.Millisecond):
				case <-ctx.Done():
					return nil, ctx.Err()
				}
				if tok := req.Params.GetProgressToken(); tok != nil {
					_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: float64(i), Total: steps, Message: "step " + strconv.Itoa(i)})
				}
			}
			return text(fmt.Sprintf("counted to %d", int(steps))), nil
		})
	s.AddTool(&mcp.Tool{Name: "crash", Description: "Exit the server process in the middle of the call", InputSchema: object("")},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			fmt.Fprintf(os.Stderr, "crashing now (secret %s)\n", os.Getenv("MCP_TEST_SECRET"))
			os.Exit(3)
			return nil, nil
		})
	s.AddTool(&mcp.Tool{Name: "hang", Description: "Never answer until cancelled", InputSchema: object("")},
		func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			<-ctx.Done()
			if o.CancelFile != "" {
				f, err := os.OpenFile(o.CancelFile, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
				if err == nil {
					fmt.Fprintln(f, "cancelled")
					f.Close()
				}
			}
			return nil, ctx.Err()
		})
	s.AddTool(&mcp.Tool{Name: "add_tool", Description: "Add the tool named added", InputSchema: object("")},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			s.AddTool(&mcp.Tool{Name: "added", Description: "A tool added at run time", InputSchema: object("")},
				func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					return text("added works"), nil
				})
			return text("added the tool"), nil
		})
	s.AddTool(&mcp.Tool{Name: "image", Description: "Return a tiny PNG image", InputSchema: object("")},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "an image"}, &mcp.ImageContent{MIMEType: "image/png", Data: []byte("\x89PNG\r\n")}}}, nil
		})
	s.AddTool(&mcp.Tool{Name: "fail", Description: "Return an error result", InputSchema: object("")},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			r := text("the tool failed on purpose")
			r.IsError = true
			return r, nil
		})
	for i := range o.ExtraTools {
		name := fmt.Sprintf("extra_%d", i)
		s.AddTool(&mcp.Tool{Name: name, Description: fmt.Sprintf("Extra tool number %d for weather station %d", i, i), InputSchema: object("")},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return text(name + " ran"), nil
			})
	}
	s.AddResource(&mcp.Resource{URI: "test://readme", Name: "readme", MIMEType: "text/plain", Description: "The readme"},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "text/plain", Text: "Read me: the resource text."}}}, nil
		})
	return s
}

// Handler serves the test server over streamable HTTP.
func Handler(o Options) http.Handler {
	srv := New(o)
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
}
