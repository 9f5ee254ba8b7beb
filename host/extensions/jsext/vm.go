package jsext

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/dop251/goja"
	"github.com/dop251/goja_nodejs/eventloop"
	"github.com/dop251/goja_nodejs/require"
)

// errStopped is the value a stuck script is interrupted with.
var errStopped = errors.New("script stopped")

// vm is one goja runtime on its own event loop. Every piece of JavaScript
// runs in a job submitted through run (timers included), so the vm always
// knows whether JavaScript is running and since when, and can interrupt
// exactly the job that is stuck without ever leaving an interrupt behind
// for the next one.
type vm struct {
	loop *eventloop.EventLoop
	rt   *goja.Runtime // only used on the loop
	log  *slog.Logger
	// onStop is told (off the loop) about every interrupted job.
	onStop func()
	// base is the directory error positions are shown relative to.
	base string
	// done is closed when the vm is closed.
	done chan struct{}
	// memLimit is how much a job may grow the heap (bytes; 0: no limit).
	// Set before the first job.
	memLimit int64

	mu          sync.Mutex
	running     bool
	since       time.Time
	interrupted bool
	closed      bool

	// rejections are promises rejected without a handler during the
	// current job (reported when the job ends). Loop only.
	rejections []*goja.Promise
	// timers are the pending timers by id (timers.go). Loop only.
	timers timerTable
}

func newVM(reg *require.Registry, log *slog.Logger) *vm {
	v := &vm{log: log, done: make(chan struct{})}
	v.loop = eventloop.NewEventLoop(eventloop.WithRegistry(reg), eventloop.EnableConsole(false))
	v.loop.Start()
	ready := make(chan struct{})
	v.loop.RunOnLoop(func(r *goja.Runtime) {
		v.rt = r
		r.SetPromiseRejectionTracker(v.trackRejection)
		v.installTimers(r)
		close(ready)
	})
	<-ready
	return v
}

// run schedules fn on the loop as a guarded job. It returns false when the
// vm is closed.
func (v *vm) run(fn func(r *goja.Runtime)) bool {
	v.mu.Lock()
	closed := v.closed
	v.mu.Unlock()
	if closed {
		return false
	}
	return v.loop.RunOnLoop(func(r *goja.Runtime) { v.guard(func() { fn(r) }) })
}

// guard runs fn as one job: it marks the vm busy, recovers Go panics (a
// bug in a native function must not take the agent down) and clears an
// interrupt aimed at this job before the next one starts.
func (v *vm) guard(fn func()) {
	v.mu.Lock()
	if v.closed {
		v.mu.Unlock()
		return
	}
	v.running, v.since = true, time.Now()
	v.mu.Unlock()
	scriptMemory.begin(v)
	defer func() {
		scriptMemory.end(v)
		if p := recover(); p != nil {
			v.log.Error("script runtime: internal error", "panic", p, "stack", string(debug.Stack()))
		}
		v.reportRejections()
		v.mu.Lock()
		v.running = false
		stopped := v.interrupted
		if stopped {
			v.rt.ClearInterrupt()
			v.interrupted = false
		}
		v.mu.Unlock()
		if stopped {
			v.log.Warn("script interrupted: it ran past a deadline or over its memory budget")
			if v.onStop != nil {
				go v.onStop()
			}
		}
	}()
	fn()
}

// interruptIfStuck stops the running job if it has been running for at
// least minRun (a job that started recently belongs to someone else and
// is making progress). It reports whether it interrupted.
func (v *vm) interruptIfStuck(minRun time.Duration) bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	if !v.running || v.interrupted || time.Since(v.since) < minRun {
		return false
	}
	v.interrupted = true
	v.rt.Interrupt(errStopped)
	return true
}

// interruptForMemory stops the running job: it made the heap grow past
// the script's budget.
func (v *vm) interruptForMemory() {
	v.mu.Lock()
	defer v.mu.Unlock()
	if !v.running || v.interrupted {
		return
	}
	v.interrupted = true
	v.rt.Interrupt(errMemory)
}

// close stops the loop. A job that is stuck is interrupted first so that
// the loop can stop.
func (v *vm) close() {
	v.mu.Lock()
	if v.closed {
		v.mu.Unlock()
		return
	}
	v.closed = true
	close(v.done)
	if v.running && !v.interrupted {
		v.interrupted = true
		v.rt.Interrupt(errStopped)
	}
	v.mu.Unlock()
	done := make(chan struct{})
	go func() {
		v.loop.Terminate()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		v.log.Warn("script runtime did not stop in time")
	}
}

func (v *vm) trackRejection(p *goja.Promise, op goja.PromiseRejectionOperation) {
	switch op {
	case goja.PromiseRejectionReject:
		v.rejections = append(v.rejections, p)
	case goja.PromiseRejectionHandle:
		v.forgetRejection(p)
	}
}

func (v *vm) forgetRejection(p *goja.Promise) {
	for i, q := range v.rejections {
		if q == p {
			v.rejections = append(v.rejections[:i], v.rejections[i+1:]...)
			return
		}
	}
}

func (v *vm) reportRejections() {
	for _, p := range v.rejections {
		v.log.Warn("unhandled promise rejection in script", "error", thrownText(p.Result(), v.base))
	}
	v.rejections = v.rejections[:0]
}

func exportOf[T any](v goja.Value) (T, bool) {
	var zero T
	if v == nil || goja.IsUndefined(v) || goja.IsNull(v) {
		return zero, false
	}
	t, ok := v.Export().(T)
	return t, ok
}

// settle calls done with the value once it is settled: at once for a
// plain value or a settled promise, from a promise reaction otherwise.
// It runs on the loop; done runs on the loop too.
func (v *vm) settle(r *goja.Runtime, val goja.Value, done func(val goja.Value, rejected bool)) {
	p, ok := exportOf[*goja.Promise](val)
	if !ok {
		done(val, false)
		return
	}
	switch p.State() {
	case goja.PromiseStateFulfilled:
		done(p.Result(), false)
		return
	case goja.PromiseStateRejected:
		v.forgetRejection(p)
		done(p.Result(), true)
		return
	}
	then, _ := goja.AssertFunction(val.(*goja.Object).Get("then"))
	onOK := r.ToValue(func(x goja.Value) { done(x, false) })
	onErr := r.ToValue(func(x goja.Value) { done(x, true) })
	if _, err := then(val, onOK, onErr); err != nil {
		done(r.ToValue(err.Error()), true)
	}
}

// await runs start on the loop and waits for its (possibly asynchronous)
// result, converted by finish on the loop. When ctx ends first, a job
// stuck in JavaScript since before is interrupted and ctx's error is
// returned (or the interrupted job's error, which names the line).
func (v *vm) await(ctx context.Context, start func(r *goja.Runtime) (goja.Value, error), finish func(r *goja.Runtime, val goja.Value, rejected bool) (any, error)) (any, error) {
	type result struct {
		v   any
		err error
	}
	ch := make(chan result, 1)
	ok := v.run(func(r *goja.Runtime) {
		val, err := start(r)
		if err != nil {
			ch <- result{err: err}
			return
		}
		v.settle(r, val, func(val goja.Value, rejected bool) {
			out, err := finish(r, val, rejected)
			ch <- result{out, err}
		})
	})
	if !ok {
		return nil, errClosed
	}
	select {
	case res := <-ch:
		return res.v, res.err
	case <-v.done:
		return nil, errClosed
	case <-ctx.Done():
		// Stop whatever has kept the loop busy for a while, and give the
		// interrupted job a moment to say where it was.
		if v.interruptIfStuck(stuckAfter) {
			select {
			case res := <-ch:
				if res.err != nil {
					return nil, res.err
				}
			case <-time.After(time.Second):
			}
		}
		return nil, ctx.Err()
	}
}

// stuckAfter is how long a job must have been running before a missed
// deadline interrupts it (jobs that started just now are someone else's,
// and progressing).
const stuckAfter = 50 * time.Millisecond

var errClosed = errors.New("the script is stopped")

// errorText describes an error from goja: the message and, for script
// exceptions, the position (source-mapped to the original file, shown
// relative to base).
func errorText(err error, base string) string {
	var ie *goja.InterruptedError
	if errors.As(err, &ie) {
		what := "stopped: the script ran too long"
		if ie.Value() == errMemory {
			what = "stopped: the script used too much memory (see the extension's memoryLimitMB)"
		}
		if pos := firstPosition(ie.Stack(), base); pos != "" {
			return what + " (at " + pos + ")"
		}
		return what
	}
	var ex *goja.Exception
	if errors.As(err, &ex) {
		if obj, ok := ex.Value().(*goja.Object); ok {
			if st := obj.Get("stack"); st != nil && !goja.IsUndefined(st) {
				return thrownText(obj, base)
			}
		}
		msg := describeValue(ex.Value())
		if pos := firstPosition(ex.Stack(), base); pos != "" {
			return msg + " (" + pos + ")"
		}
		return msg
	}
	return err.Error()
}

// thrownMessage is a thrown value's message alone.
func thrownMessage(val goja.Value) string { return describeValue(val) }

// thrownText is a thrown value's message and, for Error objects, the
// first script position of its stack.
func thrownText(val goja.Value, base string) string {
	msg := describeValue(val)
	if obj, ok := val.(*goja.Object); ok {
		if st := obj.Get("stack"); st != nil && !goja.IsUndefined(st) {
			if pos := positionInStack(st.String(), base); pos != "" {
				return msg + " (" + pos + ")"
			}
		}
	}
	return msg
}

// describeValue is a thrown value's message: an Error's "name: message"
// (just the message for plain Errors and Go errors), otherwise its string
// form.
func describeValue(val goja.Value) string {
	if val == nil {
		return "undefined"
	}
	if obj, ok := val.(*goja.Object); ok {
		msg := obj.Get("message")
		if msg != nil && !goja.IsUndefined(msg) {
			name := obj.Get("name")
			if name != nil && !goja.IsUndefined(name) {
				if n := name.String(); n != "Error" && n != "GoError" {
					return n + ": " + msg.String()
				}
			}
			return msg.String()
		}
	}
	return val.String()
}

// firstPosition is the first frame of the stack that is script code.
func firstPosition(stack []goja.StackFrame, base string) string {
	for i := range stack {
		f := stack[i]
		p := f.Position()
		if p.Filename == "" || p.Line == 0 || isInternalSource(p.Filename) {
			continue
		}
		// Every script file is transformed with a source map, and mapped
		// columns come back 0-based.
		return fmt.Sprintf("%s:%d:%d", displayPath(p.Filename, base), p.Line, p.Column+1)
	}
	return ""
}

// positionInStack finds the first script position in an Error's stack
// text ("\tat fn (file:line:col(pc))" lines).
func positionInStack(stack, base string) string {
	for _, line := range strings.Split(stack, "\n") {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "at ") {
			continue
		}
		loc := strings.TrimPrefix(line, "at ")
		if i := strings.LastIndex(loc, " ("); i >= 0 && strings.HasSuffix(loc, ")") {
			loc = loc[i+2 : len(loc)-1]
		}
		if i := strings.LastIndex(loc, "("); i >= 0 && strings.HasSuffix(loc, ")") {
			loc = loc[:i] // the program counter
		}
		if loc == "native" || isInternalSource(loc) || !strings.Contains(loc, ":") {
			continue
		}
		file, lc := loc, ""
		if i := strings.LastIndex(loc, ":"); i > 0 {
			if j := strings.LastIndex(loc[:i], ":"); j > 0 {
				file = loc[:j]
				lc = loc[j : i+1]
				if col, err := strconv.Atoi(loc[i+1:]); err == nil {
					lc += strconv.Itoa(col + 1) // mapped columns are 0-based
				} else {
					lc += loc[i+1:]
				}
			}
		}
		return displayPath(file, base) + lc
	}
	return ""
}
