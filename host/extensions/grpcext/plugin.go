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
	"net"
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
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/atomic-go/atomic/host/extensions"
	"github.com/atomic-go/atomic/host/extensions/hostsvc"
	"github.com/atomic-go/atomic/host/tools"
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
var HostCapabilities = []string{"ui", "exec", "session.read", "tool.streaming", "deadline.pause", "events.per_handler", "tools.builtin"}

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
	proc := r.NewProcess(spec.Command, spec.Dir, nil, false, nil)
	return r.Attach(ctx, proc, spec, host, nil)
}

func (r *Runtime) logger() *slog.Logger {
	if r.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return r.Log
}

// NewProcess returns a plugin process, not started yet. A process that is
// not shared serves the one plugin attached to it and ends with it; a
// shared one serves every plugin attached (each call names its extension
// with metadata the caller adds) and ends when the last one is closed.
// env is added to the process's environment. onCrash, when set, is told
// when the process died without being asked to (it restarts on the next
// use of any of its plugins, see Plugin.Restart; the crash rules are
// those of every plugin: backoff, disabled after MaxCrashes).
func (r *Runtime) NewProcess(command []string, dir string, env []string, shared bool, onCrash func(why string)) *Process {
	name := "plugin"
	if len(command) > 0 {
		name = filepath.Base(command[len(command)-1])
	}
	return &Process{rt: r, command: command, dir: dir, env: env, shared: shared, onCrash: onCrash,
		log: r.logger().With("process", name), users: map[*Plugin]bool{}}
}

// Attach starts proc if needed and loads one extension served by it: md is
// sent with its Describe call (gRPC metadata), as a shared process needs
// to know which extension to load.
func (r *Runtime) Attach(ctx context.Context, proc *Process, spec extensions.Spec, host extensions.Host, md map[string]string) (*Plugin, error) {
	p := &Plugin{rt: r, proc: proc, spec: spec, host: host, describeMD: md, log: r.logger().With("extension", filepath.Base(spec.Path))}
	if !proc.shared {
		proc.log = p.log
	}
	proc.attach(p)
	if _, err := p.ensure(ctx); err != nil {
		proc.detach(p)
		return nil, err
	}
	return p, nil
}

// Plugin is one plugin extension.
type Plugin struct {
	rt         *Runtime
	proc       *Process
	spec       extensions.Spec
	host       extensions.Host
	log        *slog.Logger
	describeMD map[string]string

	describeMu sync.Mutex // serialises Describe calls
	mu         sync.Mutex
	desc       *pb.DescribeResponse
	descGen    uint64 // the process start desc was described by
	// lane and laneID: the host lane route of the last description.
	lane   *hostLane
	laneID uint32

	calls  sync.Map // call id → context of the hook call
	callID atomic.Uint64
	// deadNoted is set once the disabled state was reported for a
	// notification; later notifications are dropped silently.
	deadNoted atomic.Bool
	// off is set when the plugin alone was disabled (Disable).
	off atomic.Pointer[error]
}

// Process is a plugin process: its start, crash watch, restart with
// backoff and disabling after repeated crashes.
type Process struct {
	rt      *Runtime
	command []string
	dir     string
	env     []string
	shared  bool
	onCrash func(why string)
	log     *slog.Logger
	// EventLane, set before the first Attach, passes each start of the
	// process an event lane (plugin.proto, EventLaneFrame) that its
	// plugins use for HandleEvent when they list LaneCapability.
	EventLane bool
	// HostLane, set before the first Attach, passes each start of the
	// process a host lane (plugin.proto, HostLaneFrame) for its plugins'
	// synchronous HostService calls.
	HostLane bool

	startMu sync.Mutex // serialises starts
	mu      sync.Mutex
	inst    *instance
	gen     uint64
	crashes []time.Time
	retryAt time.Time
	dead    error // set when disabled
	closed  bool
	started bool // a process was started once
	users   map[*Plugin]bool
	// busyAtExit are the plugins that had a call running when the
	// process last exited (the likely cause in a shared process).
	busyAtExit map[*Plugin]bool
}

type instance struct {
	client *plugin.Client
	pc     pb.PluginServiceClient
	broker *plugin.GRPCBroker
	conn   *grpc.ClientConn
	runner *cmdRunner
	gen    uint64
	// lane carries HandleEvent calls when the process was given one and
	// its plugin lists LaneCapability (nil: gRPC only).
	lane *eventLane
	// hostLane serves the process's synchronous HostService calls when it
	// was given one (nil: gRPC only).
	hostLane *hostLane
	// alive ends when the process exits.
	alive  context.Context
	stop   context.CancelCauseFunc
	killed atomic.Bool
}

// errExited is the cause of calls cut short by the plugin's death.
type errExited struct{ status string }

func (e errExited) Error() string { return "extension process exited (" + e.status + ")" }

func (pr *Process) attach(p *Plugin) {
	pr.mu.Lock()
	pr.users[p] = true
	pr.closed = false
	pr.mu.Unlock()
}

// detach removes a plugin; the process ends with its last plugin. The
// ending instance is the process's no more: a plugin attached while it
// is being killed (a shared process's next extension) starts a new one
// instead of describing itself to one that is going away.
func (pr *Process) detach(p *Plugin) {
	p.dropLane()
	pr.mu.Lock()
	delete(pr.users, p)
	last := len(pr.users) == 0
	var in *instance
	if last {
		pr.closed = true
		in, pr.inst = pr.inst, nil
		if in != nil {
			in.killed.Store(true)
		}
	}
	pr.mu.Unlock()
	if in != nil {
		killPlugin(in.client, in.runner)
	}
}

// Restart starts the plugin's process again if it is not running (after a
// crash, within the crash rules) and describes the plugin again.
func (p *Plugin) Restart(ctx context.Context) error {
	_, err := p.ensure(ctx)
	return err
}

// ensure returns a running instance that has described this plugin,
// starting (or restarting) the process.
func (p *Plugin) ensure(ctx context.Context) (*instance, error) {
	if err := p.off.Load(); err != nil {
		return nil, *err
	}
	in, err := p.proc.ensure(ctx)
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	ok := p.desc != nil && p.descGen == in.gen
	p.mu.Unlock()
	if ok {
		return in, nil
	}
	p.describeMu.Lock()
	defer p.describeMu.Unlock()
	p.mu.Lock()
	ok = p.desc != nil && p.descGen == in.gen
	restart := p.desc != nil
	p.mu.Unlock()
	if ok {
		return in, nil
	}
	desc, err := p.describe(ctx, in)
	if err != nil {
		if !p.proc.shared {
			p.proc.discard(in, restart, err)
		}
		return nil, err
	}
	p.mu.Lock()
	p.desc, p.descGen = desc, in.gen
	p.mu.Unlock()
	if restart {
		p.log.Info("extension restarted")
	}
	return in, nil
}

func (pr *Process) ensure(ctx context.Context) (*instance, error) {
	pr.mu.Lock()
	if pr.dead != nil {
		pr.mu.Unlock()
		return nil, pr.dead
	}
	if pr.closed {
		pr.mu.Unlock()
		return nil, errors.New("extension is shut down")
	}
	if in := pr.inst; in != nil && in.alive.Err() == nil {
		pr.mu.Unlock()
		return in, nil
	}
	wait := time.Until(pr.retryAt)
	pr.mu.Unlock()
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
	pr.startMu.Lock()
	defer pr.startMu.Unlock()
	pr.mu.Lock()
	if in := pr.inst; in != nil && in.alive.Err() == nil {
		pr.mu.Unlock()
		return in, nil
	}
	restart := pr.inst != nil
	pr.gen++
	gen := pr.gen
	pr.mu.Unlock()
	in, err := pr.start(ctx, gen)
	if err != nil {
		if restart {
			pr.crashed("restart failed: " + err.Error())
		}
		return nil, err
	}
	pr.mu.Lock()
	pr.inst, pr.started = in, true
	pr.mu.Unlock()
	go pr.watch(in)
	return in, nil
}

// discard kills an instance that cannot be used (its plugin did not
// describe itself), counting a crash when it was a restart.
func (pr *Process) discard(in *instance, restart bool, err error) {
	in.killed.Store(true)
	killPlugin(in.client, in.runner)
	if restart {
		pr.crashed("restart failed: " + err.Error())
	}
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

func (pr *Process) start(ctx context.Context, gen uint64) (*instance, error) {
	prog, err := checkCommand(pr.command)
	if err != nil {
		return nil, err
	}
	startTimeout := 10 * time.Second
	if dl, ok := ctx.Deadline(); ok {
		startTimeout = time.Until(dl)
	}
	stderr := newLogWriter(pr.log, "stderr")
	stdout := newLogWriter(pr.log, "stdout")
	var rr *cmdRunner
	var laneConn, hostConn net.Conn // the host's ends of the lanes passed
	closeLane := func() {
		for _, c := range []net.Conn{laneConn, hostConn} {
			if c != nil {
				c.Close()
			}
		}
	}
	client := plugin.NewClient(&plugin.ClientConfig{
		HandshakeConfig:  plugin.HandshakeConfig{ProtocolVersion: sdk.ProtocolVersion, MagicCookieKey: sdk.MagicCookieKey, MagicCookieValue: sdk.MagicCookieValue},
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
			// go-plugin lifts gRPC's receive limit to 2 GiB; one message
			// from a plugin is refused unread above the documented cap
			// (after go-plugin's options, so this one applies).
			grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(tools.MaxForeignMessage)),
		},
		RunnerFunc: func(l hclog.Logger, spec *exec.Cmd, _ string) (runner.Runner, error) {
			// go-plugin hands over a template carrying the environment
			// (handshake cookie, protocol versions); run the real program.
			cmd := exec.Command(prog, pr.command[1:]...)
			cmd.Dir = pr.dir
			cmd.Env = append(spec.Env, pr.env...)
			r, err := newRunner(l, cmd)
			rr = r
			if err == nil && pr.EventLane {
				laneConn = pr.passLane(cmd, r)
			}
			if err == nil && pr.HostLane {
				hostConn = pr.passHostLane(cmd, r)
			}
			return r, err
		},
	})
	proto, err := client.Client()
	if err != nil {
		closeLane()
		if dep := stderr.missingDependency(500 * time.Millisecond); dep != "" {
			// The real reason, not the handshake that never came.
			killPlugin(client, rr)
			return nil, fmt.Errorf("plugin cannot start: a dependency is missing: %s (install the plugin's dependencies, e.g. npm install in %s)", dep, pr.dir)
		}
		killPlugin(client, rr)
		return nil, fmt.Errorf("plugin failed to start: %v", cleanStartError(err))
	}
	raw, err := proto.Dispense(sdk.PluginName)
	if err != nil {
		closeLane()
		killPlugin(client, rr)
		return nil, fmt.Errorf("plugin does not serve %q: %w", sdk.PluginName, err)
	}
	conn := raw.(*pluginConn)
	alive, stop := context.WithCancelCause(context.Background())
	in := &instance{client: client, pc: conn.pc, broker: conn.broker, conn: conn.conn, runner: rr, alive: alive, stop: stop, gen: gen}
	if laneConn != nil {
		in.lane = openLane(laneConn, alive)
	}
	if hostConn != nil {
		in.hostLane = openHostLane(hostConn, alive)
	}
	if rr != nil {
		go func() {
			<-rr.exited
			status := "exit status 0"
			if rr.err != nil {
				status = rr.err.Error()
			}
			pr.noteBusy()
			stop(errExited{status: status})
		}()
	}
	return in, nil
}

// describe serves the HostService for this plugin through the broker and
// asks the plugin to describe itself.
func (p *Plugin) describe(ctx context.Context, in *instance) (*pb.DescribeResponse, error) {
	brokerID := in.broker.NextId()
	host := p.hostServer()
	in.hostLane.serve(brokerID, host)
	go in.broker.AcceptAndServe(brokerID, func(opts []grpc.ServerOption) *grpc.Server {
		s := grpc.NewServer(append(opts, grpc.MaxRecvMsgSize(tools.MaxForeignMessage))...)
		pb.RegisterHostServiceServer(s, host)
		return s
	})
	startTimeout := 10 * time.Second
	if dl, ok := ctx.Deadline(); ok {
		startTimeout = time.Until(dl)
	}
	dctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	if len(p.describeMD) > 0 {
		md, _ := metadata.FromOutgoingContext(dctx)
		md = md.Copy()
		for k, v := range p.describeMD {
			md.Set(k, v)
		}
		dctx = metadata.NewOutgoingContext(dctx, md)
	}
	desc, err := in.pc.Describe(dctx, &pb.DescribeRequest{
		ProtocolVersion: sdk.ProtocolVersion, HostCapabilities: in.hostCapabilities(), HostBrokerId: brokerID,
		HostVersion: p.rt.HostVersion, FlagValues: p.rt.FlagValues, Context: p.handlerContext(""),
	})
	if err == nil {
		err = validate(desc)
	} else {
		err = fmt.Errorf("plugin did not describe itself: %w", p.callError(in, err))
	}
	if err != nil {
		in.hostLane.drop(brokerID)
		return nil, err
	}
	p.useLane(in.hostLane, brokerID)
	return desc, nil
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
				return fmt.Errorf("tool %s: parameters are not a JSON Schema object: %w", t.Name, err)
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
	if st, ok := status.FromError(err); ok && st.Code() == codes.ResourceExhausted {
		return fmt.Errorf("the plugin's message was refused (%s): one message from a plugin may hold at most %s",
			st.Message(), tools.FormatSize(tools.MaxForeignMessage))
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
	return hostsvc.HandlerContext(p.host.HandlerContext(), callID)
}

// updateRegistrations replaces the registration fields of the plugin's
// description (HostService.UpdateRegistrations).
func (p *Plugin) updateRegistrations(d *pb.DescribeResponse) error {
	if err := validate(d); err != nil {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.desc == nil {
		return errors.New("the plugin has not been described yet")
	}
	old := p.desc
	// A new value (readers hold the old one without the lock).
	p.desc = &pb.DescribeResponse{
		Name: old.Name, Version: old.Version, ProtocolVersion: old.ProtocolVersion, Capabilities: old.Capabilities,
		TimeoutsMs: old.TimeoutsMs,
		Events:     d.Events, Commands: d.Commands, Tools: d.Tools, Flags: d.Flags, HandlerCounts: d.HandlerCounts,
		Providers: d.Providers, Shortcuts: d.Shortcuts,
	}
	return nil
}

// Close implements extensions.Extension.
func (p *Plugin) Close() error {
	p.proc.detach(p)
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
func (p *Plugin) Pid() int { return p.proc.Pid() }

// Ping asks the running process whether it is serving (go-plugin's health
// service); it fails when no process runs or it does not answer within
// ctx.
func (pr *Process) Ping(ctx context.Context) error {
	pr.mu.Lock()
	in := pr.inst
	pr.mu.Unlock()
	if in == nil || in.alive.Err() != nil {
		return errors.New("not running")
	}
	_, err := grpc_health_v1.NewHealthClient(in.conn).Check(ctx, &grpc_health_v1.HealthCheckRequest{Service: "plugin"})
	return err
}

// Kill ends the running process as a crash (a watchdog's verdict): its
// pending calls fail, and the crash rules apply.
func (pr *Process) Kill() {
	pr.mu.Lock()
	in := pr.inst
	pr.mu.Unlock()
	if in != nil && in.runner != nil {
		_ = in.runner.Kill(context.Background())
	}
}

// Pid returns the process id of the running process (0 when none).
func (pr *Process) Pid() int {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	if pr.inst == nil || pr.inst.runner == nil || pr.inst.runner.cmd.Process == nil {
		return 0
	}
	return pr.inst.runner.cmd.Process.Pid
}

// Started reports whether the process was started once (whether or not
// it still runs): a plugin that failed got as far as its own code.
func (pr *Process) Started() bool {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	return pr.started
}

// hostPlugin is the host side of the go-plugin plugin.
type hostPlugin struct {
	plugin.NetRPCUnsupportedPlugin
}

type pluginConn struct {
	pc     pb.PluginServiceClient
	broker *plugin.GRPCBroker
	conn   *grpc.ClientConn
}

func (hostPlugin) GRPCServer(*plugin.GRPCBroker, *grpc.Server) error {
	return errors.New("the host side serves no plugin")
}

func (hostPlugin) GRPCClient(_ context.Context, broker *plugin.GRPCBroker, conn *grpc.ClientConn) (any, error) {
	return &pluginConn{pc: pb.NewPluginServiceClient(conn), broker: broker, conn: conn}, nil
}
