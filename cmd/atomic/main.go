// Command atomic is the coding agent. With --mode rpc it serves the
// JSON-lines protocol on stdin and stdout; with -p it runs one prompt and
// prints the answer; with --mode json it prints the event stream.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/atomic-go/atomic/host/app"
	"github.com/atomic-go/atomic/host/events"
	"github.com/atomic-go/atomic/host/extensions"
	"github.com/atomic-go/atomic/host/llm"
	"github.com/atomic-go/atomic/host/rpc"
)

// atExit runs just before the process exits (builds with -tags pprof
// write their profiles here; see profile.go).
var atExit []func()

func main() {
	code := run(os.Args[1:])
	for _, fn := range atExit {
		fn()
	}
	os.Exit(code)
}

func run(args []string) int {
	// Before anything else, so that no child and no other process of the
	// user can reach our descriptors through /proc (private_linux.go).
	privErr := makePrivate()
	if len(args) > 0 && args[0] == app.ScriptServeCommand {
		// A script extension with "isolation": "process", started by the
		// agent itself.
		return app.ServeScriptChild(args[1:])
	}
	if code, ok := packageCommand(args, os.Stdout, os.Stderr); ok {
		return code
	}
	if len(args) > 0 && args[0] == "mcp" {
		return runMCP(args[1:], os.Stdout, os.Stderr) // mcp.go
	}
	if len(args) > 0 && args[0] == "auth" {
		return runAuth(args[1:], os.Stdin, os.Stdout, os.Stderr) // auth.go
	}
	if len(args) == 1 && args[0] == "help" { // "atomic help me with x" is a prompt
		args = []string{"--help"}
	}
	if err := checkCommandWord(args); err != nil { // subcommands.go
		fmt.Fprintln(os.Stderr, "atomic:", err)
		return 2
	}
	stderr := os.Stderr
	f, err := parseFlags(args, os.Stdout, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "atomic:", err)
		return 2
	}
	if f.help {
		printExtensionFlags(f, os.Stdout, stderr) // help.go
		return 0
	}
	if f.version {
		fmt.Fprintln(os.Stdout, "atomic", buildVersion())
		return 0
	}
	if f.export != "" {
		return exportSession(f, os.Stdout, stderr) // oneshot.go
	}
	if f.listModels != nil {
		return listModels(f, os.Stdout, stderr) // oneshot.go
	}
	mode := f.mode
	if f.print && mode != app.ModeJSON { // -p with --mode json: json wins
		mode = app.ModePrint
	}
	piped := stdinIsPiped()
	switch mode {
	case "", "text":
		// As pi 1.6, --mode text selects text output and still opens the
		// terminal UI when stdin and stdout are terminals (-p forces
		// one-shot).
		if !piped && stdoutIsTerminal() {
			// A person at a terminal: the interactive UI (tui.go).
			mode = app.ModeTUI
			break
		}
		if len(f.messages) == 0 && !piped {
			fmt.Fprintln(stderr, "atomic: nothing to do. Use --mode rpc to serve the protocol, or -p \"message\" to run one prompt (see --help).")
			return 2
		}
		mode = app.ModePrint
	case app.ModeRPC, app.ModeJSON, app.ModePrint, modeACP:
	default:
		fmt.Fprintf(stderr, "atomic: unknown mode %q (use rpc, acp, json or print)\n", mode)
		return 2
	}

	if f.resume && mode != app.ModeTUI {
		fmt.Fprintln(stderr, "atomic: --resume opens the terminal UI's session list, which needs a terminal; use --session <id or prefix> or -c")
		return 2
	}
	if _, files := splitFileArgs(f.messages); len(files) > 0 && (mode == app.ModeRPC || mode == modeACP) {
		fmt.Fprintf(stderr, "atomic: @file arguments are not supported in %s mode\n", mode)
		return 1
	}
	var prompts []app.PromptInput
	if mode == app.ModeTUI {
		wd, _ := os.Getwd()
		if prompts, err = initialPrompts(f.messages, "", wd); err != nil {
			fmt.Fprintln(stderr, "atomic:", err)
			return 1
		}
	}
	if mode == app.ModePrint || mode == app.ModeJSON {
		var stdin string
		if piped {
			if stdin, err = readPiped(os.Stdin); err != nil {
				fmt.Fprintln(stderr, "atomic:", err)
				return 1
			}
		}
		wd, _ := os.Getwd()
		if prompts, err = initialPrompts(f.messages, stdin, wd); err != nil {
			fmt.Fprintln(stderr, "atomic:", err)
			return 1
		}
		if len(prompts) == 0 {
			fmt.Fprintln(stderr, "atomic: no prompt given")
			return 2
		}
	}

	if mode == app.ModeTUI && f.logFile == "" {
		// The screen belongs to the UI: logs go to a file.
		f.logFile = tuiLogFile()
	}
	logger, closeLog, err := newLogger(f, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "atomic:", err)
		return 2
	}
	defer closeLog()
	if privErr != nil {
		logger.Warn("cannot make the process non-dumpable; other processes of the user can reach its descriptors through /proc", "err", privErr)
	}

	// The protocol owns stdout: keep a private descriptor for it and point
	// descriptor 1 at stderr, so that nothing else (libraries, child
	// processes) can write into the protocol stream. Likewise stdin is
	// kept private and children get /dev/null.
	protoOut, protoIn := os.Stdout, os.Stdin
	if mode == app.ModeTUI {
		// The terminal is the UI's alone: it keeps private descriptors of
		// it, and descriptors 1 and 2 (libraries, child processes, a
		// crash) point at the log file.
		if protoOut, protoIn, err = takeOverTerminal(f.logFile); err != nil {
			fmt.Fprintln(stderr, "atomic:", err)
			return 1
		}
		stderr = protoOut
	} else if mode != app.ModePrint {
		if protoOut, protoIn, err = takeOverStdio(); err != nil {
			logger.Warn("cannot isolate stdio; continuing with the inherited descriptors", "err", err)
			protoOut, protoIn = os.Stdout, os.Stdin
		}
	}
	signal.Ignore(syscall.SIGPIPE) // write errors instead of dying silently

	cwd, err := os.Getwd()
	if err != nil {
		fmt.Fprintln(stderr, "atomic:", err)
		return 1
	}
	overrides := map[string]any{}
	if f.sessionDir != "" {
		overrides["sessionDir"] = f.sessionDir
	}
	tools := f.activeTools()
	// app.New decides project trust and then loads the settings (the
	// project's file only in a trusted project).
	rt, err := app.New(app.Options{
		Cwd: cwd, Mode: mode, SettingsOverrides: overrides,
		Provider: f.provider, Model: f.model, ThinkingLevel: f.thinking, Models: f.modelPatterns(),
		NoSession: f.noSession, SessionPath: f.session, SessionID: f.sessionID, Fork: f.fork, Continue: f.continueLatest, SessionName: f.name,
		Tools: tools, NoTools: f.noTools, NoBuiltinTools: f.noBuiltinTools, ExcludeTools: f.excludedTools(), NoMCP: f.noMCP, APIKey: f.apiKey,
		SystemPrompt: readTextOrFile(f.systemPrompt), AppendSystemPrompt: appendedSystemPrompt(f.appendSystem),
		Skills: f.skills, PromptTemplates: f.promptTmpls,
		NoSkills: f.noSkills, NoPromptTemplates: f.noPrompts, NoContextFiles: f.noContextFiles,
		Extensions: f.extensions, NoExtensions: f.noExtensions, Trust: f.trust(), Offline: f.offline,
		ExtensionFlags: f.extensionFlags(), HostVersion: buildVersion(),
		Log: logger,
	})
	if err != nil {
		fmt.Fprintln(stderr, "atomic:", err)
		return 1
	}

	if len(f.unknown) > 0 {
		// One warning naming every unknown flag that no extension
		// registered, once they have loaded (old clients pass some). A
		// prompt waits for the extensions anyway; the protocol modes do
		// not wait for the warning.
		if mode == app.ModeRPC || mode == modeACP {
			go warnUnknownFlags(rt, f, stderr)
		} else {
			warnUnknownFlags(rt, f, stderr)
		}
	}

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	defer stop()
	go func() {
		// After the first signal the agent shuts down gracefully; a second
		// one gets the default action and ends the process at once.
		<-ctx.Done()
		stop()
	}()

	switch mode {
	case app.ModeRPC:
		return serveRPC(ctx, rt, protoIn, protoOut, logger)
	case modeACP:
		return serveACP(ctx, rt, protoIn, protoOut, logger)
	case app.ModeTUI:
		return runTUI(ctx, rt, prompts, f.resume, protoIn, protoOut, logger)
	default:
		return runOnce(ctx, rt, mode, prompts, protoOut, stderr)
	}
}

// frontEnd is what serve runs: a protocol server (rpc or acp) reading in
// until EOF or cancellation.
type frontEnd interface {
	Serve(ctx context.Context, in io.Reader) error
}

// serve runs one protocol front end over the runtime: a failed write to
// stdout or an extension's ctx.shutdown() ends it; the exit status is 1
// when stdout failed. newServer builds the server with the write-failure
// callback.
func serve(ctx context.Context, rt *app.Runtime, in io.Reader, logger *slog.Logger, newServer func(onWriteErr func(error)) frontEnd) int {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var writeFailed atomic.Bool
	srv := newServer(func(err error) {
		logger.Error("cannot write to stdout; shutting down", "err", err)
		writeFailed.Store(true)
		cancel()
	})
	go func() {
		// An extension asked the agent to exit (ctx.shutdown()).
		select {
		case <-rt.ShutdownRequested():
			logger.Info("an extension asked the agent to shut down")
			cancel()
		case <-ctx.Done():
		}
	}()
	if err := srv.Serve(ctx, in); err != nil {
		logger.Error("reading stdin failed", "err", err)
	}
	if writeFailed.Load() {
		return 1
	}
	return 0
}

func serveRPC(ctx context.Context, rt *app.Runtime, in io.Reader, out io.Writer, logger *slog.Logger) int {
	return serve(ctx, rt, in, logger, func(onWriteErr func(error)) frontEnd {
		return rpc.NewServer(rt, out, onWriteErr)
	})
}

// runOnce runs the prompts of print and json mode in order, each once the
// one before has finished, and prints the last answer (print mode).
func runOnce(ctx context.Context, rt *app.Runtime, mode string, prompts []app.PromptInput, out io.Writer, stderr io.Writer) int {
	var w *rpc.Writer
	if mode == app.ModeJSON {
		w = rpc.NewWriter(out, nil)
		rt.Subscribe(func(ev events.Event) {
			if b, err := events.Encode(ev); err == nil {
				w.Send(b)
			}
		})
		rt.SetUI(onceUI{notify: func(params map[string]any) {
			if b, err := notifyRecord(params); err == nil {
				w.Send(b)
			}
		}})
	} else {
		// What an extension shows (notifications, the messages it sends
		// for display) goes to stdout as it comes, before the answer.
		var mu sync.Mutex
		show := func(line string) {
			mu.Lock()
			defer mu.Unlock()
			fmt.Fprintln(out, line)
		}
		rt.SetUI(onceUI{notify: func(params map[string]any) { show(notifyText(params)) }})
		rt.Subscribe(func(ev events.Event) {
			if end, ok := ev.(events.MessageEnd); ok && end.Message.Role == llm.RoleCustom && end.Message.Display {
				if text := end.Message.Text(); text != "" {
					show(text)
				}
			}
		})
	}
	if mode == app.ModePrint {
		// Retries are said on stderr as they happen (the answer may be
		// a while in coming).
		rt.Subscribe(func(ev events.Event) {
			if r, ok := ev.(events.AutoRetryStart); ok {
				fmt.Fprintf(stderr, "atomic: %s; retrying in %s (attempt %d of %d)\n", r.ErrorMessage, time.Duration(r.DelayMs)*time.Millisecond, r.Attempt, r.MaxAttempts)
			}
		})
	}
	var last *llm.Message
	rt.Subscribe(func(ev events.Event) {
		if end, ok := ev.(events.MessageEnd); ok && end.Message.Role == llm.RoleAssistant {
			m := end.Message
			last = &m
		}
	})
	for _, p := range prompts {
		start, err := rt.Prompt(p)
		if err != nil {
			rt.Close()
			fmt.Fprintln(stderr, "atomic:", err)
			return 1
		}
		if start != nil {
			start()
		}
		done := make(chan struct{})
		go func() {
			_ = rt.WaitIdle(context.Background())
			close(done)
		}()
		select {
		case <-done:
		case <-ctx.Done():
			rt.Close()
			<-done
		}
		if ctx.Err() != nil {
			break
		}
	}
	rt.Close()
	if w != nil {
		w.WatchStall(2 * time.Second)
		_ = w.Close()
	}
	if last != nil && (last.StopReason == llm.StopError || last.StopReason == llm.StopAborted) {
		fmt.Fprintln(stderr, "atomic:", last.ErrorMessage)
		return 1
	}
	if mode == app.ModePrint {
		if text, ok := rt.LastAssistantText(); ok {
			fmt.Fprintln(out, text)
		}
	}
	return 0
}

func newLogger(f *cliFlags, stderr io.Writer) (*slog.Logger, func(), error) {
	levelName := f.logLevel
	if levelName == "" {
		levelName = os.Getenv("ATOMIC_LOG_LEVEL")
	}
	level := slog.LevelWarn
	if levelName != "" {
		if err := level.UnmarshalText([]byte(levelName)); err != nil {
			return nil, nil, fmt.Errorf("invalid log level %q (use debug, info, warn, error)", levelName)
		}
	}
	var w io.Writer = stderr
	closer := func() {}
	if f.logFile != "" {
		lf, err := os.OpenFile(f.logFile, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			return nil, nil, err
		}
		w = lf
		closer = func() { lf.Close() }
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: level})), closer, nil
}

// takeOverStdio moves the protocol streams to private close-on-exec
// descriptors and points descriptors 0 and 1 at /dev/null and stderr.
//
// Pipes (what clients connect) are reopened rather than duplicated: a new
// open file description of the same pipe, private to this process, which
// Go reads and writes through its poller. That saves an OS-thread hand-off
// on every record (a get_state round trip takes about half the time) and
// leaves the flags of the inherited descriptions alone (a client or a
// shell may share those).
func takeOverStdio() (out *os.File, in *os.File, err error) {
	out = reopenPipe(1, os.O_WRONLY)
	if out == nil {
		outFD, err := dupCloexec(1)
		if err != nil {
			return nil, nil, err
		}
		out = os.NewFile(uintptr(outFD), "protocol-out")
	}
	in = reopenPipe(0, os.O_RDONLY)
	if in == nil {
		inFD, err := dupCloexec(0)
		if err != nil {
			out.Close()
			return nil, nil, err
		}
		in = os.NewFile(uintptr(inFD), "protocol-in")
	}
	if err := syscall.Dup2(2, 1); err != nil {
		out.Close()
		in.Close()
		return nil, nil, err
	}
	nullStdin()
	return out, in, nil
}

// nullStdin points descriptor 0 at /dev/null (children read nothing).
func nullStdin() {
	if devnull, err := os.Open(os.DevNull); err == nil {
		_ = syscall.Dup2(int(devnull.Fd()), 0)
		devnull.Close()
	}
}

// reopenPipe opens a new description of the pipe behind fd (through
// /proc/self/fd; Go makes it non-blocking and polls it). It returns nil
// when fd is not a pipe or cannot be reopened; then the caller duplicates
// the descriptor as it is.
func reopenPipe(fd int, flag int) *os.File {
	var st syscall.Stat_t
	if syscall.Fstat(fd, &st) != nil || st.Mode&syscall.S_IFMT != syscall.S_IFIFO {
		return nil
	}
	f, err := os.OpenFile("/proc/self/fd/"+strconv.Itoa(fd), flag|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil
	}
	return f
}

func dupCloexec(fd int) (int, error) {
	nfd, _, errno := syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_DUPFD_CLOEXEC, 3)
	if errno != 0 {
		return -1, errors.New(errno.Error())
	}
	return int(nfd), nil
}

// onceUI is the extension UI of print and json modes: notifications are
// shown, every dialog is cancelled (ctx.hasUI is false there, as in pi).
type onceUI struct{ notify func(params map[string]any) }

func (u onceUI) Request(_ context.Context, method string, params map[string]any) (extensions.UIAnswer, error) {
	if method == "notify" {
		u.notify(params)
		return extensions.UIAnswer{}, nil
	}
	return extensions.UIAnswer{Cancelled: true}, nil
}

// notifyText is a notification as print mode shows it: the message, with
// "Warning: " or "Error: " before it for those levels.
func notifyText(params map[string]any) string {
	msg, _ := params["message"].(string)
	switch params["notifyType"] {
	case "warning":
		return "Warning: " + msg
	case "error":
		return "Error: " + msg
	}
	return msg
}

// notifyRecord is a notification as json mode writes it: the record RPC
// mode sends for it (extension_ui_request, method notify, no answer
// expected).
func notifyRecord(params map[string]any) ([]byte, error) {
	rec := map[string]any{"type": "extension_ui_request", "method": "notify"}
	for k, v := range params {
		if k != "type" && k != "method" {
			rec[k] = v
		}
	}
	return json.Marshal(rec)
}
