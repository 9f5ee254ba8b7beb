//go:build pprof

package main

// Built with -tags pprof, the agent writes a CPU profile to
// $ATOMIC_CPUPROFILE and a heap profile to $ATOMIC_MEMPROFILE when it
// exits ("%p" in a path becomes the process id), for bench/ work; normal
// builds carry none of this.

import (
	"os"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
)

func init() {
	pid := strconv.Itoa(os.Getpid())
	if path := strings.ReplaceAll(os.Getenv("ATOMIC_CPUPROFILE"), "%p", pid); path != "" {
		if f, err := os.Create(path); err == nil {
			_ = pprof.StartCPUProfile(f)
			atExit = append(atExit, func() { pprof.StopCPUProfile(); f.Close() })
		}
	}
	if path := strings.ReplaceAll(os.Getenv("ATOMIC_MEMPROFILE"), "%p", pid); path != "" {
		atExit = append(atExit, func() {
			if f, err := os.Create(path); err == nil {
				runtime.GC()
				_ = pprof.WriteHeapProfile(f)
				f.Close()
			}
		})
	}
}
