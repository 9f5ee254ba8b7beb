package nodeext

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/atomic-go/atomic/host/extensions"
	"github.com/atomic-go/atomic/host/hooks"
)

func laneToolCall(cmd string) *hooks.Event {
	return hooks.NewEvent(hooks.ToolCall, hooks.ToolCallEvent{ToolName: "bash", ToolCallID: "c-" + cmd, Input: map[string]any{"command": cmd}})
}

// Hook calls to the Node host take the event lane (plugin.proto,
// EventLaneFrame), with the deadlines, errors and crash rules of the gRPC
// call they replace.
func TestHookCallsTakeTheEventLane(t *testing.T) {
	h := &fakeHost{uiCh: make(chan string, 10)}
	rt := newRuntime(t, h)
	ext := loadExt(t, rt, h, "testdata/lane.ts", extensions.Options{})
	e := ext.(*extension)
	if !e.EventLane() {
		t.Fatal("the Node host's hook calls do not take the event lane")
	}
	ctx := context.Background()
	raw, err := ext.Handle(ctx, laneToolCall("rm -rf /"))
	if err != nil || !strings.Contains(string(raw), `"block":true`) || !strings.Contains(string(raw), "refused in") {
		t.Fatalf("tool_call: %s %v", raw, err)
	}
	if raw, err := ext.Handle(ctx, laneToolCall("ls")); err != nil || len(raw) != 0 {
		t.Fatalf("a handler with no result: %q %v", raw, err)
	}
	if _, err := ext.Handle(ctx, laneToolCall("throw")); err == nil || !strings.Contains(err.Error(), "lane boom") {
		t.Fatalf("a throwing handler: %v", err)
	}

	// A call past its deadline ends at once, and the handler's signal is
	// aborted (the cancel frame).
	wctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	_, err = ext.Handle(wctx, laneToolCall("wait"))
	cancel()
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a call past its deadline: %v", err)
	}
	select {
	case ui := <-h.uiCh:
		if !strings.Contains(ui, "aborted") {
			t.Fatalf("ui: %s", ui)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the handler's signal was not aborted")
	}

	// The process dies in the middle of a call: the call says so, the
	// crash is reported, and the restarted process has a lane again.
	if _, err := ext.Handle(ctx, laneToolCall("die")); err == nil || !strings.Contains(err.Error(), "exited") {
		t.Fatalf("a handler that ends the process: %v", err)
	}
	if errs := h.waitErrors(t, 1); len(errs) == 0 || errs[0].Event != "crash" {
		t.Fatalf("crash reports: %+v", errs)
	}
	rctx, rcancel := context.WithTimeout(ctx, time.Minute)
	defer rcancel()
	if err := e.Restart(rctx); err != nil {
		t.Fatal(err)
	}
	raw, err = ext.Handle(rctx, laneToolCall("rm -rf /"))
	if err != nil || !strings.Contains(string(raw), `"block":true`) {
		t.Fatalf("after the restart: %s %v", raw, err)
	}
	if !e.EventLane() {
		t.Fatal("the restarted process has no event lane")
	}
}
