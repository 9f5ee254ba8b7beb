// Command rpc-client is a small program built on sdk/rpcclient: it starts
// an agent in RPC mode, sends one prompt, streams the reply to stdout,
// reports tool calls on stderr, answers extension dialogs on the
// terminal (or automatically with -yes) and prints the session's token
// totals at the end.
//
//	go build -o atomic ./cmd/atomic
//	go run ./examples/rpc-client -bin ./atomic "list the files here"
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/atomic-go/atomic/sdk/rpcclient"
)

func main() {
	bin := flag.String("bin", "atomic", "agent executable")
	model := flag.String("model", "", "model (provider/id)")
	yes := flag.Bool("yes", false, "confirm every dialog without asking")
	flag.Parse()
	prompt := strings.Join(flag.Args(), " ")
	if prompt == "" {
		fmt.Fprintln(os.Stderr, "usage: rpc-client [-bin atomic] [-model provider/id] [-yes] <prompt>")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, config{bin: *bin, model: *model, yes: *yes, prompt: prompt}, os.Stdin, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "rpc-client:", err)
		os.Exit(1)
	}
}

type config struct {
	bin, model, prompt string
	yes                bool
	args               []string
	env                []string // the whole environment when set
	dir                string
}

func run(ctx context.Context, cfg config, in io.Reader, out, errOut io.Writer) error {
	answers := bufio.NewReader(in)
	client, err := rpcclient.Start(rpcclient.Options{
		Executable: cfg.bin,
		Model:      cfg.model,
		Args:       cfg.args,
		Env:        cfg.env,
		ReplaceEnv: cfg.env != nil,
		Dir:        cfg.dir,
		UIHandler: func(_ context.Context, req rpcclient.UIRequest) (rpcclient.UIResponse, bool) {
			return answer(req, cfg.yes, answers, errOut), true
		},
	})
	if err != nil {
		return err
	}
	defer client.Stop(context.Background())

	events := client.Subscribe("message_update", "tool_execution_start", "tool_execution_end", "agent_end")
	defer events.Close()
	if err := client.Prompt(ctx, cfg.prompt); err != nil {
		return err
	}
	for done := false; !done; {
		ev, err := events.Next(ctx)
		if err != nil {
			return err
		}
		switch ev.Type {
		case "message_update":
			var u rpcclient.MessageUpdate
			if ev.Decode(&u) == nil && u.AssistantMessageEvent.Type == "text_delta" {
				fmt.Fprint(out, u.AssistantMessageEvent.Delta)
			}
		case "tool_execution_start":
			var te rpcclient.ToolExecution
			if ev.Decode(&te) == nil {
				fmt.Fprintf(errOut, "\n[tool %s %s]\n", te.ToolName, te.Args)
			}
		case "tool_execution_end":
			var te rpcclient.ToolExecution
			if ev.Decode(&te) == nil && te.IsError {
				fmt.Fprintf(errOut, "[tool %s failed]\n", te.ToolName)
			}
		case "agent_end":
			var end rpcclient.AgentEnd
			if ev.Decode(&end) == nil {
				for _, m := range end.Messages {
					if m.Role == "assistant" && m.StopReason == "error" {
						return fmt.Errorf("the model failed: %s", m.ErrorMessage)
					}
				}
			}
			done = true
		}
	}
	fmt.Fprintln(out)
	stats, err := client.GetSessionStats(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(errOut, "[%d messages, %d tokens in, %d out, $%.4f]\n",
		stats.TotalMessages, stats.Tokens.Input, stats.Tokens.Output, stats.Cost)
	return nil
}

// answer asks the user on the terminal (in/errOut) for a dialog's answer.
func answer(req rpcclient.UIRequest, yes bool, in *bufio.Reader, errOut io.Writer) rpcclient.UIResponse {
	switch req.Method {
	case "notify":
		fmt.Fprintf(errOut, "[%s] %s\n", orDefault(req.NotifyType, "info"), req.Message)
		return rpcclient.UIResponse{}
	case "confirm":
		if yes {
			return rpcclient.UIConfirm(true)
		}
		fmt.Fprintf(errOut, "%s\n%s [y/N] ", req.Title, req.Message)
		line, _ := in.ReadString('\n')
		return rpcclient.UIConfirm(strings.EqualFold(strings.TrimSpace(line), "y"))
	case "select":
		if yes && len(req.Options) > 0 {
			return rpcclient.UIValue(req.Options[0])
		}
		fmt.Fprintln(errOut, req.Title)
		for i, o := range req.Options {
			fmt.Fprintf(errOut, "  %d) %s\n", i+1, o)
		}
		line, _ := in.ReadString('\n')
		var n int
		if _, err := fmt.Sscan(line, &n); err == nil && n >= 1 && n <= len(req.Options) {
			return rpcclient.UIValue(req.Options[n-1])
		}
		return rpcclient.UICancel()
	case "input", "editor":
		if yes {
			return rpcclient.UIValue(req.Prefill)
		}
		fmt.Fprintf(errOut, "%s: ", req.Title)
		line, err := in.ReadString('\n')
		if err != nil && line == "" {
			return rpcclient.UICancel()
		}
		return rpcclient.UIValue(strings.TrimRight(line, "\r\n"))
	}
	return rpcclient.UIResponse{}
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
