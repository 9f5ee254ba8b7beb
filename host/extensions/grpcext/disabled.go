package grpcext

import (
	"context"
	"fmt"
	"time"
)

// The crash rules of a plugin process and the disabled state: a crash is
// counted and the process restarts on next use after a backoff; too many
// crashes within CrashWindow disable it; a plugin of a shared process can
// be disabled alone (Disable), and which plugins were busy when the
// process died names the likely offender.

func (p *Plugin) disabled() error {
	if err := p.off.Load(); err != nil {
		return *err
	}
	return p.proc.disabled()
}

// Disabled reports why the plugin is disabled (nil: it is not): its
// process crashed too often, or Disable was called.
func (p *Plugin) Disabled() error { return p.disabled() }

// Disable turns the plugin off for good (err says why) and detaches it
// from its process: its calls fail with err, its hooks have no effect
// (they never block a tool) and the process no longer serves it.
func (p *Plugin) Disable(err error) {
	if p.off.CompareAndSwap(nil, &err) {
		p.proc.detach(p)
	}
}

// BusyAtLastExit reports whether the plugin had a call running when its
// process last exited: in a shared process, the extension whose handler
// was running is the likely cause of its death.
func (p *Plugin) BusyAtLastExit() bool {
	p.proc.mu.Lock()
	defer p.proc.mu.Unlock()
	return p.proc.busyAtExit[p]
}

// noteBusy records which plugins have calls running (at the process's
// exit, before the calls are cut short).
func (pr *Process) noteBusy() {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	pr.busyAtExit = map[*Plugin]bool{}
	for p := range pr.users {
		busy := false
		p.calls.Range(func(any, any) bool { busy = true; return false })
		if busy {
			pr.busyAtExit[p] = true
		}
	}
}

func (pr *Process) disabled() error {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	return pr.dead
}

// watch records a crash when the process dies without being asked to.
func (pr *Process) watch(in *instance) {
	<-in.alive.Done()
	if in.killed.Load() {
		return
	}
	pr.mu.Lock()
	closed := pr.closed
	pr.mu.Unlock()
	if closed {
		return
	}
	killPlugin(in.client, in.runner) // release go-plugin's resources
	why := context.Cause(in.alive).Error()
	pr.crashed(why)
	if pr.onCrash != nil {
		pr.onCrash(why)
	}
}

func (pr *Process) crashed(why string) {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	now := time.Now()
	var recent []time.Time
	for _, t := range pr.crashes {
		if now.Sub(t) < CrashWindow {
			recent = append(recent, t)
		}
	}
	recent = append(recent, now)
	pr.crashes = recent
	if len(recent) >= MaxCrashes {
		pr.dead = fmt.Errorf("extension disabled after %d crashes in %v (last: %s); restart the agent to try again", len(recent), CrashWindow, why)
		pr.log.Error("extension disabled", "reason", pr.dead)
		return
	}
	backoff := firstBackoff << (len(recent) - 1)
	if backoff > maxBackoff {
		backoff = maxBackoff
	}
	pr.retryAt = now.Add(backoff)
	pr.log.Warn("extension crashed; it restarts on next use", "reason", why, "backoff", backoff)
}
