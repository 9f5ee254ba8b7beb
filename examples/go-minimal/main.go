// Command go-minimal is the smallest useful atomic extension: it blocks
// bash commands that delete the .git directory, adds a /word-count
// command, and offers the model a "word_count" tool.
//
//	go build -o ~/.atomic/agent/extensions/go-minimal ./examples/go-minimal
package main

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/atomic-go/atomic/sdk"
)

func main() {
	sdk.Serve(newExtension())
}

func newExtension() *sdk.Extension {
	ext := sdk.New("go-minimal", "0.1.0")

	ext.OnToolCall(func(ctx *sdk.Context, ev *sdk.ToolCallEvent) (*sdk.ToolCallResult, error) {
		if ev.ToolName == "bash" && strings.Contains(ev.StringInput("command"), "rm -rf .git") {
			return &sdk.ToolCallResult{Block: true, Reason: "Deleting .git is not allowed."}, nil
		}
		return nil, nil
	})

	ext.RegisterCommand(sdk.Command{
		Name:        "word-count",
		Description: "Count the words of the text given",
		Run: func(ctx *sdk.Context, args string) error {
			return ctx.UI.Notify(fmt.Sprintf("%d words", len(strings.Fields(args))), "info")
		},
	})

	ext.RegisterTool(sdk.Tool{
		Name:          "word_count",
		Label:         "Word count",
		Description:   "Counts the words of a text.",
		PromptSnippet: "count the words of a text",
		Parameters:    json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`),
		Execute: func(ctx *sdk.Context, call sdk.ToolInvocation, update func(sdk.ToolOutput)) (sdk.ToolOutput, error) {
			text, _ := call.Args["text"].(string)
			return sdk.TextOutput(fmt.Sprintf("%d", len(strings.Fields(text)))), nil
		},
	})
	return ext
}
