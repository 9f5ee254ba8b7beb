//go:build unix

package grpcext

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/proto"

	pb "github.com/atomic-go/atomic/proto/atomic/plugin/v1"
)

// lanePeer is the plugin's end of a lane, driven by the test.
type lanePeer struct {
	t    *testing.T
	conn net.Conn
	r    *bufio.Reader
}

func newLanePair(t *testing.T, limit int) (*eventLane, *lanePeer) {
	t.Helper()
	conn, child, err := laneSockets()
	if err != nil {
		t.Fatal(err)
	}
	peer, err := net.FileConn(child)
	child.Close()
	if err != nil {
		t.Fatal(err)
	}
	l := newEventLane(conn, limit)
	t.Cleanup(func() { l.close(); peer.Close() })
	return l, &lanePeer{t: t, conn: peer, r: bufio.NewReader(peer)}
}

func (p *lanePeer) next() *pb.EventLaneFrame {
	p.t.Helper()
	var head [4]byte
	if _, err := io.ReadFull(p.r, head[:]); err != nil {
		p.t.Fatal(err)
	}
	buf := make([]byte, binary.BigEndian.Uint32(head[:]))
	if _, err := io.ReadFull(p.r, buf); err != nil {
		p.t.Fatal(err)
	}
	var f pb.EventLaneFrame
	if err := proto.Unmarshal(buf, &f); err != nil {
		p.t.Fatal(err)
	}
	return &f
}

func (p *lanePeer) send(f *pb.EventLaneFrame) {
	p.t.Helper()
	b, err := encodeLaneFrame(f)
	if err != nil {
		p.t.Fatal(err)
	}
	if _, err := p.conn.Write(b); err != nil {
		p.t.Fatal(err)
	}
}

type callOutcome struct {
	resp *pb.HandleEventResponse
	err  error
}

func goCall(ctx context.Context, l *eventLane, req *pb.HandleEventRequest) chan callOutcome {
	out := make(chan callOutcome, 1)
	go func() {
		r, err := l.call(ctx, req)
		out <- callOutcome{r, err}
	}()
	return out
}

func TestLaneAnswersOutOfOrderWithMetadata(t *testing.T) {
	l, peer := newLanePair(t, 1<<20)
	ctx := metadata.AppendToOutgoingContext(context.Background(), "atomic-extension-id", "7")
	a := goCall(ctx, l, &pb.HandleEventRequest{Event: "tool_call", PayloadJson: []byte(`{"n":1}`)})
	fa := peer.next()
	b := goCall(ctx, l, &pb.HandleEventRequest{Event: "input"})
	fb := peer.next()
	if fa.Metadata["atomic-extension-id"] != "7" || fa.Request.GetEvent() != "tool_call" || string(fa.Request.GetPayloadJson()) != `{"n":1}` {
		t.Fatalf("first frame %v", fa)
	}
	if fa.Id == fb.Id {
		t.Fatalf("two calls share id %d", fa.Id)
	}
	// Answered the other way round: each call gets its own answer.
	peer.send(&pb.EventLaneFrame{Id: fb.Id, Response: &pb.HandleEventResponse{ResultJson: []byte(`"b"`)}})
	peer.send(&pb.EventLaneFrame{Id: fa.Id, Response: &pb.HandleEventResponse{Error: "boom"}})
	if got := <-b; got.err != nil || string(got.resp.ResultJson) != `"b"` {
		t.Fatalf("second call: %+v", got)
	}
	if got := <-a; got.err != nil || got.resp.Error != "boom" {
		t.Fatalf("first call: %+v", got)
	}
	if !l.up() {
		t.Fatal("the lane went down")
	}
}

func TestLaneDeadlineSendsCancel(t *testing.T) {
	l, peer := newLanePair(t, 1<<20)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	out := goCall(ctx, l, &pb.HandleEventRequest{Event: "tool_call"})
	req := peer.next()
	got := <-out
	if !errors.Is(got.err, context.DeadlineExceeded) {
		t.Fatalf("a call past its deadline: %+v", got)
	}
	if c := peer.next(); !c.Cancel || c.Id != req.Id {
		t.Fatalf("want a cancel of %d, got %v", req.Id, c)
	}
	// A late answer is dropped, and the lane still serves.
	peer.send(&pb.EventLaneFrame{Id: req.Id, Response: &pb.HandleEventResponse{}})
	next := goCall(context.Background(), l, &pb.HandleEventRequest{Event: "input"})
	f := peer.next()
	peer.send(&pb.EventLaneFrame{Id: f.Id, Response: &pb.HandleEventResponse{ResultJson: []byte("1")}})
	if got := <-next; got.err != nil || string(got.resp.ResultJson) != "1" {
		t.Fatalf("after a cancel: %+v", got)
	}
}

func TestLaneRefusesAnOversizedFrame(t *testing.T) {
	l, peer := newLanePair(t, 64)
	out := goCall(context.Background(), l, &pb.HandleEventRequest{Event: "tool_call"})
	peer.next()
	// Only the length is sent: the lane must refuse it unread.
	var head [4]byte
	binary.BigEndian.PutUint32(head[:], 1<<30)
	if _, err := peer.conn.Write(head[:]); err != nil {
		t.Fatal(err)
	}
	got := <-out
	if got.err == nil || !strings.Contains(got.err.Error(), "1073741824 bytes") {
		t.Fatalf("pending call after an oversized frame: %+v", got)
	}
	if l.up() {
		t.Fatal("the lane is still up")
	}
	if _, err := l.call(context.Background(), &pb.HandleEventRequest{}); err == nil {
		t.Fatal("a call on a broken lane succeeded")
	}
}

func TestLaneGarbageAndPeerEndFailPendingCalls(t *testing.T) {
	l, peer := newLanePair(t, 1<<20)
	out := goCall(context.Background(), l, &pb.HandleEventRequest{Event: "tool_call"})
	peer.next()
	if _, err := peer.conn.Write([]byte{0, 0, 0, 3, 0xff, 0xff, 0xff}); err != nil {
		t.Fatal(err)
	}
	if got := <-out; got.err == nil || !strings.Contains(got.err.Error(), "does not decode") {
		t.Fatalf("after garbage: %+v", got)
	}

	l2, peer2 := newLanePair(t, 1<<20)
	out2 := goCall(context.Background(), l2, &pb.HandleEventRequest{Event: "tool_call"})
	peer2.next()
	peer2.conn.Close()
	if got := <-out2; got.err == nil {
		t.Fatal("a call survived the plugin's end of the lane closing")
	}
}

func TestLaneWriteHonoursTheDeadlineWhenThePluginStopsReading(t *testing.T) {
	l, _ := newLanePair(t, 1<<20)
	// The peer never reads: a request larger than the socket's buffers
	// blocks in the middle of its write. The call must end with its
	// context, and the torn frame takes the lane down.
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	out := goCall(ctx, l, &pb.HandleEventRequest{Event: "tool_call", PayloadJson: make([]byte, 2<<20)})
	select {
	case got := <-out:
		if got.err == nil || !strings.Contains(got.err.Error(), "event lane") {
			t.Fatalf("want the lane's write error, got %+v", got)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a blocked write outlived its call's deadline")
	}
	if l.up() {
		t.Fatal("the lane is up after a torn frame")
	}
}
