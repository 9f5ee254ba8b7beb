package hostsvc

import (
	"context"
	"testing"

	"github.com/atomic-go/atomic/host/extensions"
	pb "github.com/atomic-go/atomic/proto/atomic/plugin/v1"
)

// slowHost's Abort and RequestShutdown block until release is closed, as
// a run that waits for the very plugin that asked does.
type slowHost struct {
	extensions.Host // the methods the tests do not use
	release         chan struct{}
	aborted, ended  chan struct{}
	abortErr        error // the abort's context's error when it ran
}

func newSlowHost() *slowHost {
	return &slowHost{release: make(chan struct{}), aborted: make(chan struct{}), ended: make(chan struct{})}
}

func (h *slowHost) Abort(ctx context.Context) { <-h.release; h.abortErr = ctx.Err(); close(h.aborted) }
func (h *slowHost) RequestShutdown()          { <-h.release; close(h.ended) }

// TestAbortAndShutdownDoNotWaitForTheHost: the plugin's call is answered
// before the host has stopped the run (which may be waiting for that
// plugin), and the host's work still happens afterwards.
func TestAbortAndShutdownDoNotWaitForTheHost(t *testing.T) {
	h := newSlowHost()
	s := &Server{Host: h}
	ctx, cancel := context.WithCancel(context.Background())
	if _, err := s.Abort(ctx, &pb.AbortRequest{}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Shutdown(ctx, &pb.ShutdownRequest{}); err != nil {
		t.Fatal(err)
	}
	cancel() // the call's context ends with the call, not the abort's
	close(h.release)
	<-h.aborted
	<-h.ended
	if h.abortErr != nil {
		t.Fatalf("the abort ran with an ended context: %v", h.abortErr)
	}
}
