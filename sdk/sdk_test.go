package sdk_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/atomic-go/atomic/sdk"
	"github.com/atomic-go/atomic/sdk/sdktest"
)

func TestTwoHandlersComposeLikeTheAgent(t *testing.T) {
	ext := sdk.New("t", "0")
	ext.OnToolCall(func(ctx *sdk.Context, ev *sdk.ToolCallEvent) (*sdk.ToolCallResult, error) {
		return &sdk.ToolCallResult{Input: map[string]any{"command": ev.StringInput("command") + " --safe"}}, nil
	})
	ext.OnToolCall(func(ctx *sdk.Context, ev *sdk.ToolCallEvent) (*sdk.ToolCallResult, error) {
		if strings.HasSuffix(ev.StringInput("command"), "--safe") {
			return nil, nil
		}
		return &sdk.ToolCallResult{Block: true, Reason: "second handler did not see the new input"}, nil
	})
	h := sdktest.New(ext)
	r, err := h.ToolCall(sdk.ToolCallEvent{ToolName: "bash", Input: map[string]any{"command": "ls"}})
	if err != nil || r == nil || r.Block || r.Input["command"] != "ls --safe" {
		t.Fatalf("%+v %v", r, err)
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
