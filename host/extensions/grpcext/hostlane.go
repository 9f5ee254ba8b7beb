package grpcext

import (
	"bufio"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"os/exec"
	"strconv"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/atomic-go/atomic/host/tools"
	pb "github.com/atomic-go/atomic/proto/atomic/plugin/v1"
)

// hostLaneFDEnv names the host lane's file descriptor in the plugin's
// environment (plugin.proto, HostLaneFrame).
const hostLaneFDEnv = "ATOMIC_PLUGIN_HOST_FD"

const (
	// hostLaneReadTimeout is the receive timeout of the plugin's end: a
	// plugin blocked reading gives up after it (the host's deadline for a
	// call is shorter, so an answer comes first).
	hostLaneReadTimeout = 35 * time.Second
	// hostLaneDefaultTimeout is a call's deadline when the frame names none.
	hostLaneDefaultTimeout = 30 * time.Second
	// hostLaneAnswerLimit bounds one answer (the plugin's bound on a
	// synchronous answer, as plugin.proto says); a longer one is an error.
	hostLaneAnswerLimit = 64 << 20
)

// hostLane serves a plugin process's synchronous HostService calls: frames
// on a socket of its own that the plugin reads with blocking reads, so a
// call is one write and one read on each side, with no HTTP/2 stream and
// no thread in the plugin waiting for one. Each call runs through the
// HostService method's generated handler, as over gRPC.
type hostLane struct {
	conn  net.Conn
	alive context.Context
	limit int

	wmu sync.Mutex // one frame written at a time

	mu      sync.Mutex
	servers map[uint32]pb.HostServiceServer // by broker id
}

// unaryHostMethods are HostService's unary methods by name.
var unaryHostMethods = func() map[string]grpc.MethodDesc {
	m := map[string]grpc.MethodDesc{}
	for _, d := range pb.HostService_ServiceDesc.Methods {
		m[d.MethodName] = d
	}
	return m
}()

// passHostLane gives the process that cmd starts a host lane (its end as
// the next ExtraFiles descriptor, named in its environment; closed in the
// agent once r started it) and returns the agent's end, or nil when none
// could be made.
func (pr *Process) passHostLane(cmd *exec.Cmd, r *cmdRunner) net.Conn {
	conn, child, err := laneSockets()
	if err == nil {
		if err = setReadTimeout(child, hostLaneReadTimeout); err != nil {
			conn.Close()
			child.Close()
		}
	}
	if err != nil {
		pr.log.Warn("no host lane: synchronous host calls go through gRPC", "err", err)
		return nil
	}
	fd := 3 + len(cmd.ExtraFiles)
	cmd.ExtraFiles = append(cmd.ExtraFiles, child)
	cmd.Env = append(cmd.Env, hostLaneFDEnv+"="+strconv.Itoa(fd))
	r.afterStart = append(r.afterStart, child)
	return conn
}

// openHostLane serves the agent's end of a started process's host lane
// until the process ends.
func openHostLane(conn net.Conn, alive context.Context) *hostLane {
	l := &hostLane{conn: conn, alive: alive, limit: laneLimit, servers: map[uint32]pb.HostServiceServer{}}
	context.AfterFunc(alive, func() { _ = conn.Close() })
	go l.read()
	return l
}

// serve routes the calls for broker id to srv (the HostService of the
// plugin that was described with that id).
func (l *hostLane) serve(id uint32, srv pb.HostServiceServer) {
	if l == nil {
		return
	}
	l.mu.Lock()
	l.servers[id] = srv
	l.mu.Unlock()
}

// drop removes the route of broker id (its plugin detached, or did not
// describe itself).
func (l *hostLane) drop(id uint32) {
	if l == nil {
		return
	}
	l.mu.Lock()
	delete(l.servers, id)
	l.mu.Unlock()
}

// routes is how many plugins the lane serves (tests).
func (l *hostLane) routes() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.servers)
}

// useLane records the host lane route this plugin's calls take (the one
// of its last description), dropping the one it replaces.
func (p *Plugin) useLane(l *hostLane, id uint32) {
	p.mu.Lock()
	old, oldID := p.lane, p.laneID
	p.lane, p.laneID = l, id
	p.mu.Unlock()
	if old != nil && (old != l || oldID != id) {
		old.drop(oldID)
	}
}

// dropLane removes this plugin's host lane route (it detached: a shared
// process keeps no route per extension it ever served).
func (p *Plugin) dropLane() {
	p.mu.Lock()
	l, id := p.lane, p.laneID
	p.lane = nil
	p.mu.Unlock()
	l.drop(id)
}

// read runs each request until the lane ends.
func (l *hostLane) read() {
	defer l.conn.Close()
	r := bufio.NewReaderSize(l.conn, 32<<10)
	var head [4]byte
	for {
		if _, err := io.ReadFull(r, head[:]); err != nil {
			return
		}
		n := binary.BigEndian.Uint32(head[:])
		if uint64(n) > uint64(l.limit) {
			return // a torn or hostile stream: the plugin's calls fail, none is misread
		}
		buf := make([]byte, n)
		if _, err := io.ReadFull(r, buf); err != nil {
			return
		}
		f := new(pb.HostLaneFrame)
		if err := proto.Unmarshal(buf, f); err != nil {
			return
		}
		go l.answer(f)
	}
}

// answer runs one call and writes its answer.
func (l *hostLane) answer(f *pb.HostLaneFrame) {
	out := &pb.HostLaneFrame{Id: f.Id}
	resp, err := l.run(f)
	if err == nil {
		out.Response, err = proto.Marshal(resp)
		if err == nil && len(out.Response) > hostLaneAnswerLimit {
			out.Response, err = nil, fmt.Errorf("the answer is larger than %s", tools.FormatSize(hostLaneAnswerLimit))
		}
	}
	if err != nil {
		out.Response, out.Error = nil, status.Convert(err).Message()
		if out.Error == "" {
			out.Error = "the call failed"
		}
	}
	frame, err := encodeLaneFrame(out)
	if err != nil {
		return
	}
	l.wmu.Lock()
	defer l.wmu.Unlock()
	// A plugin that stopped reading must not hold this goroutine forever.
	_ = l.conn.SetWriteDeadline(time.Now().Add(hostLaneReadTimeout))
	if _, err := l.conn.Write(frame); err != nil {
		_ = l.conn.Close()
	}
}

// run calls the method through its generated handler, with the frame's
// metadata and deadline.
func (l *hostLane) run(f *pb.HostLaneFrame) (proto.Message, error) {
	l.mu.Lock()
	srv := l.servers[f.BrokerId]
	l.mu.Unlock()
	if srv == nil {
		return nil, fmt.Errorf("no host service %d on this lane", f.BrokerId)
	}
	desc, ok := unaryHostMethods[f.Method]
	if !ok {
		return nil, fmt.Errorf("HostService has no unary method %q", f.Method)
	}
	timeout := hostLaneDefaultTimeout
	if f.TimeoutMs > 0 {
		timeout = time.Duration(f.TimeoutMs) * time.Millisecond
	}
	ctx, cancel := context.WithTimeout(l.alive, timeout)
	defer cancel()
	ctx = metadata.NewIncomingContext(ctx, metadata.New(f.Metadata))
	dec := func(v any) error { return proto.Unmarshal(f.Request, v.(proto.Message)) }
	resp, err := desc.Handler(srv, ctx, dec, nil)
	if err != nil {
		return nil, err
	}
	m, ok := resp.(proto.Message)
	if !ok {
		return nil, fmt.Errorf("HostService.%s answered a %T", f.Method, resp)
	}
	return m, nil
}
