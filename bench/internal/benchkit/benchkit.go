// Package benchkit holds the small helpers that the benchmark programs
// under bench/ share: building the atomic binary, failing with a message,
// order statistics of samples, millisecond formatting, reading
// /proc/<pid>/status, describing the machine, driving an agent process
// line by line, and timing tool_call hooks.
//
// It is for measurement programs only: helpers that fail print to stderr
// and exit the process.
package benchkit

import (
	"cmp"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Name starts every message Check and Fail print ("bench: …" by default).
// A program that wants its own name there sets it once at the start of
// main.
var Name = "bench"

// Check exits the program through Fail when err is not nil.
func Check(err error) {
	if err != nil {
		Fail("%v", err)
	}
}

// Fail prints "<Name>: " and the formatted message to stderr and exits
// with status 1.
func Fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, Name+": "+format+"\n", args...)
	os.Exit(1)
}

// Build runs `go build -o out pkg` in the current directory (the module
// root when run as `go run ./bench/...`), with the compiler's output on
// stderr.
func Build(out, pkg string) error {
	cmd := exec.Command("go", "build", "-o", out, pkg)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	return cmd.Run()
}

// BuildAtomic builds ./cmd/atomic into dir and returns the binary's path.
func BuildAtomic(dir string) (string, error) {
	bin := filepath.Join(dir, "atomic")
	return bin, Build(bin, "./cmd/atomic")
}

// Median returns the middle sample (the upper one of an even count),
// without reordering xs. xs must not be empty.
func Median[T cmp.Ordered](xs []T) T {
	return slices.Sorted(slices.Values(xs))[len(xs)/2]
}

// Summary is the order statistics of a set of durations.
type Summary struct {
	Min, Median, Mean, P90, Max time.Duration
}

// Summarize returns the order statistics of ds, which must not be empty:
// Median is the sample at len/2 and P90 the one at len*9/10 of the sorted
// samples. ds is not reordered.
func Summarize(ds []time.Duration) Summary {
	s := slices.Sorted(slices.Values(ds))
	var sum time.Duration
	for _, d := range s {
		sum += d
	}
	return Summary{Min: s[0], Median: s[len(s)/2], Mean: sum / time.Duration(len(s)), P90: s[len(s)*9/10], Max: s[len(s)-1]}
}

// MS formats d as milliseconds with one decimal ("12.3 ms"), from d's
// whole microseconds. Programs whose tables show other precision keep
// their own formatter.
func MS(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000) }

// StatusField returns a numeric field of /proc/<pid>/status, such as
// VmHWM, RssAnon or RssFile (all in KiB).
func StatusField(pid int, field string) (int64, error) {
	return procField(fmt.Sprintf("/proc/%d/status", pid), field)
}

// PSS returns the proportional set size of a process in KiB (the Pss
// line of /proc/<pid>/smaps_rollup): its private pages plus its share of
// the pages it shares with other processes, such as the executable's
// pages that several agents map. Summed over processes it counts each
// page once, unlike RSS.
func PSS(pid int) (int64, error) {
	return procField(fmt.Sprintf("/proc/%d/smaps_rollup", pid), "Pss")
}

// procField returns the first number after "field:" in a /proc file of
// "name: value kB" lines.
func procField(path, field string) (int64, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, field+":") {
			f := strings.Fields(line)
			if len(f) < 2 {
				break
			}
			return strconv.ParseInt(f[1], 10, 64)
		}
	}
	return 0, fmt.Errorf("no %s in %s", field, path)
}

// CPUTime returns the CPU time a running process has used so far, in
// nanoseconds: the sum over its threads of the run time in
// /proc/<pid>/task/<tid>/schedstat (exact, unlike the 10 ms ticks of
// /proc/<pid>/stat; threads that already exited are not counted). It
// moves much less with the machine's load than wall time does.
func CPUTime(pid int) (time.Duration, error) {
	tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	if err != nil {
		return 0, err
	}
	var sum int64
	for _, t := range tasks {
		data, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/schedstat", pid, t.Name()))
		if err != nil {
			continue // the thread exited
		}
		f := strings.Fields(string(data))
		if len(f) == 0 {
			continue
		}
		n, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			return 0, fmt.Errorf("schedstat of %d/%s: %q", pid, t.Name(), data)
		}
		sum += n
	}
	return time.Duration(sum), nil
}

// CPUModel returns the first "model name" of /proc/cpuinfo, or "" where
// there is none.
func CPUModel() string {
	data, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "model name") {
			return strings.TrimSpace(strings.SplitN(line, ":", 2)[1])
		}
	}
	return ""
}
