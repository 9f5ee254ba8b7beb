package main

import (
	"testing"

	"github.com/atomic-go/atomic/sdk"
	"github.com/atomic-go/atomic/sdk/sdktest"
)

func TestMinimal(t *testing.T) {
	h := sdktest.New(newExtension())
	r, err := h.ToolCall(sdk.ToolCallEvent{ToolName: "bash", Input: map[string]any{"command": "rm -rf .git"}})
	if err != nil || r == nil || !r.Block {
		t.Fatalf("%+v %v", r, err)
	}
	out, _, err := h.ExecuteTool("word_count", map[string]any{"text": "one two three"})
	if err != nil || out.Content[0].Text != "3" {
		t.Fatalf("%+v %v", out, err)
	}
	if err := h.RunCommand("word-count", "a b"); err != nil || h.Host.Requests("notify")[0].Params["message"] != "2 words" {
		t.Fatal("command")
	}
}
