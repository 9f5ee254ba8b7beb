package sdk_test

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/atomic-go/atomic/sdk"
	"github.com/atomic-go/atomic/sdk/sdktest"
)

// A slash command: /greet <name> sends a custom message into the session.
// In a plugin's main, sdk.Serve(ext) then serves the extension to the
// agent; here the sdktest harness stands in for the agent.
func ExampleExtension_RegisterCommand() {
	ext := sdk.New("greeter", "1.0.0")
	ext.RegisterCommand(sdk.Command{
		Name:        "greet",
		Description: "Say hello to someone",
		Run: func(c *sdk.Context, args string) error {
			return c.Host.SendMessage(c, sdk.CustomMessage{CustomType: "greeting", Content: "Hello, " + args + "!", Display: true}, sdk.SendOptions{})
		},
	})

	h := sdktest.New(ext)
	if err := h.RunCommand("greet", "Ada"); err != nil {
		fmt.Println("error:", err)
	}
	fmt.Println(h.Host.Messages[0].Content)
	// Output: Hello, Ada!
}

// A tool the model can call, with a JSON Schema for its arguments (the
// agent validates them before Execute runs).
func ExampleExtension_RegisterTool() {
	ext := sdk.New("words", "1.0.0")
	ext.RegisterTool(sdk.Tool{
		Name:        "count_words",
		Description: "Count the words of a text",
		Parameters:  json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`),
		Execute: func(c *sdk.Context, call sdk.ToolInvocation, update func(sdk.ToolOutput)) (sdk.ToolOutput, error) {
			text, _ := call.Args["text"].(string) // validated against Parameters
			return sdk.TextOutput(fmt.Sprintf("%d words", len(strings.Fields(text)))), nil
		},
	})

	out, _, err := sdktest.New(ext).ExecuteTool("count_words", map[string]any{"text": "one two three"})
	if err != nil {
		fmt.Println("error:", err)
	}
	fmt.Println(out.Content[0].Text)
	// Output: 3 words
}

// A tool_call gate: bash commands that remove files need the user's
// confirmation; without a UI (print and json modes) the dialog answers
// no, and the call is blocked with a reason the model sees.
func ExampleExtension_OnToolCall() {
	ext := sdk.New("guard", "1.0.0")
	ext.OnToolCall(func(c *sdk.Context, ev *sdk.ToolCallEvent) (*sdk.ToolCallResult, error) {
		if ev.ToolName != "bash" || !strings.Contains(ev.StringInput("command"), "rm ") {
			return nil, nil // let it run
		}
		ok, err := c.UI.Confirm("Allow?", ev.StringInput("command"))
		if err != nil || !ok {
			return &sdk.ToolCallResult{Block: true, Reason: "the user did not allow removing files"}, nil
		}
		return nil, nil
	})

	h := sdktest.New(ext)
	h.Host.Confirm = func(title, message string) bool { return false } // the user says no
	res, _ := h.ToolCall(sdk.ToolCallEvent{ToolCallID: "c1", ToolName: "bash", Input: map[string]any{"command": "rm -rf build"}})
	fmt.Println(res.Block, res.Reason)
	res, _ = h.ToolCall(sdk.ToolCallEvent{ToolCallID: "c2", ToolName: "bash", Input: map[string]any{"command": "ls"}})
	fmt.Println(res == nil)
	// Output:
	// true the user did not allow removing files
	// true
}
