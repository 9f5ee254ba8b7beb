package hooks

import (
	"context"
	"sync"
	"time"
)

// deadline is a cancellable context whose timer can be paused while the
// handler waits for the user (a dialog must not eat a hook's time budget).
type deadline struct {
	mu        sync.Mutex
	cancel    context.CancelCauseFunc
	timer     *time.Timer
	remaining time.Duration
	started   time.Time
	paused    int
	stopped   bool
}

type deadlineKey struct{}

func withDeadline(parent context.Context, d time.Duration) (context.Context, *deadline) {
	ctx, cancel := context.WithCancelCause(parent)
	dl := &deadline{cancel: cancel, remaining: d, started: time.Now()}
	dl.timer = time.AfterFunc(d, func() { cancel(ErrTimeout) })
	return context.WithValue(ctx, deadlineKey{}, dl), dl
}

func (d *deadline) stop() {
	d.mu.Lock()
	d.stopped = true
	d.timer.Stop()
	d.mu.Unlock()
	d.cancel(context.Canceled)
}

func (d *deadline) pause() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.stopped {
		return
	}
	if d.paused == 0 && d.timer.Stop() {
		d.remaining -= time.Since(d.started)
	}
	d.paused++
}

func (d *deadline) resume() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.stopped || d.paused == 0 {
		return
	}
	d.paused--
	if d.paused == 0 {
		if d.remaining < 0 {
			d.remaining = 0
		}
		d.started = time.Now()
		d.timer.Reset(d.remaining)
	}
}

// PauseDeadline stops the clock of the hook call that ctx belongs to (if
// any) until the returned function is called. Runtimes call it while a
// handler waits for a UI dialog.
func PauseDeadline(ctx context.Context) (resume func()) {
	dl, _ := ctx.Value(deadlineKey{}).(*deadline)
	if dl == nil {
		return func() {}
	}
	dl.pause()
	var once sync.Once
	return func() { once.Do(dl.resume) }
}
