package rpc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"sync"
	"time"

	"github.com/atomic-go/atomic/host/app"
	"github.com/atomic-go/atomic/host/events"
)

// bashDrainTimeout bounds how long abort_bash and shutdown wait for the
// cancelled commands to answer (killing a process group and reading what
// is left in its pipes normally takes well under a second).
const bashDrainTimeout = 10 * time.Second

// bashOwners tracks the direct bash requests of one server: the server,
// not the session, owns them, so session replacement neither cancels nor
// re-homes them.
type bashOwners struct {
	mu      sync.Mutex
	running map[*bashRun]struct{}
	closed  bool
}

type bashRun struct {
	id     []byte // compact JSON of the request id, nil when it had none
	cancel context.CancelFunc
	done   chan struct{} // closed once the response is queued
	once   sync.Once
}

// newBashOwners starts tracking the bash requests of a server; it also
// starts pruning old persisted output.
func newBashOwners(rt bashArea) *bashOwners {
	rt.PruneBashOutput()
	return &bashOwners{running: map[*bashRun]struct{}{}}
}

var errBashClosing = errors.New("The agent is shutting down")

// start registers a request; its context is cancelled by abort_bash or
// shutdown.
func (o *bashOwners) start(ctx context.Context, id json.RawMessage) (*bashRun, context.Context, error) {
	ctx, cancel := context.WithCancel(ctx)
	r := &bashRun{id: id, cancel: cancel, done: make(chan struct{})}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closed {
		cancel()
		return nil, nil, errBashClosing
	}
	o.running[r] = struct{}{}
	return r, ctx, nil
}

// finish unregisters a request whose response is queued.
func (o *bashOwners) finish(r *bashRun) {
	r.once.Do(func() {
		o.mu.Lock()
		delete(o.running, r)
		o.mu.Unlock()
		r.cancel()
		close(r.done)
	})
}

// cancel cancels the running requests with this id (every one when id is
// nil) and returns them.
func (o *bashOwners) cancel(id []byte) []*bashRun {
	o.mu.Lock()
	var hit []*bashRun
	for r := range o.running {
		if id == nil || (r.id != nil && bytes.Equal(r.id, id)) {
			hit = append(hit, r)
		}
	}
	o.mu.Unlock()
	for _, r := range hit {
		r.cancel()
	}
	return hit
}

func waitRuns(runs []*bashRun, timeout time.Duration) {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for _, r := range runs {
		select {
		case <-r.done:
		case <-deadline.C:
			return
		}
	}
}

// shutdown refuses new requests, cancels the running ones and waits until
// each has answered.
func (o *bashOwners) shutdown() {
	o.mu.Lock()
	o.closed = true
	o.mu.Unlock()
	waitRuns(o.cancel(nil), bashDrainTimeout)
}

// acceptedBash is what acceptBash leaves for the handler.
type acceptedBash struct {
	run *bashRun
	ctx context.Context
	err error
}

// acceptBash registers a request as it arrives, so that an abort_bash sent
// right after it cancels it.
func acceptBash(s *Server, req *Request) {
	run, ctx, err := s.bash.start(s.ctx, req.ID)
	req.Accepted = acceptedBash{run, ctx, err}
}

type bashCommand struct {
	Command            *string `json:"command"`
	ExcludeFromContext bool    `json:"excludeFromContext"`
}

// handleBash runs bash and user_bash: output streams as
// bash_execution_update events carrying the request's id, and the response
// (data: app.BashResult) is the terminal record.
func handleBash(ctx context.Context, s *Server, req *Request) (any, error) {
	acc, _ := req.Accepted.(acceptedBash)
	if acc.err != nil {
		return nil, acc.err
	}
	run, runCtx := acc.run, acc.ctx
	if run == nil { // dispatched without Accept
		var err error
		if run, runCtx, err = s.bash.start(ctx, req.ID); err != nil {
			return nil, err
		}
	}
	responded := false
	defer func() {
		if !responded { // error or panic: the response follows right away
			s.bash.finish(run)
		}
	}()
	var c bashCommand
	if err := req.Decode(&c); err != nil {
		return nil, err
	}
	if c.Command == nil {
		return nil, MissingField("command")
	}
	res, err := s.b.bash.RunBash(runCtx, app.BashRequest{
		Command: *c.Command, ExcludeFromContext: c.ExcludeFromContext,
		OnOutput: func(stream, text string) {
			s.SendEvent(events.BashExecutionUpdate{ID: req.ID, Channel: stream, Delta: text})
		},
	})
	if err != nil {
		return nil, err
	}
	responded = true
	req.After(func() { s.bash.finish(run) })
	return res, nil
}

// handleAbortBash cancels one bash request (requestId, matched against the
// request's JSON id) or, without requestId, every running one. It answers
// once the cancelled requests have answered. An unknown or finished id is
// not an error: there is nothing left to cancel.
func handleAbortBash(_ context.Context, s *Server, req *Request) (any, error) {
	var c struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	if err := req.Decode(&c); err != nil {
		return nil, err
	}
	id := compactID(c.RequestID)
	if bytes.Equal(id, []byte("null")) {
		id = nil
	}
	waitRuns(s.bash.cancel(id), bashDrainTimeout)
	return nil, nil
}
