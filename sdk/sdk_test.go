package sdk_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/atomic-go/atomic/sdk"
	"github.com/atomic-go/atomic/sdk/sdktest"
)

// The agent composes several handlers' results (host/hooks; the fixtures
// in host/hooks/hookstest run against Go plugins in grpcext): the SDK
// runs one handler at a time and never combines results.
func TestSeveralHandlersRunOneByOne(t *testing.T) {
	ext := sdk.New("t", "0")
	ext.OnToolCall(func(ctx *sdk.Context, ev *sdk.ToolCallEvent) (*sdk.ToolCallResult, error) {
		return nil, errors.New("first fails")
	})
	ext.OnToolCall(func(ctx *sdk.Context, ev *sdk.ToolCallEvent) (*sdk.ToolCallResult, error) {
		return &sdk.ToolCallResult{Block: true, Reason: "second"}, nil
	})
	var seen []string
	for i := 0; i < 2; i++ {
		ext.On(sdk.EventAgentEnd, func(*sdk.Context, json.RawMessage) (any, error) {
			seen = append(seen, "end")
			return nil, errors.New("notification fails")
		})
	}
	if n := ext.Handlers(sdk.EventToolCall); n != 2 {
		t.Fatalf("handlers = %d", n)
	}
	h := sdktest.New(ext)
	if _, err := h.EventAt(sdk.EventToolCall, 0, sdk.ToolCallEvent{ToolName: "bash"}); err == nil || err.Error() != "first fails" {
		t.Fatalf("handler 0: %v", err)
	}
	raw, err := h.EventAt(sdk.EventToolCall, 1, sdk.ToolCallEvent{ToolName: "bash"})
	if err != nil || !strings.Contains(string(raw), `"second"`) {
		t.Fatalf("handler 1: %s %v", raw, err)
	}
	if _, err := h.ToolCall(sdk.ToolCallEvent{ToolName: "bash"}); err == nil || !strings.Contains(err.Error(), "events.per_handler") {
		t.Fatalf("an intercepting event with several handlers must not be composed here: %v", err)
	}
	// A notification's handlers all run; their errors are joined.
	if _, err := h.Event(sdk.EventAgentEnd, map[string]any{}); err == nil || len(seen) != 2 || strings.Count(err.Error(), "notification fails") != 2 {
		t.Fatalf("notification: %v %v", seen, err)
	}
}

func TestHandlerErrorAndPanicBecomeErrors(t *testing.T) {
	ext := sdk.New("t", "0")
	ext.OnSessionBeforeFork(func(*sdk.Context, *sdk.SessionBeforeForkEvent) (*sdk.CancelResult, error) {
		return nil, errors.New("nope")
	})
	ext.OnToolResult(func(*sdk.Context, *sdk.ToolResultEvent) (*sdk.ToolResultPatch, error) { panic("bad") })
	h := sdktest.New(ext)
	if _, err := h.BeforeFork(sdk.SessionBeforeForkEvent{EntryID: "x"}); err == nil || err.Error() != "nope" {
		t.Fatalf("error lost: %v", err)
	}
	if _, err := h.ToolResult(sdk.ToolResultEvent{ToolName: "read"}); err == nil || !strings.Contains(err.Error(), "panicked") {
		t.Fatalf("panic not turned into an error: %v", err)
	}
}

func TestToolStreamsUpdatesAndUIConfirm(t *testing.T) {
	ext := sdk.New("t", "0")
	ext.RegisterTool(sdk.Tool{Name: "count", Execute: func(ctx *sdk.Context, call sdk.ToolInvocation, update func(sdk.ToolOutput)) (sdk.ToolOutput, error) {
		update(sdk.TextOutput("1"))
		update(sdk.TextOutput("1 2"))
		ok, err := ctx.UI.Confirm("Go on?", "counting")
		if err != nil || !ok {
			return sdk.ToolOutput{}, errors.New("declined")
		}
		return sdk.TextOutput("1 2 3"), nil
	}})
	h := sdktest.New(ext)
	if _, _, err := h.ExecuteTool("count", nil); err == nil || err.Error() != "declined" {
		t.Fatalf("default confirm must be false: %v", err)
	}
	h.Host.Confirm = func(title, msg string) bool { return title == "Go on?" }
	out, updates, err := h.ExecuteTool("count", nil)
	if err != nil || out.Content[0].Text != "1 2 3" || len(updates) != 2 {
		t.Fatalf("%+v %v %v", out, updates, err)
	}
	if n := len(h.Host.Requests("confirm")); n != 2 {
		t.Fatalf("confirm requests: %d", n)
	}
}
