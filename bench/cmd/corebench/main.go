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
	"strconv"
	"strings"
	"time"

	"github.com/atomic-go/atomic/bench/internal/benchkit"
)

func main() {
	bin := flag.String("bin", "", "atomic binary to measure (default: build ./cmd/atomic)")
	n := flag.Int("n", 30, "samples for the cold start and the 2,000-delta prompt")
	deltas := flag.Int("deltas", 2000, "deltas streamed by the long prompt")
	roundTrips := flag.Int("roundtrips", 1000, "sequential get_state round trips")
	asJSON := flag.Bool("json", false, "print the results as JSON")
	flag.Parse()
	benchkit.Name = "corebench"

	work, err := os.MkdirTemp("", "corebench-")
	benchkit.Check(err)
	defer os.RemoveAll(work)
	if *bin == "" {
		*bin, err = benchkit.BuildAtomic(work)
		benchkit.Check(err)
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
	res.PeakRSSKiB, err = benchkit.StatusField(a.cmd.Process.Pid, "VmHWM")
	benchkit.Check(err)
	a.close()

	// A prompt streaming many deltas: every sample is one scripted turn.
	script := filepath.Join(work, "script.jsonl")
	var sb strings.Builder
	step, _ := json.Marshal(map[string]any{"text": strings.Repeat("word ", *deltas), "chunks": *deltas})
	for i := 0; i < *n+1; i++ {
		sb.Write(step)
		sb.WriteByte('\n')
	}
	benchkit.Check(os.WriteFile(script, []byte(sb.String()), 0o600))
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
			benchkit.Fail("expected at least %d message_update records, got %d", *deltas, got)
		}
		a.lastUpdates = a.updates
	}
	a.close()
	res.Stream = stats(streams)
	res.StreamStdoutBytes = int64(benchkit.Median(bytesOut))

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

// stats keeps the fields (and their order) of the -json output.
func stats(ds []time.Duration) summary {
	s := benchkit.Summarize(ds)
	return summary{Median: s.Median, Min: s.Min, P90: s.P90, Max: s.Max}
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

// ms keeps this program's format, two decimals from nanoseconds
// (benchkit.MS has one decimal).
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
	benchkit.Check(err)
	cmd := exec.Command(bin, "--mode", "rpc")
	cmd.Dir = home
	cmd.Env = append([]string{"HOME=" + home, "ATOMIC_CODING_AGENT_DIR=" + filepath.Join(home, "agent"), "PATH=" + os.Getenv("PATH")}, env...)
	stdin, err := cmd.StdinPipe()
	benchkit.Check(err)
	stdout, err := cmd.StdoutPipe()
	benchkit.Check(err)
	cmd.Stderr = os.Stderr
	a := &agent{cmd: cmd, stdin: stdin, out: bufio.NewReaderSize(stdout, 1<<20)}
	a.started = time.Now()
	benchkit.Check(cmd.Start())
	return a
}

func (a *agent) send(line string) {
	_, err := io.WriteString(a.stdin, line+"\n")
	benchkit.Check(err)
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
			benchkit.Check(err)
			a.bytes += int64(len(rest))
			continue
		}
		benchkit.Check(err)
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

func machine() string {
	return fmt.Sprintf("%s, %d CPUs, %s %s/%s", benchkit.CPUModel(), runtime.NumCPU(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
}
