package jsext

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"strings"
	"sync"
	"time"

	"github.com/atomic-go/atomic/host/extensions"
	"github.com/atomic-go/atomic/host/hooks"
	"github.com/atomic-go/atomic/host/llm"
	"github.com/atomic-go/atomic/sdk"
)

// ServeCommand is the hidden command of the atomic binary that runs one
// script in a child process: `atomic __jsext-serve [flags] <script>`.
const ServeCommand = "__jsext-serve"

// exitMemory is the child's exit status when its script used too much
// memory.
const exitMemory = 3

// ServeChild runs a script as a plugin of the agent that started it (the
// plugin protocol through the SDK) and does not return unless the script
// cannot be loaded. Load errors and fatal conditions are also written to
// the --error-file, where the agent picks them up.
func ServeChild(args []string) int {
	fs := flag.NewFlagSet(ServeCommand, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	memMB := fs.Int64("memory-limit-mb", DefaultMemoryLimit>>20, "memory limit in MiB")
	errFile := fs.String("error-file", "", "file receiving load errors and fatal conditions")
	loadTimeout := fs.Duration("load-timeout", 10*time.Second, "how long loading may take")
	agentDir := fs.String("agent-dir", "", "the agent directory")
	hostVersion := fs.String("host-version", "", "the agent's version")
	offline := fs.Bool("offline", false, "refuse the script's network requests")
	if err := fs.Parse(args); err != nil || fs.NArg() != 1 {
		fmt.Fprintf(os.Stderr, "usage: atomic %s [--memory-limit-mb N] [--error-file F] <script>\n", ServeCommand)
		return 2
	}
	if os.Getenv(sdk.MagicCookieKey) != sdk.MagicCookieValue {
		fmt.Fprintf(os.Stderr, "atomic %s is started by the agent for extensions with \"isolation\": \"process\"\n", ServeCommand)
		return 2
	}
	path := fs.Arg(0)
	fatal := func(msg string) {
		if *errFile != "" {
			_ = os.WriteFile(*errFile, []byte(msg), 0o600)
		}
		fmt.Fprintln(os.Stderr, msg)
	}
	if *errFile != "" {
		_ = os.WriteFile(*errFile, nil, 0o600)
	}
	log := slog.New(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug, ReplaceAttr: hclogAttrs}))
	limit := *memMB << 20
	watchMemory(limit, func(used uint64) {
		fatal(fmt.Sprintf("the script used more than its memory limit of %d MiB (%d MiB) and was stopped", *memMB, used>>20))
		os.Exit(exitMemory)
	})

	rt := &Runtime{Log: log, AgentDir: *agentDir, HostVersion: *hostVersion, Offline: *offline, child: true}
	conn := &pendingHost{sdkHost: sdkHost{h: sdk.NoHost{}}}
	ctx, cancel := context.WithTimeout(context.Background(), *loadTimeout)
	s, err := rt.loadScript(ctx, extensions.Spec{Path: path, Kind: extensions.KindScript}, conn)
	cancel()
	if err != nil {
		fatal(err.Error())
		return 1
	}
	ext := s.sdkExtension()
	s.mu.Lock()
	s.reregister = func(ctx context.Context) error { return ext.Update(ctx, s.sdkExtension()) }
	s.mu.Unlock()
	ext.OnConnect(func(h sdk.Host, info sdk.ContextInfo) {
		rt.setFlagValues(info.Flags)
		s.setDefaultHost(&sdkHost{h: h, info: info})
		// MCP servers the factory registered reach the agent now.
		for _, m := range conn.takeMCPServers() {
			if err := h.RegisterMCPServer(context.Background(), m.name, m.config); err != nil {
				log.Warn("registerMcpServer failed", "server", m.name, "err", err)
			}
		}
	})
	sdk.Serve(ext)
	return 0
}

// hclogAttrs writes log records the way the agent reads a plugin's log
// lines (go-plugin's JSON format: @level, @message).
func hclogAttrs(groups []string, a slog.Attr) slog.Attr {
	if len(groups) > 0 {
		return a
	}
	switch a.Key {
	case slog.TimeKey:
		return slog.Attr{}
	case slog.LevelKey:
		return slog.String("@level", strings.ToLower(a.Value.String()))
	case slog.MessageKey:
		return slog.String("@message", a.Value.String())
	}
	return a
}

// watchMemory sets a soft memory limit (the collector works harder near
// it) and calls exceeded when the live heap passes it anyway.
func watchMemory(limit int64, exceeded func(used uint64)) {
	debug.SetMemoryLimit(limit)
	go func() {
		sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		for range time.Tick(20 * time.Millisecond) {
			metrics.Read(sample)
			if sample[0].Value.Kind() == metrics.KindUint64 {
				if used := sample[0].Value.Uint64(); used > uint64(limit) {
					exceeded(used)
				}
			}
		}
	}()
}

// sdkExtension describes the loaded script to the SDK: its handlers (the
// agent calls each on its own; a notification's handlers run as one), and
// its commands, tools and flags, all calling into the script
// with the call's host.
func (s *Script) sdkExtension() *sdk.Extension {
	ext := sdk.New(s.Name(), "")
	for _, ev := range s.Events() {
		name := ev
		n := s.Handlers(name)
		if n < 0 {
			// Notifications: one handler runs them all.
			n = 1
		}
		for i := 0; i < n; i++ {
			index := i
			if s.Handlers(name) < 0 {
				index = -1
			}
			ext.On(name, func(c *sdk.Context, payload json.RawMessage) (any, error) {
				raw, err := s.handle(c, newSDKHost(c), hooks.NewEvent(name, payload), index)
				if err != nil || len(raw) == 0 {
					return nil, err
				}
				return raw, nil
			})
		}
	}
	for _, cmd := range s.Commands() {
		name := cmd.Name
		c := sdk.Command{Name: name, Description: cmd.Description, Run: func(c *sdk.Context, args string) error {
			return s.runCommand(c, newSDKHost(c), name, args, false)
		}}
		if cmd.HasCompletions {
			c.Complete = func(c *sdk.Context, prefix string) ([]sdk.Completion, error) {
				items, none, err := s.complete(c, newSDKHost(c), name, prefix)
				if err != nil || none {
					return nil, err
				}
				out := make([]sdk.Completion, len(items))
				for i, it := range items {
					out[i] = sdk.Completion{Value: it.Value, Label: it.Label, Description: it.Description}
				}
				return out, nil
			}
		}
		ext.RegisterCommand(c)
	}
	for _, t := range s.Tools() {
		name := t.Name
		ext.RegisterTool(sdk.Tool{Name: name, Label: t.Label, Description: t.Description, Parameters: t.Parameters,
			PromptSnippet: t.PromptSnippet, PromptGuidelines: t.PromptGuidelines,
			Exposure: t.Exposure, Inactive: t.Inactive, ExecutionMode: t.ExecutionMode,
			Namespace: t.Namespace, Annotations: t.Annotations,
			Execute: func(c *sdk.Context, call sdk.ToolInvocation, update func(sdk.ToolOutput)) (sdk.ToolOutput, error) {
				res, err := s.executeTool(c, newSDKHost(c), name, call.ToolCallID, call.Args, func(r llm.ToolResult) { update(toOutput(r)) })
				if err != nil {
					return sdk.ToolOutput{}, err
				}
				return toOutput(res), nil
			}})
	}
	for _, f := range s.Flags() {
		ext.RegisterFlag(sdk.Flag{Name: f.Name, Description: f.Description, Type: f.Type, Default: f.Default})
	}
	for _, p := range s.Providers() {
		sp := sdk.Provider{Name: p.Name, Config: p.Config, VirtualModels: p.VirtualModels}
		if p.Streams {
			name := p.Name
			sp.Stream = func(c *sdk.Context, request map[string]any, update func(sdk.ToolOutput)) (sdk.ToolOutput, error) {
				res, err := s.streamProvider(c, newSDKHost(c), name, request, func(r llm.ToolResult) { update(toOutput(r)) })
				if err != nil {
					return sdk.ToolOutput{}, err
				}
				return toOutput(res), nil
			}
		}
		ext.RegisterProvider(sp)
	}
	for _, k := range s.Shortcuts() {
		key := k.Key
		ext.RegisterShortcut(sdk.Shortcut{Key: key, Description: k.Description, Run: func(c *sdk.Context) error {
			return s.runCommand(c, newSDKHost(c), key, "", true)
		}})
	}
	return ext
}

func toOutput(r llm.ToolResult) sdk.ToolOutput {
	out := sdk.ToolOutput{Details: r.Details, Content: []sdk.Block{}, Terminate: r.Terminate}
	b, _ := json.Marshal(r.Content)
	_ = json.Unmarshal(b, &out.Content)
	return out
}

// pendingHost serves calls made before the agent connected (none should
// be: action methods are refused while loading), except that it keeps the
// MCP servers the factory registers until the agent connects.
type pendingHost struct {
	sdkHost
	mu  sync.Mutex
	mcp []pendingMCP
}

type pendingMCP struct {
	name   string
	config json.RawMessage
}

// RegisterMCPServer keeps the server for the agent (it is validated there,
// when the agent connects; a failure is logged).
func (p *pendingHost) RegisterMCPServer(_, name string, config json.RawMessage) error {
	if name == "" {
		return fmt.Errorf("the server needs a name")
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.mcp = append(p.mcp, pendingMCP{name, append(json.RawMessage(nil), config...)})
	return nil
}

func (p *pendingHost) takeMCPServers() []pendingMCP {
	p.mu.Lock()
	defer p.mu.Unlock()
	m := p.mcp
	p.mcp = nil
	return m
}

func (p *pendingHost) HandlerContext() extensions.HandlerContext {
	cwd, _ := os.Getwd()
	return extensions.HandlerContext{Cwd: cwd, Mode: "rpc"}
}
