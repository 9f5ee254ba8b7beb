package grpcext

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"sync"
	"time"

	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/proto"

	"github.com/atomic-go/atomic/host/tools"
	pb "github.com/atomic-go/atomic/proto/atomic/plugin/v1"
)

// LaneCapability is listed in Describe by a host that passed an event
// lane to the plugin's process and by a plugin that reads it
// (plugin.proto, EventLaneFrame).
const LaneCapability = "events.lane"

// laneFDEnv names the lane's file descriptor in the plugin's environment.
const laneFDEnv = "ATOMIC_PLUGIN_EVENT_FD"

// eventLane carries HandleEvent calls to one plugin process as frames on a
// socket of their own: a call is one write and one read on each side,
// where a gRPC call opens an HTTP/2 stream and wakes the transport's
// reader and writer goroutines. Deadlines, errors and crash rules stay
// the caller's, as for the same call over gRPC.
type eventLane struct {
	conn net.Conn
	// token is held by the one goroutine writing a frame; a writer waits
	// for it with its own context, so a plugin that stopped reading
	// blocks no call beyond its deadline.
	token chan struct{}
	limit int

	mu      sync.Mutex
	next    uint64
	pending map[uint64]chan laneResult
	err     error // why the lane is down (no new calls)
}

type laneResult struct {
	resp *pb.HandleEventResponse
	err  error
}

// errLaneClosed is the lane's error once its instance is gone.
var errLaneClosed = errors.New("the event lane is closed")

// passLane gives the process that cmd starts an event lane (its end as
// fd 3, named in its environment; closed in the agent once r started it)
// and returns the agent's end, or nil when none could be made.
func (pr *Process) passLane(cmd *exec.Cmd, r *cmdRunner) net.Conn {
	conn, child, err := laneSockets()
	if err != nil {
		pr.log.Warn("no event lane: hook calls go through gRPC", "err", err)
		return nil
	}
	cmd.ExtraFiles = []*os.File{child} // fd 3
	cmd.Env = append(cmd.Env, laneFDEnv+"=3")
	r.afterStart = append(r.afterStart, child)
	return conn
}

// openLane serves the agent's end of a started process's lane until the
// process ends (a child of the plugin may still hold the other end open).
func openLane(conn net.Conn, alive context.Context) *eventLane {
	l := newEventLane(conn, laneLimit)
	context.AfterFunc(alive, l.close)
	return l
}

// hostCapabilities are HostCapabilities, with LaneCapability when the
// process was given a lane.
func (in *instance) hostCapabilities() []string {
	if in.lane == nil {
		return HostCapabilities
	}
	return append(append([]string(nil), HostCapabilities...), LaneCapability)
}

// newEventLane reads conn's frames until it is closed; frames from the
// plugin longer than limit bytes break the lane.
func newEventLane(conn net.Conn, limit int) *eventLane {
	l := &eventLane{conn: conn, token: make(chan struct{}, 1), limit: limit, pending: map[uint64]chan laneResult{}}
	go l.read()
	return l
}

// up reports whether new calls may use the lane.
func (l *eventLane) up() bool {
	if l == nil {
		return false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.err == nil
}

// call sends req and waits for its answer or for ctx. When ctx ends first
// the plugin is told (a cancel frame) and ctx's cause is returned.
func (l *eventLane) call(ctx context.Context, req *pb.HandleEventRequest) (*pb.HandleEventResponse, error) {
	l.mu.Lock()
	if l.err != nil {
		err := l.err
		l.mu.Unlock()
		return nil, err
	}
	l.next++
	id := l.next
	ch := make(chan laneResult, 1)
	l.pending[id] = ch
	l.mu.Unlock()
	frame, err := encodeLaneFrame(&pb.EventLaneFrame{Id: id, Metadata: laneMetadata(ctx), Request: req})
	if err == nil {
		err = l.write(ctx, frame)
	}
	if err != nil {
		l.forget(id)
		return nil, err
	}
	select {
	case r := <-ch:
		return r.resp, r.err
	case <-ctx.Done():
		if l.forget(id) {
			go l.cancel(id)
		}
		return nil, context.Cause(ctx)
	}
}

// cancel tells the plugin that call id is no longer waited for (best
// effort: a lane that cannot take the frame within a second is broken).
func (l *eventLane) cancel(id uint64) {
	frame, err := encodeLaneFrame(&pb.EventLaneFrame{Id: id, Cancel: true})
	if err != nil {
		return
	}
	ctx, stop := context.WithTimeout(context.Background(), time.Second)
	defer stop()
	_ = l.write(ctx, frame)
}

// forget drops call id; false when its answer or the lane's end came
// first.
func (l *eventLane) forget(id uint64) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	_, ok := l.pending[id]
	delete(l.pending, id)
	return ok
}

// aLongTimeAgo is a write deadline in the past: it ends a blocked write.
var aLongTimeAgo = time.Unix(1, 0)

// write writes one whole frame, or breaks the lane when a frame was torn.
func (l *eventLane) write(ctx context.Context, frame []byte) error {
	select {
	case l.token <- struct{}{}:
	case <-ctx.Done():
		return context.Cause(ctx)
	}
	defer func() { <-l.token }()
	_ = l.conn.SetWriteDeadline(time.Time{})
	fired := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		_ = l.conn.SetWriteDeadline(aLongTimeAgo)
		close(fired)
	})
	n, err := l.conn.Write(frame)
	if !stop() {
		<-fired
	}
	if err == nil {
		return nil
	}
	if n == 0 && ctx.Err() != nil {
		return context.Cause(ctx) // nothing written: the lane is still whole
	}
	err = fmt.Errorf("event lane: %w", err)
	l.fail(err)
	return err
}

// read delivers the plugin's answers until the lane breaks.
func (l *eventLane) read() {
	r := bufio.NewReaderSize(l.conn, 32<<10)
	var head [4]byte
	for {
		if _, err := io.ReadFull(r, head[:]); err != nil {
			l.fail(fmt.Errorf("event lane: %w", err))
			return
		}
		n := binary.BigEndian.Uint32(head[:])
		if uint64(n) > uint64(l.limit) {
			l.fail(fmt.Errorf("the plugin sent an event-lane frame of %d bytes: one message from a plugin may hold at most %s", n, tools.FormatSize(l.limit)))
			return
		}
		buf := make([]byte, n)
		if _, err := io.ReadFull(r, buf); err != nil {
			l.fail(fmt.Errorf("event lane: %w", err))
			return
		}
		var f pb.EventLaneFrame
		if err := proto.Unmarshal(buf, &f); err != nil {
			l.fail(fmt.Errorf("the plugin sent an event-lane frame that does not decode: %w", err))
			return
		}
		if f.Response == nil {
			continue // only answers travel this way
		}
		l.mu.Lock()
		ch := l.pending[f.Id]
		delete(l.pending, f.Id)
		l.mu.Unlock()
		if ch != nil {
			ch <- laneResult{resp: f.Response}
		}
	}
}

// fail takes the lane down: pending calls end with err, later calls go
// through gRPC.
func (l *eventLane) fail(err error) {
	l.mu.Lock()
	if l.err == nil {
		l.err = err
	}
	pending := l.pending
	l.pending = map[uint64]chan laneResult{}
	l.mu.Unlock()
	for _, ch := range pending {
		ch <- laneResult{err: err}
	}
	_ = l.conn.Close()
}

// close ends the lane with its instance.
func (l *eventLane) close() {
	if l != nil {
		l.fail(errLaneClosed)
	}
}

// encodeLaneFrame frames a lane message (either lane): its length as 4
// bytes big-endian, then its encoding.
func encodeLaneFrame(f proto.Message) ([]byte, error) {
	size := proto.Size(f)
	buf := make([]byte, 4, 4+size)
	binary.BigEndian.PutUint32(buf, uint32(size))
	return proto.MarshalOptions{}.MarshalAppend(buf, f)
}

// laneMetadata is the outgoing gRPC metadata of ctx as the frame carries
// it (the first value of each key).
func laneMetadata(ctx context.Context) map[string]string {
	md, ok := metadata.FromOutgoingContext(ctx)
	if !ok || len(md) == 0 {
		return nil
	}
	out := make(map[string]string, len(md))
	for k, v := range md {
		if len(v) > 0 {
			out[k] = v[0]
		}
	}
	return out
}

// laneLimit is the longest frame a plugin may send: the cap of one
// message on its gRPC connection.
const laneLimit = tools.MaxForeignMessage
