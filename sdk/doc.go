// Package sdk is what a Go extension for atomic imports. An extension is a
// program that registers handlers, commands, tools and flags on an
// Extension and calls Serve; the agent starts it as a child process and
// talks to it over gRPC (hashicorp/go-plugin, protocol
// proto/atomic/plugin/v1).
//
//	func main() {
//		ext := sdk.New("no-rm", "1.0.0")
//		ext.OnToolCall(func(ctx *sdk.Context, ev *sdk.ToolCallEvent) (*sdk.ToolCallResult, error) {
//			if ev.ToolName == "bash" && strings.Contains(ev.StringInput("command"), "rm -rf") {
//				return &sdk.ToolCallResult{Block: true, Reason: "rm -rf is not allowed"}, nil
//			}
//			return nil, nil
//		})
//		sdk.Serve(ext)
//	}
//
// Handlers receive a *Context: a context.Context that is cancelled when the
// agent aborts the call or its deadline passes, a snapshot of the session
// (working directory, mode, model) and Host, the client for calling back
// into the agent (send messages, append entries, read the session, show
// dialogs through UI). Package sdktest runs an extension in process for
// unit tests.
//
// A plugin must never write to its standard output: the agent forwards it
// to its log, but other plugin hosts may not. Log with the standard log
// package or slog to standard error; the agent logs those lines with the
// plugin's name.
package sdk
