// Command testplugin is a configurable plugin for the extension host's
// tests. Its behaviour is chosen with flags (given through a plugin
// directory's atomic-plugin.json "command"), so that one binary built once
// per test run plays every role.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/atomic-go/atomic/host/hooks/hookstest"
	"github.com/atomic-go/atomic/sdk"
)

func main() {
	var (
		name         = flag.String("name", "testplugin", "extension name")
		blockBash    = flag.String("block-bash", "", "block bash commands containing this text")
		rewriteBash  = flag.String("rewrite-bash", "", "FROM=TO: rewrite bash commands")
		patchTool    = flag.String("patch-result", "", "patch the results of this tool")
		cancelNew    = flag.Bool("cancel-new", false, "cancel session_before_switch")
		cancelFork   = flag.Bool("cancel-fork", false, "cancel session_before_fork")
		command      = flag.String("command", "", "register this slash command")
		tool         = flag.String("tool", "", "register this tool")
		confirmBash  = flag.Bool("confirm-bash", false, "ask before every bash call")
		hangEvent    = flag.String("hang", "", "the handler of this event never returns")
		slowEvent    = flag.String("slow", "", "EVENT=DURATION: the handler of this event sleeps")
		pidFile      = flag.String("pidfile", "", "write the process id here")
		recordFile   = flag.String("record", "", "append every event type received here")
		observe      = flag.String("observe", "", "comma-separated events to subscribe to")
		stdoutSpam   = flag.Bool("stdout-spam", false, "write to stdout at start and in handlers")
		logFlood     = flag.Int("log-flood", 0, "write this many lines to stderr at start")
		stderrFlood  = flag.String("stderr-flood", "", "EVENT=N: the handler of this event writes N lines to stderr")
		garbage      = flag.Bool("garbage", false, "print garbage instead of the handshake")
		exitEarly    = flag.Bool("exit-early", false, "exit before the handshake")
		badVersion   = flag.Bool("bad-version", false, "speak plugin protocol version 2")
		malformed    = flag.Bool("malformed", false, "answer tool_call with a malformed result")
		systemPrompt = flag.String("system-prompt-suffix", "", "append this to the system prompt")
		inject       = flag.String("inject", "", "inject a custom message with this text before each prompt")
		timeoutMs    = flag.Int("tool-call-timeout-ms", 0, "ask for this tool_call deadline")
		confirmMs    = flag.Int("confirm-timeout-ms", 0, "timeout of the confirm dialog")
		stdinFile    = flag.String("stdin-to", "", "write what standard input holds (or EOF) to this file")
		inputPrefix  = flag.String("input-prefix", "", "input: transform prompts by adding this prefix")
		handleInput  = flag.String("handle-input", "", "input: consume prompts equal to this text")
		contextLast  = flag.Bool("context-last-only", false, "context: send only the last message to the model")
		recordRaw    = flag.Bool("record-payload", false, "record observed events as their JSON payload")
		userBash     = flag.String("user-bash", "", "user_bash: answer commands containing this text itself")
		compactText  = flag.String("compact-text", "", "session_before_compact: supply this compacted text (\"cancel\" cancels)")
		fixture      = flag.String("fixture", "", "EVENT=JSON: register these composition-fixture handlers (hookstest.Handler list)")
	)
	flag.Parse()
	switch {
	case *garbage:
		fmt.Println("hello, I am not a plugin")
		time.Sleep(30 * time.Second)
		os.Exit(0)
	case *exitEarly:
		fmt.Fprintln(os.Stderr, "testplugin: giving up before the handshake")
		os.Exit(3)
	}
	if *stdinFile != "" {
		got := make(chan string, 1)
		go func() {
			b := make([]byte, 64)
			n, err := os.Stdin.Read(b)
			if err != nil {
				got <- "EOF"
				return
			}
			got <- string(b[:n])
		}()
		select {
		case s := <-got:
			_ = os.WriteFile(*stdinFile, []byte(s), 0o600)
		case <-time.After(time.Second):
			_ = os.WriteFile(*stdinFile, []byte("blocked"), 0o600)
		}
	}
	if *pidFile != "" {
		_ = os.WriteFile(*pidFile, []byte(fmt.Sprint(os.Getpid())), 0o600)
	}
	for i := 0; i < *logFlood; i++ {
		fmt.Fprintf(os.Stderr, "flood line %d\n", i)
	}
	if *stdoutSpam {
		fmt.Println(`{"type":"response","command":"fake","success":true}`)
	}

	ext := sdk.New(*name, "1.0.0")
	if *fixture != "" {
		event, list, _ := strings.Cut(*fixture, "=")
		var hs []hookstest.Handler
		if err := json.Unmarshal([]byte(list), &hs); err != nil {
			fmt.Fprintln(os.Stderr, "testplugin: --fixture:", err)
			os.Exit(2)
		}
		for _, h := range hs {
			ext.On(event, func(_ *sdk.Context, raw json.RawMessage) (any, error) {
				r, err := h.Run(raw)
				if r == nil {
					return nil, err
				}
				return r, err
			})
		}
	}
	if *timeoutMs > 0 {
		ext.SetTimeout(sdk.EventToolCall, time.Duration(*timeoutMs)*time.Millisecond)
	}
	record := func(ev string) {
		if *recordFile == "" {
			return
		}
		f, err := os.OpenFile(*recordFile, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
		if err == nil {
			fmt.Fprintln(f, ev)
			f.Close()
		}
	}
	hang := func(ctx *sdk.Context, ev string) {
		if ev == *hangEvent {
			select {} // never returns, ignores the context on purpose
		}
		if *slowEvent != "" {
			if e, d, ok := strings.Cut(*slowEvent, "="); ok && e == ev {
				if dur, err := time.ParseDuration(d); err == nil {
					time.Sleep(dur)
				}
			}
		}
		if *stdoutSpam {
			fmt.Println("stdout noise from a handler")
		}
		if e, n, ok := strings.Cut(*stderrFlood, "="); ok && e == ev {
			count, _ := strconv.Atoi(n)
			w := bufio.NewWriterSize(os.Stderr, 64<<10)
			for i := 0; i < count; i++ {
				fmt.Fprintf(w, "flood from the %s handler, line %d of %d\n", ev, i, count)
			}
			w.Flush()
		}
	}

	if *blockBash != "" || *rewriteBash != "" || *confirmBash || *malformed || *hangEvent == sdk.EventToolCall || strings.HasPrefix(*slowEvent, "tool_call=") ||
		strings.HasPrefix(*stderrFlood, "tool_call=") {
		ext.On(sdk.EventToolCall, func(ctx *sdk.Context, raw json.RawMessage) (any, error) {
			record(sdk.EventToolCall)
			hang(ctx, sdk.EventToolCall)
			if *malformed {
				return json.RawMessage(`"not an object"`), nil
			}
			var ev sdk.ToolCallEvent
			if err := json.Unmarshal(raw, &ev); err != nil {
				return nil, err
			}
			if ev.ToolName != "bash" {
				return nil, nil
			}
			cmd := ev.StringInput("command")
			if *blockBash != "" && strings.Contains(cmd, *blockBash) {
				return &sdk.ToolCallResult{Block: true, Reason: "blocked by " + *name + ": " + *blockBash}, nil
			}
			if from, to, ok := strings.Cut(*rewriteBash, "="); ok && strings.Contains(cmd, from) {
				return &sdk.ToolCallResult{Input: map[string]any{"command": strings.ReplaceAll(cmd, from, to)}}, nil
			}
			if *confirmBash {
				ok, err := ctx.UI.Confirm("Run bash?", cmd, sdk.DialogOptions{Timeout: time.Duration(*confirmMs) * time.Millisecond})
				if err != nil {
					return nil, err
				}
				if !ok {
					return &sdk.ToolCallResult{Block: true, Reason: "the user declined"}, nil
				}
			}
			return nil, nil
		})
	}
	if *patchTool != "" {
		ext.OnToolResult(func(ctx *sdk.Context, ev *sdk.ToolResultEvent) (*sdk.ToolResultPatch, error) {
			record(sdk.EventToolResult)
			if ev.ToolName != *patchTool {
				return nil, nil
			}
			text := ""
			for _, b := range ev.Content {
				text += b.Text
			}
			return &sdk.ToolResultPatch{Content: []sdk.Block{sdk.TextBlock("patched: " + text)}, Details: map[string]any{"patchedBy": *name}}, nil
		})
	}
	if *cancelNew || *hangEvent == sdk.EventSessionBeforeSwitch {
		ext.OnSessionBeforeSwitch(func(ctx *sdk.Context, ev *sdk.SessionBeforeSwitchEvent) (*sdk.CancelResult, error) {
			record(sdk.EventSessionBeforeSwitch)
			hang(ctx, sdk.EventSessionBeforeSwitch)
			return &sdk.CancelResult{Cancel: *cancelNew}, nil
		})
	}
	if *cancelFork {
		ext.OnSessionBeforeFork(func(ctx *sdk.Context, ev *sdk.SessionBeforeForkEvent) (*sdk.CancelResult, error) {
			record(sdk.EventSessionBeforeFork + ":" + ev.Position)
			return &sdk.CancelResult{Cancel: true}, nil
		})
	}
	if *systemPrompt != "" || *inject != "" {
		ext.OnBeforeAgentStart(func(ctx *sdk.Context, ev *sdk.BeforeAgentStartEvent) (*sdk.BeforeAgentStartResult, error) {
			record(sdk.EventBeforeAgentStart)
			r := &sdk.BeforeAgentStartResult{}
			if *systemPrompt != "" {
				sp := ev.SystemPrompt + *systemPrompt
				r.SystemPrompt = &sp
			}
			if *inject != "" {
				r.Message = &sdk.CustomMessage{CustomType: "testplugin", Content: *inject, Display: true}
			}
			return r, nil
		})
	}
	if *inputPrefix != "" || *handleInput != "" {
		ext.OnInput(func(ctx *sdk.Context, ev *sdk.InputEvent) (*sdk.InputResult, error) {
			record(sdk.EventInput + ":" + ev.Source)
			if *handleInput != "" && ev.Text == *handleInput {
				return &sdk.InputResult{Action: "handled"}, nil
			}
			if *inputPrefix != "" {
				text := *inputPrefix + ev.Text
				return &sdk.InputResult{Action: "transform", Text: &text}, nil
			}
			return nil, nil
		})
	}
	if *userBash != "" {
		ext.OnUserBash(func(ctx *sdk.Context, ev *sdk.UserBashEvent) (*sdk.UserBashResult, error) {
			record(sdk.EventUserBash)
			if !strings.Contains(ev.Command, *userBash) {
				return nil, nil
			}
			code := 0
			return &sdk.UserBashResult{Result: &sdk.BashResult{Output: "handled by testplugin: " + ev.Command, ExitCode: &code}}, nil
		})
	}
	if *compactText != "" {
		ext.On(sdk.EventSessionBeforeCompact, func(ctx *sdk.Context, raw json.RawMessage) (any, error) {
			record(sdk.EventSessionBeforeCompact)
			if *compactText == "cancel" {
				return &sdk.CancelResult{Cancel: true}, nil
			}
			return map[string]any{"compactedText": *compactText}, nil
		})
	}
	if *contextLast {
		ext.OnContext(func(ctx *sdk.Context, ev *sdk.ContextEvent) (*sdk.ContextResult, error) {
			record(sdk.EventContext)
			if len(ev.Messages) <= 1 {
				return nil, nil
			}
			return &sdk.ContextResult{Messages: ev.Messages[len(ev.Messages)-1:]}, nil
		})
	}
	if *command != "" {
		ext.RegisterFlag(sdk.Flag{Name: "greeting", Type: "string", Default: "hello", Description: "what /<command> greet says"})
		ext.RegisterCommand(sdk.Command{
			Name: *command, Description: "test command of " + *name,
			Run: func(ctx *sdk.Context, args string) error {
				record("command:" + args)
				if args == "fail" {
					return fmt.Errorf("command failed on purpose")
				}
				if args == "hang" {
					select {} // never returns, ignores the context on purpose
				}
				if args == "compact" {
					if _, err := ctx.Host.Compact(ctx); err != nil {
						args = "compact error: " + err.Error()
					} else {
						args = "compacted"
					}
				}
				if args == "greet" {
					g, _ := ctx.Flag("greeting")
					args = "greet " + g
				}
				if _, err := ctx.Host.AppendEntry(ctx, "testplugin-command", map[string]any{"args": args}); err != nil {
					return err
				}
				return ctx.Host.SendMessage(ctx, sdk.CustomMessage{CustomType: "testplugin", Content: "command ran: " + args, Display: true}, sdk.SendOptions{})
			},
			Complete: func(ctx *sdk.Context, prefix string) ([]sdk.Completion, error) {
				var out []sdk.Completion
				for _, v := range []string{"alpha", "beta", "gamma"} {
					if strings.HasPrefix(v, prefix) {
						out = append(out, sdk.Completion{Value: v, Label: v})
					}
				}
				return out, nil
			},
		})
	}
	if *tool != "" {
		ext.RegisterTool(sdk.Tool{
			Name: *tool, Label: "Echo", Description: "Echoes its text argument.",
			Parameters:    json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`),
			PromptSnippet: "echo text back",
			Execute: func(ctx *sdk.Context, call sdk.ToolInvocation, update func(sdk.ToolOutput)) (sdk.ToolOutput, error) {
				text, _ := call.Args["text"].(string)
				if out, ok := specialEcho(text, update); ok {
					return out, nil
				}
				update(sdk.TextOutput("working 1"))
				update(sdk.TextOutput("working 2"))
				if text == "fail" {
					return sdk.ToolOutput{}, fmt.Errorf("echo failed on purpose")
				}
				return sdk.ToolOutput{Content: []sdk.Block{sdk.TextBlock("echo: " + text)}, Details: map[string]any{"length": len(text)}}, nil
			},
		})
	}
	for _, ev := range strings.Split(*observe, ",") {
		if ev == "" {
			continue
		}
		ev := ev
		ext.On(ev, func(ctx *sdk.Context, raw json.RawMessage) (any, error) {
			if *recordRaw {
				record(string(raw))
			} else {
				record(ev)
			}
			hang(ctx, ev)
			return nil, nil
		})
	}

	if *badVersion {
		// go-plugin's handshake line, as a plugin of protocol version 2
		// writes it (core version|app version|network|address|protocol):
		// the agent must refuse it before connecting.
		fmt.Printf("1|2|unix|%s|grpc\n", filepath.Join(os.TempDir(), "atomic-testplugin-v2.sock"))
		_, _ = io.Copy(io.Discard, os.Stdin) // until the agent gives up on us
		return
	}
	sdk.Serve(ext)
}

// specialEcho plays the misbehaving tools of the fault tests, chosen by
// the echo tool's text: "big:N" returns N bytes of text, "updates:N:SIZE"
// sends N partial results of SIZE bytes first, "sleep" never returns (and
// ignores cancellation), "sh:CMD" runs CMD with sh -c in a child process
// (AGENT_PID set to the agent's process id) and returns its output.
func specialEcho(text string, update func(sdk.ToolOutput)) (sdk.ToolOutput, bool) {
	switch {
	case strings.HasPrefix(text, "big:"):
		n, _ := strconv.Atoi(strings.TrimPrefix(text, "big:"))
		return sdk.TextOutput(bigText(n)), true
	case strings.HasPrefix(text, "updates:"):
		var n, size int
		fmt.Sscanf(strings.TrimPrefix(text, "updates:"), "%d:%d", &n, &size)
		chunk := bigText(size)
		for i := 0; i < n; i++ {
			update(sdk.TextOutput(chunk))
		}
		return sdk.TextOutput("updates done"), true
	case text == "sleep":
		time.Sleep(24 * time.Hour)
		return sdk.TextOutput("woke up"), true
	case strings.HasPrefix(text, "sh:"):
		cmd := exec.Command("sh", "-c", strings.TrimPrefix(text, "sh:"))
		cmd.Env = append(os.Environ(), "AGENT_PID="+strconv.Itoa(os.Getppid()))
		out, err := cmd.CombinedOutput()
		if err != nil {
			out = append(out, []byte("\n"+err.Error())...)
		}
		return sdk.TextOutput(string(out)), true
	}
	return sdk.ToolOutput{}, false
}

// bigText returns n bytes of text in lines of 100.
func bigText(n int) string {
	line := strings.Repeat("x", 99) + "\n"
	var b strings.Builder
	b.Grow(n)
	for b.Len()+len(line) <= n {
		b.WriteString(line)
	}
	b.WriteString(strings.Repeat("y", n-b.Len()))
	return b.String()
}
