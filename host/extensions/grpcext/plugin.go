// Package grpcext runs extensions as separate processes speaking the
// plugin protocol (proto/atomic/plugin/v1) over gRPC through
// hashicorp/go-plugin. A plugin gets no standard input and none of its
// output reaches the agent's standard output (both of its output streams
// go to the agent's log under the plugin's name). A plugin that dies fails
// its pending calls at once, is restarted with backoff on its next use and
// is disabled after repeated crashes.
package grpcext

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"
	plugin "github.com/hashicorp/go-plugin"
	"github.com/hashicorp/go-plugin/runner"
	"google.golang.org/grpc"

	"github.com/atomic-go/atomic/host/extensions"
	pb "github.com/atomic-go/atomic/proto/atomic/plugin/v1"
	"github.com/atomic-go/atomic/sdk"
)

// Crash policy.
const (
	// MaxCrashes within CrashWindow disables a plugin.
	MaxCrashes  = 3
	CrashWindow = 10 * time.Minute
	// Backoff before the first restart; it doubles with every crash.
	firstBackoff = 100 * time.Millisecond
	maxBackoff   = 10 * time.Second
)

// HostCapabilities are what this agent offers plugins.
var HostCapabilities = []string{"ui", "exec", "session.read", "tool.streaming", "deadline.pause"}

// Runtime loads plugin executables.
type Runtime struct {
	Log         *slog.Logger
	HostVersion string
	// FlagValues are the command-line values of extension flags (name
	// without dashes → value).
	FlagValues map[string]string
}

// Accepts implements extensions.Runtime.
func (r *Runtime) Accepts(s *extensions.Spec) bool { return s.Kind == extensions.KindPlugin }

// Load implements extensions.Runtime: it starts the plugin and asks it to
// describe itself.
func (r *Runtime) Load(ctx context.Context, spec extensions.Spec, host extensions.Host) (extensions.Extension, error) {
	log := r.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	p := &Plugin{rt: r, spec: spec, host: host, log: log.With("extension", filepath.Base(spec.Path))}
	if _, err := p.ensure(ctx); err != nil {
		return nil, err
	}
	return p, nil
}

// Plugin is one plugin extension.
type Plugin struct {
	rt   *Runtime
	spec extensions.Spec
	host extensions.Host
	log  *slog.Logger

	startMu sync.Mutex // serialises starts
	mu      sync.Mutex
	inst    *instance
	desc    *pb.DescribeResponse
	crashes []time.Time
	retryAt time.Time
	dead    error // set when disabled
	closed  bool

	calls  sync.Map // call id → context of the hook call
	callID atomic.Uint64
	// deadNoted is set once the disabled state was reported for a
	// notification; later notifications are dropped silently.
	deadNoted atomic.Bool
}

type instance struct {
	client *plugin.Client
	pc     pb.PluginServiceClient
	runner *cmdRunner
	// alive ends when the process exits.
	alive  context.Context
	stop   context.CancelCauseFunc
	killed atomic.Bool
}

// errExited is the cause of calls cut short by the plugin's death.
type errExited struct{ status string }

func (e errExited) Error() string { return "extension process exited (" + e.status + ")" }

func (p *Plugin) disabled() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.dead
}

// ensure returns a running instance, starting (or restarting) the plugin.
func (p *Plugin) ensure(ctx context.Context) (*instance, error) {
	p.mu.Lock()
	if p.dead != nil {
		p.mu.Unlock()
		return nil, p.dead
	}
	if p.closed {
		p.mu.Unlock()
		return nil, errors.New("extension is shut down")
	}
	if in := p.inst; in != nil && in.alive.Err() == nil {
		p.mu.Unlock()
		return in, nil
	}
	wait := time.Until(p.retryAt)
	p.mu.Unlock()
	if wait > 0 {
		if dl, ok := ctx.Deadline(); ok && time.Until(dl) < wait {
			return nil, fmt.Errorf("extension crashed and restarts in %v", wait.Round(time.Millisecond))
		}
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	p.startMu.Lock()
	defer p.startMu.Unlock()
	p.mu.Lock()
	if in := p.inst; in != nil && in.alive.Err() == nil {
		p.mu.Unlock()
		return in, nil
	}
	restart := p.inst != nil
	p.mu.Unlock()
	in, desc, err := p.start(ctx)
	if err != nil {
		if restart {
			p.crashed("restart failed: " + err.Error())
		}
		return nil, err
	}
	p.mu.Lock()
	p.inst, p.desc = in, desc
	p.mu.Unlock()
	if restart {
		p.log.Info("extension restarted")
	}
	go p.watch(in)
	return in, nil
}

// checkCommand gives clear errors for a missing or non-executable program.
func checkCommand(cmd []string) (string, error) {
	if len(cmd) == 0 {
		return "", errors.New("no command to start the plugin")
	}
	prog := cmd[0]
	if filepath.IsAbs(prog) {
		st, err := os.Stat(prog)
		if err != nil {
			return "", fmt.Errorf("plugin program not found: %s", prog)
		}
		if st.IsDir() || st.Mode()&0o111 == 0 {
			return "", fmt.Errorf("plugin program is not executable: %s", prog)
		}
		return prog, nil
	}
	path, err := exec.LookPath(prog)
	if err != nil {
		return "", fmt.Errorf("plugin program %q not found in PATH", prog)
	}
	return path, nil
}

func (p *Plugin) start(ctx context.Context) (*instance, *pb.DescribeResponse, error) {
	prog, err := checkCommand(p.spec.Command)
	if err != nil {
		return nil, nil, err
	}
	startTimeout := 10 * time.Second
	if dl, ok := ctx.Deadline(); ok {
		startTimeout = time.Until(dl)
	}
	stderr := newLogWriter(p.log, "stderr")
	stdout := newLogWriter(p.log, "stdout")
	var rr *cmdRunner
	client := plugin.NewClient(&plugin.ClientConfig{
		HandshakeConfig:  sdk.Handshake,
		Plugins:          plugin.PluginSet{sdk.PluginName: &hostPlugin{}},
		AllowedProtocols: []plugin.Protocol{plugin.ProtocolGRPC},
		Logger:           hclog.NewNullLogger(),
		Stderr:           stderr,
		SyncStdout:       stdout,
		SyncStderr:       stderr,
		StartTimeout:     startTimeout,
		// Fixed flow-control windows turn off gRPC's bandwidth probing
		// (a ping per received message), which costs a wake-up on both
		// sides of every small call.
		GRPCDialOptions: []grpc.DialOption{
			grpc.WithInitialWindowSize(1 << 20), grpc.WithInitialConnWindowSize(1 << 20),
		},
		RunnerFunc: func(l hclog.Logger, spec *exec.Cmd, _ string) (runner.Runner, error) {
			// go-plugin hands over a template carrying the environment
			// (handshake cookie, protocol versions); run the real program.
			cmd := exec.Command(prog, p.spec.Command[1:]...)
			cmd.Dir = p.spec.Dir
			cmd.Env = spec.Env
			r, err := newRunner(l, cmd)
			rr = r
			return r, err
		},
	})
	fail := func(err error) (*instance, *pb.DescribeResponse, error) {
		killPlugin(client, rr)
		return nil, nil, err
	}
	proto, err := client.Client()
	if err != nil {
		return fail(fmt.Errorf("plugin failed to start: %v", cleanStartError(err)))
	}
	raw, err := proto.Dispense(sdk.PluginName)
	if err != nil {
		return fail(fmt.Errorf("plugin does not serve %q: %v", sdk.PluginName, err))
	}
	conn := raw.(*pluginConn)
	alive, stop := context.WithCancelCause(context.Background())
	in := &instance{client: client, pc: conn.pc, runner: rr, alive: alive, stop: stop}
	if rr != nil {
		go func() {
			<-rr.exited
			status := "exit status 0"
			if rr.err != nil {
				status = rr.err.Error()
			}
			stop(errExited{status: status})
		}()
	}
	brokerID := conn.broker.NextId()
	go conn.broker.AcceptAndServe(brokerID, func(opts []grpc.ServerOption) *grpc.Server {
		s := grpc.NewServer(opts...)
		pb.RegisterHostServiceServer(s, &hostServer{p: p})
		return s
	})
	dctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	desc, err := in.pc.Describe(dctx, &pb.DescribeRequest{
		ProtocolVersion: sdk.ProtocolVersion, HostCapabilities: HostCapabilities, HostBrokerId: brokerID,
		HostVersion: p.rt.HostVersion, FlagValues: p.rt.FlagValues, Context: p.handlerContext(""),
	})
	if err != nil {
		return fail(fmt.Errorf("plugin did not describe itself: %v", p.callError(in, err)))
	}
	if err := validate(desc); err != nil {
		return fail(err)
	}
	return in, desc, nil
}

func cleanStartError(err error) string {
	msg := err.Error()
	if len(msg) > 600 {
		msg = msg[:600] + "…"
	}
	return msg
}

// validate rejects descriptions the agent cannot use.
func validate(d *pb.DescribeResponse) error {
	if d.ProtocolVersion != 0 && d.ProtocolVersion != sdk.ProtocolVersion {
		return fmt.Errorf("plugin speaks protocol version %d; this agent speaks version %d", d.ProtocolVersion, sdk.ProtocolVersion)
	}
	for _, t := range d.Tools {
		if t.Name == "" {
			return errors.New("plugin registered a tool without a name")
		}
		var schema map[string]any
		if len(t.ParametersJson) > 0 {
			if err := json.Unmarshal(t.ParametersJson, &schema); err != nil {
				return fmt.Errorf("tool %s: parameters are not a JSON Schema object: %v", t.Name, err)
			}
		}
	}
	for _, c := range d.Commands {
		if c.Name == "" {
			return errors.New("plugin registered a command without a name")
		}
	}
	return nil
}

// watch records a crash when the process dies without being asked to.
func (p *Plugin) watch(in *instance) {
	<-in.alive.Done()
	if in.killed.Load() {
		return
	}
	p.mu.Lock()
	closed := p.closed
	p.mu.Unlock()
	if closed {
		return
	}
	killPlugin(in.client, in.runner) // release go-plugin's resources
	p.crashed(context.Cause(in.alive).Error())
}

func (p *Plugin) crashed(why string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	var recent []time.Time
	for _, t := range p.crashes {
		if now.Sub(t) < CrashWindow {
			recent = append(recent, t)
		}
	}
	recent = append(recent, now)
	p.crashes = recent
	if len(recent) >= MaxCrashes {
		p.dead = fmt.Errorf("extension disabled after %d crashes in %v (last: %s); restart the agent to try again", len(recent), CrashWindow, why)
		p.log.Error("extension disabled", "reason", p.dead)
		return
	}
	backoff := firstBackoff << (len(recent) - 1)
	if backoff > maxBackoff {
		backoff = maxBackoff
	}
	p.retryAt = now.Add(backoff)
	p.log.Warn("extension crashed; it restarts on next use", "reason", why, "backoff", backoff)
}

// callError explains a failed call: the process died, the call was
// cancelled, or the plugin answered with an error status.
func (p *Plugin) callError(in *instance, err error) error {
	select {
	case <-in.alive.Done():
		return context.Cause(in.alive)
	case <-time.After(50 * time.Millisecond):
		// A broken connection may be seen just before the exit.
	}
	if in.alive.Err() != nil {
		return context.Cause(in.alive)
	}
	return err
}

func (p *Plugin) newCall(ctx context.Context) (string, func()) {
	id := strconv.FormatUint(p.callID.Add(1), 10)
	p.calls.Store(id, ctx)
	return id, func() { p.calls.Delete(id) }
}

// callContext is ctx, also cancelled when the process exits.
func callContext(ctx context.Context, in *instance) (context.Context, func()) {
	cctx, cancel := context.WithCancelCause(ctx)
	stop := context.AfterFunc(in.alive, func() { cancel(context.Cause(in.alive)) })
	return cctx, func() { stop(); cancel(nil) }
}

func (p *Plugin) handlerContext(callID string) *pb.HandlerContext {
	hc := p.host.HandlerContext()
	out := &pb.HandlerContext{
		Cwd: hc.Cwd, Mode: hc.Mode, HasUi: hc.HasUI, SessionId: hc.SessionID, SessionFile: hc.SessionFile,
		ThinkingLevel: hc.ThinkingLevel, IsIdle: hc.IsIdle, CallId: callID, ProjectTrusted: hc.ProjectTrusted,
	}
	if hc.Model != nil {
		out.ModelJson, _ = json.Marshal(hc.Model)
	}
	return out
}

// Close implements extensions.Extension.
func (p *Plugin) Close() error {
	p.mu.Lock()
	p.closed = true
	in := p.inst
	p.mu.Unlock()
	if in != nil {
		in.killed.Store(true)
		killPlugin(in.client, in.runner)
	}
	return nil
}

// killGrace bounds go-plugin's graceful shutdown of a plugin. Its Kill asks
// the plugin to exit over gRPC and waits for the answer with no deadline of
// its own, so a plugin that is stopped (SIGSTOP) or wedged would hold the
// agent's shutdown forever.
var killGrace = 3 * time.Second

// killPlugin ends a plugin: gracefully through go-plugin, then with
// SIGKILL if that has not finished within killGrace.
func killPlugin(client *plugin.Client, r *cmdRunner) {
	done := make(chan struct{})
	go func() {
		client.Kill()
		close(done)
	}()
	t := time.NewTimer(killGrace)
	defer t.Stop()
	select {
	case <-done:
		return
	case <-t.C:
	}
	if r != nil {
		_ = r.Kill(context.Background())
	}
	<-done
}

// Pid returns the process id of the running plugin (0 when none), for
// tests and diagnostics.
func (p *Plugin) Pid() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.inst == nil || p.inst.runner == nil || p.inst.runner.cmd.Process == nil {
		return 0
	}
	return p.inst.runner.cmd.Process.Pid
}

// hostPlugin is the host side of the go-plugin plugin.
type hostPlugin struct {
	plugin.NetRPCUnsupportedPlugin
}

type pluginConn struct {
	pc     pb.PluginServiceClient
	broker *plugin.GRPCBroker
}

func (hostPlugin) GRPCServer(*plugin.GRPCBroker, *grpc.Server) error {
	return errors.New("the host side serves no plugin")
}

func (hostPlugin) GRPCClient(_ context.Context, broker *plugin.GRPCBroker, conn *grpc.ClientConn) (any, error) {
	return &pluginConn{pc: pb.NewPluginServiceClient(conn), broker: broker}, nil
}
