package jsext

import (
	"errors"
	"runtime"
	"runtime/metrics"
	"sync"
	"time"
)

// In-process scripts share the agent's Go heap, so a script's memory is
// estimated as the growth of the heap while one of its jobs runs: a job
// that makes the live heap grow past its script's budget is interrupted
// (errMemory), the call fails with extension_error, and a script stopped
// repeatedly is disabled (the same policy as for endless loops). The
// watcher runs only while some job runs.

// errMemory is the value a script over its memory budget is interrupted
// with.
var errMemory = errors.New("script used too much memory")

// memTick is how often the heap is sampled while jobs run.
const memTick = 5 * time.Millisecond

type memWatch struct {
	mu      sync.Mutex
	jobs    map[*vm]uint64 // running job → heap in use when it started
	running bool           // the sampling goroutine is alive
}

var scriptMemory = &memWatch{jobs: map[*vm]uint64{}}

var heapSample = []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}

// heapInUse is the heap the program's objects occupy (live and not yet
// collected).
func heapInUse() uint64 {
	s := []metrics.Sample{heapSample[0]}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}

// liveHeap collects garbage and returns the live heap.
func liveHeap() uint64 {
	runtime.GC()
	return heapInUse()
}

// begin registers a job of v that starts now.
func (w *memWatch) begin(v *vm) {
	if v.memLimit <= 0 {
		return
	}
	base := heapInUse()
	w.mu.Lock()
	w.jobs[v] = base
	start := !w.running
	w.running = true
	w.mu.Unlock()
	if start {
		go w.watch()
	}
}

// end unregisters v's job.
func (w *memWatch) end(v *vm) {
	if v.memLimit <= 0 {
		return
	}
	w.mu.Lock()
	delete(w.jobs, v)
	w.mu.Unlock()
}

// watch samples the heap while jobs run and interrupts every job whose
// script's budget the live heap's growth exceeds.
func (w *memWatch) watch() {
	t := time.NewTicker(memTick)
	defer t.Stop()
	for range t.C {
		w.mu.Lock()
		if len(w.jobs) == 0 {
			w.running = false
			w.mu.Unlock()
			return
		}
		type job struct {
			v    *vm
			base uint64
		}
		var over []job
		inUse := heapInUse()
		for v, base := range w.jobs {
			if inUse > base+uint64(v.memLimit) {
				over = append(over, job{v, base})
			}
		}
		w.mu.Unlock()
		if len(over) == 0 {
			continue
		}
		// Garbage counts until it is collected: decide on the live heap.
		live := liveHeap()
		for _, j := range over {
			if live > j.base+uint64(j.v.memLimit) {
				j.v.interruptForMemory()
			}
		}
	}
}
