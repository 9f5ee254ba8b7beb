package nodeext

import (
	"context"
	"fmt"
	"time"
)

// The bounds of a Node process: its V8 heap, its resident set (checked
// from /proc) and the watchdog that kills a process whose event loop stops
// answering.

// rssLimit is the resident set a Node process may reach, in bytes.
func (rt *Runtime) rssLimit() int64 {
	if rt.RSSLimitMB > 0 {
		return rt.RSSLimitMB << 20
	}
	return 2 * rt.heapLimitMB() << 20
}

// heapLimitMB is the V8 heap limit of the shared process.
func (rt *Runtime) heapLimitMB() int64 {
	if rt.MemoryLimitMB > 0 {
		return rt.MemoryLimitMB
	}
	return DefaultMemoryLimitMB
}

// every calls check with the process's pid (0 while none runs) each
// interval until the process stops.
func (p *process) every(interval time.Duration, check func(pid int)) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-p.stop:
			return
		case <-t.C:
		}
		check(p.proc.Pid())
	}
}

// rssCheck kills the process when its resident set passes limit (memory
// the V8 heap limit does not see, such as Buffers).
func (p *process) rssCheck(limit int64) func(pid int) {
	return func(pid int) {
		if pid == 0 {
			return
		}
		rss, ok := residentBytes(pid)
		if !ok || rss <= limit {
			return
		}
		why := fmt.Sprintf("killed: its memory (%d MiB resident) passed the limit of %d MiB", rss>>20, limit>>20)
		if p.rt.Log != nil {
			p.rt.Log.Warn("Node extension process uses too much memory; killing it", "rssMiB", rss>>20, "limitMiB", limit>>20)
		}
		p.killedWhy.Store(&why)
		p.proc.Kill()
	}
}

// watchdogCheck kills the process when its event loop stops answering
// (an endless loop in an extension blocks every extension of the
// process). interval and timeout are the package settings when the
// process started. The clock runs only once a process has answered since
// it started (a health check, or an extension loaded in it): a start is
// bounded by the plugin start timeout, and a busy machine may keep a
// starting process from answering longer than the watchdog allows.
func (p *process) watchdogCheck(interval, timeout time.Duration) func(pid int) {
	var silentSince time.Time
	return func(pid int) {
		if pid == 0 {
			silentSince = time.Time{}
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), interval)
		err := p.proc.Ping(ctx)
		cancel()
		switch {
		case err == nil:
			silentSince = time.Time{}
			p.answered.Store(int64(pid))
		case p.answered.Load() != int64(pid):
			// still starting
		case silentSince.IsZero():
			silentSince = time.Now()
		case time.Since(silentSince) >= timeout:
			if p.rt.Log != nil {
				p.rt.Log.Warn("Node extension process does not answer; killing it", "silent", time.Since(silentSince).Round(time.Second))
			}
			p.proc.Kill()
			silentSince = time.Time{}
		}
	}
}
