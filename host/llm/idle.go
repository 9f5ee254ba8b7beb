package llm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync/atomic"
	"time"
)

// DefaultIdleTimeout is pi 1.6's httpIdleTimeoutMs default.
const DefaultIdleTimeout = 5 * time.Minute

// idleTimeout is the httpIdleTimeoutMs setting in nanoseconds (0: none).
var idleTimeout atomic.Int64

func init() { idleTimeout.Store(int64(DefaultIdleTimeout)) }

// SetIdleTimeout sets how long a provider request may wait for its
// response headers, and then between two reads of its body, before it
// fails (httpIdleTimeoutMs; 0 turns the bound off).
func SetIdleTimeout(d time.Duration) { idleTimeout.Store(int64(max(d, 0))) }

// IdleError is the failure of a request whose provider sent nothing for
// the idle timeout. Its text reads as a connection error, so the request
// is retried as one.
type IdleError struct{ After time.Duration }

func (e *IdleError) Error() string {
	return fmt.Sprintf("connection error: the provider sent nothing for %s (httpIdleTimeoutMs)", e.After)
}

// idleTransport bounds the time a request waits for its headers and for
// each read of its body.
type idleTransport struct{ next http.RoundTripper }

func (t idleTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	d := time.Duration(idleTimeout.Load())
	if d <= 0 {
		return t.next.RoundTrip(r)
	}
	idle := &IdleError{After: d}
	ctx, cancel := context.WithCancelCause(r.Context())
	timer := time.AfterFunc(d, func() { cancel(idle) })
	resp, err := t.next.RoundTrip(r.WithContext(ctx))
	if err != nil {
		timer.Stop()
		if errors.Is(context.Cause(ctx), idle) {
			err = idle
		}
		cancel(nil)
		return nil, err
	}
	timer.Reset(d)
	resp.Body = &idleBody{rc: resp.Body, timer: timer, d: d, ctx: ctx, cancel: cancel, idle: idle}
	return resp, nil
}

type idleBody struct {
	rc     io.ReadCloser
	timer  *time.Timer
	d      time.Duration
	ctx    context.Context
	cancel context.CancelCauseFunc
	idle   *IdleError
}

func (b *idleBody) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	if n > 0 {
		b.timer.Reset(b.d)
	}
	if err != nil && err != io.EOF && errors.Is(context.Cause(b.ctx), b.idle) {
		err = b.idle
	}
	return n, err
}

func (b *idleBody) Close() error {
	b.timer.Stop()
	b.cancel(nil)
	return b.rc.Close()
}

// IdleTimeout is the httpIdleTimeoutMs setting (0: none), for streams that
// do not go through the agent's HTTP client (an extension's provider).
func IdleTimeout() time.Duration { return time.Duration(idleTimeout.Load()) }
