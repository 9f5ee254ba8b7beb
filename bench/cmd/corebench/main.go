// Command corebench measures the RPC front end of a built atomic binary:
// cold start to the first get_state response, peak RSS after one prompt,
// a prompt streaming 2,000 deltas (latency and stdout bytes), and 1,000
// sequential get_state round trips. It talks to the binary over pipes, as
// a client would, on the offline faux model.
//
//	go run ./bench/cmd/corebench            # builds ./cmd/atomic first
//	go run ./bench/cmd/corebench -bin ./atomic -n 50
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"
)

func main() {
	bin := flag.String("bin", "", "atomic binary to measure (default: build ./cmd/atomic)")
	n := flag.Int("n", 30, "samples for the cold start and the 2,000-delta prompt")
	deltas := flag.Int("deltas", 2000, "deltas streamed by the long prompt")
	roundTrips := flag.Int("roundtrips", 1000, "sequential get_state round trips")
	asJSON := flag.Bool("json", false, "print the results as JSON")
	flag.Parse()

	work, err := os.MkdirTemp("", "corebench-")
	check(err)
	defer os.RemoveAll(work)
	if *bin == "" {
		*bin = filepath.Join(work, "atomic")
		cmd := exec.Command("go", "build", "-o", *bin, "./cmd/atomic")
		cmd.Stderr = os.Stderr
		check(cmd.Run())
	}

	res := results{Machine: machine(), Deltas: *deltas, RoundTrips: *roundTrips, Samples: *n}

	// Cold start: process start to the get_state response.
	var starts []time.Duration
	for i := 0; i < *n; i++ {
		a := start(*bin, work, nil)
		t0 := a.started
		a.send(`{"id":"s","type":"get_state"}`)
		a.waitFor(`"id":"s"`)
		starts = append(starts, time.Since(t0))
		a.close()
	}
	res.ColdStart = stats(starts)

	// Peak RSS after one prompt round trip.
	a := start(*bin, work, nil)
	a.send(`{"id":"p","type":"prompt","message":"Hello there, what can you do?"}`)
	a.waitFor(`"type":"agent_end"`)
	a.send(`{"id":"s","type":"get_state"}`)
	a.waitFor(`"id":"s"`)
	res.PeakRSSKiB = vmHWM(a.cmd.Process.Pid)
	a.close()

	// A prompt streaming many deltas: every sample is one scripted turn.
	script := filepath.Join(work, "script.jsonl")
	var sb strings.Builder
	step, _ := json.Marshal(map[string]any{"text": strings.Repeat("word ", *deltas), "chunks": *deltas})
	for i := 0; i < *n+1; i++ {
		sb.Write(step)
		sb.WriteByte('\n')
	}
	check(os.WriteFile(script, []byte(sb.String()), 0o600))
	a = start(*bin, work, []string{"ATOMIC_FAUX_SCRIPT=" + script})
	var streams []time.Duration
	var bytesOut []float64
	for i := 0; i < *n+1; i++ {
		// Each sample starts a new session so that the context (and the
		// agent_end record) does not grow from sample to sample.
		a.send(`{"id":"n","type":"new_session"}`)
		a.waitFor(`"id":"n"`)
		before := a.bytes
		t0 := time.Now()
		a.send(`{"id":"p","type":"prompt","message":"stream please"}`)
		a.waitFor(`"type":"agent_end"`)
		d := time.Since(t0)
		if i == 0 {
			continue // warm-up
		}
		streams = append(streams, d)
		bytesOut = append(bytesOut, float64(a.bytes-before))
		if got := a.updates - a.lastUpdates; got < *deltas {
			fail("expected at least %d message_update records, got %d", *deltas, got)
		}
		a.lastUpdates = a.updates
	}
	a.close()
	res.Stream = stats(streams)
	sort.Float64s(bytesOut)
	res.StreamStdoutBytes = int64(bytesOut[len(bytesOut)/2])

	// Sequential get_state round trips on one process.
	a = start(*bin, work, nil)
	a.send(`{"id":"w","type":"get_state"}`)
	a.waitFor(`"id":"w"`)
	t0 := time.Now()
	for i := 0; i < *roundTrips; i++ {
		id := strconv.Itoa(i)
		a.send(`{"id":"` + id + `","type":"get_state"}`)
		a.waitFor(`"id":"` + id + `"`)
	}
	res.RoundTripsTotal = time.Since(t0)
	a.close()

	if *asJSON {
		out, _ := json.MarshalIndent(res, "", "  ")
		fmt.Println(string(out))
		return
	}
	res.print()
}

type summary struct {
	Median, Min, P90, Max time.Duration
}

func stats(ds []time.Duration) summary {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return summary{Median: s[len(s)/2], Min: s[0], P90: s[len(s)*9/10], Max: s[len(s)-1]}
}

type results struct {
	Machine           string
	Samples           int
	ColdStart         summary
	PeakRSSKiB        int64
	Deltas            int
	Stream            summary
	StreamStdoutBytes int64
	RoundTrips        int
	RoundTripsTotal   time.Duration
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d)/1e6) }

func (r results) print() {
	fmt.Printf("machine: %s\n\n", r.Machine)
	fmt.Printf("| measure | result | target |\n|---|---|---|\n")
	fmt.Printf("| cold start to get_state response (median of %d; min / p90 / max) | %s (%s / %s / %s) | < 20 ms |\n",
		r.Samples, ms(r.ColdStart.Median), ms(r.ColdStart.Min), ms(r.ColdStart.P90), ms(r.ColdStart.Max))
	fmt.Printf("| peak RSS (VmHWM) after one prompt round trip | %.1f MB | < 30 MB |\n", float64(r.PeakRSSKiB)/1024)
	fmt.Printf("| prompt streaming %d deltas, send to agent_end (median of %d; min / p90 / max) | %s (%s / %s / %s) | < 50 ms |\n",
		r.Deltas, r.Samples, ms(r.Stream.Median), ms(r.Stream.Min), ms(r.Stream.P90), ms(r.Stream.Max))
	fmt.Printf("| stdout bytes written by that prompt | %d (%.0f KB) | < 1 MB |\n", r.StreamStdoutBytes, float64(r.StreamStdoutBytes)/1000)
	fmt.Printf("| %d sequential get_state round trips | %s total, %.1f µs each | |\n",
		r.RoundTrips, ms(r.RoundTripsTotal), float64(r.RoundTripsTotal)/float64(r.RoundTrips)/1e3)
}

// agent is one running process.
type agent struct {
	cmd         *exec.Cmd
	stdin       io.WriteCloser
	out         *bufio.Reader
	started     time.Time
	bytes       int64
	updates     int
	lastUpdates int
}

func start(bin, work string, env []string) *agent {
	home, err := os.MkdirTemp(work, "home-")
	check(err)
	cmd := exec.Command(bin, "--mode", "rpc")
	cmd.Dir = home
	cmd.Env = append([]string{"HOME=" + home, "ATOMIC_CODING_AGENT_DIR=" + filepath.Join(home, "agent"), "PATH=" + os.Getenv("PATH")}, env...)
	stdin, err := cmd.StdinPipe()
	check(err)
	stdout, err := cmd.StdoutPipe()
	check(err)
	cmd.Stderr = os.Stderr
	a := &agent{cmd: cmd, stdin: stdin, out: bufio.NewReaderSize(stdout, 1<<20)}
	a.started = time.Now()
	check(cmd.Start())
	return a
}

func (a *agent) send(line string) {
	_, err := io.WriteString(a.stdin, line+"\n")
	check(err)
}

// waitFor reads records until one contains marker.
func (a *agent) waitFor(marker string) {
	m := []byte(marker)
	for {
		line, err := a.out.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			// A record longer than the buffer: count it and skip the rest.
			a.bytes += int64(len(line))
			rest, err := a.out.ReadBytes('\n')
			check(err)
			a.bytes += int64(len(rest))
			continue
		}
		check(err)
		a.bytes += int64(len(line))
		if bytes.HasPrefix(line, []byte(`{"type":"message_update"`)) {
			a.updates++
			continue
		}
		if bytes.Contains(line, m) {
			return
		}
	}
}

func (a *agent) close() {
	a.stdin.Close()
	_, _ = io.Copy(io.Discard, a.out)
	_ = a.cmd.Wait()
}

// vmHWM returns the peak resident set size of a process in KiB.
func vmHWM(pid int) int64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	check(err)
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "VmHWM:") {
			f := strings.Fields(line)
			n, err := strconv.ParseInt(f[1], 10, 64)
			check(err)
			return n
		}
	}
	fail("no VmHWM in /proc/%d/status", pid)
	return 0
}

func machine() string {
	model := ""
	if data, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(data), "\n") {
			if strings.HasPrefix(line, "model name") {
				model = strings.TrimSpace(strings.SplitN(line, ":", 2)[1])
				break
			}
		}
	}
	return fmt.Sprintf("%s, %d CPUs, %s %s/%s", model, runtime.NumCPU(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

func check(err error) {
	if err != nil {
		fail("%v", err)
	}
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "corebench: "+format+"\n", args...)
	os.Exit(1)
}
