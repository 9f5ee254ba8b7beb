// Command sessionbench measures the agent on large session files.
//
//	go run ./bench/sessionbench gen -out bench/out/session-100mb.jsonl -size 100
//	go run ./bench/sessionbench run -bin /tmp/atomic -file bench/out/session-100mb.jsonl
//
// gen writes a session of about -size MB. run starts the built binary with
// --mode rpc --session <file> once per scenario and reports the wall time
// of each step (from process start for the first command) and the
// process's peak resident memory (VmHWM) after it.
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
	"sort"
	"strconv"
	"time"

	"github.com/atomic-go/atomic/bench/internal/benchkit"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: sessionbench gen|run [flags]")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "gen":
		fs := flag.NewFlagSet("gen", flag.ExitOnError)
		out := fs.String("out", "bench/out/session-100mb.jsonl", "file to write")
		size := fs.Int64("size", 100, "size in MB")
		seed := fs.Uint64("seed", 1, "random seed")
		fs.Parse(os.Args[2:])
		if err = os.MkdirAll(filepath.Dir(*out), 0o755); err == nil {
			start := time.Now()
			var n int
			n, err = generate(*out, *size<<20, *seed)
			if err == nil {
				fi, _ := os.Stat(*out)
				fmt.Printf("wrote %s: %d entries, %.1f MB in %v\n", *out, n, float64(fi.Size())/(1<<20), time.Since(start).Round(time.Millisecond))
			}
		}
	case "run":
		fs := flag.NewFlagSet("run", flag.ExitOnError)
		bin := fs.String("bin", "", "atomic binary")
		file := fs.String("file", "bench/out/session-100mb.jsonl", "session file")
		runs := fs.Int("runs", 5, "runs of the open scenario")
		fs.Parse(os.Args[2:])
		err = run(*bin, *file, *runs)
	default:
		err = fmt.Errorf("unknown command %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "sessionbench:", err)
		os.Exit(1)
	}
}

type agent struct {
	cmd   *exec.Cmd
	in    io.WriteCloser
	out   *bufio.Reader
	start time.Time
	next  int
}

func startAgent(bin, file, home string) (*agent, error) {
	cmd := exec.Command(bin, "--mode", "rpc", "--session", file)
	cmd.Env = append(os.Environ(), "HOME="+home, "ATOMIC_CODING_AGENT_DIR="+filepath.Join(home, "agent"))
	cmd.Dir = home
	cmd.Stderr = io.Discard
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	a := &agent{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<20)}
	a.start = time.Now()
	return a, cmd.Start()
}

// request sends a command and returns its response line and how long it
// took.
func (a *agent) request(cmd map[string]any) ([]byte, time.Duration, error) {
	a.next++
	cmd["id"] = strconv.Itoa(a.next)
	b, _ := json.Marshal(cmd)
	t0 := time.Now()
	if _, err := a.in.Write(append(b, '\n')); err != nil {
		return nil, 0, err
	}
	want := []byte(`{"id":"` + strconv.Itoa(a.next) + `","type":"response"`)
	for {
		line, err := a.out.ReadBytes('\n')
		if err != nil {
			return nil, 0, err
		}
		if bytes.HasPrefix(line, want) {
			if !bytes.Contains(line[:min(len(line), 200)], []byte(`"success":true`)) {
				return nil, 0, fmt.Errorf("%s failed: %.300s", cmd["type"], line)
			}
			return line, time.Since(t0), nil
		}
	}
}

// peakRSS is the process's VmHWM in MB, or -1 where it cannot be read.
func (a *agent) peakRSS() float64 {
	kib, err := benchkit.StatusField(a.cmd.Process.Pid, "VmHWM")
	if err != nil {
		return -1
	}
	return float64(kib) / 1024
}

// stop ends the agent and returns the CPU time (user + system) it used.
func (a *agent) stop() time.Duration {
	a.in.Close()
	done := make(chan struct{})
	go func() { a.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		a.cmd.Process.Kill()
		<-done
	}
	if ps := a.cmd.ProcessState; ps != nil {
		return ps.UserTime() + ps.SystemTime()
	}
	return 0
}

// lastIDs returns the ids of the last two entries of the file.
func lastIDs(file string) (string, string, error) {
	f, err := os.Open(file)
	if err != nil {
		return "", "", err
	}
	defer f.Close()
	fi, _ := f.Stat()
	n := int64(1 << 20)
	if fi.Size() < n {
		n = fi.Size()
	}
	buf := make([]byte, n)
	if _, err := f.ReadAt(buf, fi.Size()-n); err != nil {
		return "", "", err
	}
	lines := bytes.Split(bytes.TrimSpace(buf), []byte("\n"))
	var ids []string
	for i := len(lines) - 1; i >= 0 && len(ids) < 2; i-- {
		var e struct {
			ID string `json:"id"`
		}
		if json.Unmarshal(lines[i], &e) == nil && e.ID != "" {
			ids = append(ids, e.ID)
		}
	}
	if len(ids) < 2 {
		return "", "", fmt.Errorf("cannot find the last entries")
	}
	return ids[1], ids[0], nil
}

func run(bin, file string, runs int) error {
	if bin == "" {
		return fmt.Errorf("-bin is required")
	}
	file, err := filepath.Abs(file)
	if err != nil {
		return err
	}
	fi, err := os.Stat(file)
	if err != nil {
		return err
	}
	home, err := os.MkdirTemp("", "sessionbench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(home)
	fmt.Printf("file: %s, %.1f MB\n\n", file, float64(fi.Size())/(1<<20))
	fmt.Println("| step | wall time | CPU time of the process | peak RSS |")
	fmt.Println("|---|---|---|---|")

	// Start-up cost of the binary with a new, empty session.
	{
		a, err := startAgent(bin, filepath.Join(home, "empty.jsonl"), home)
		if err != nil {
			return err
		}
		if _, _, err := a.request(map[string]any{"type": "get_state"}); err != nil {
			return err
		}
		wall, rss := time.Since(a.start), a.peakRSS()
		fmt.Printf("| start + get_state, empty session (reference) | %s | %s | %.1f MB |\n", benchkit.MS(wall), benchkit.MS(a.stop()), rss)
	}

	// Open and get_state, from process start.
	var opens, cpus []time.Duration
	var rss []float64
	var count string
	for i := 0; i < runs; i++ {
		a, err := startAgent(bin, file, home)
		if err != nil {
			return err
		}
		line, _, err := a.request(map[string]any{"type": "get_state"})
		if err != nil {
			return err
		}
		opens = append(opens, time.Since(a.start))
		rss = append(rss, a.peakRSS())
		var st struct {
			Data struct {
				MessageCount int `json:"messageCount"`
			} `json:"data"`
		}
		json.Unmarshal(line, &st)
		count = strconv.Itoa(st.Data.MessageCount)
		cpus = append(cpus, a.stop())
	}
	o, c := benchkit.Summarize(opens), benchkit.Summarize(cpus)
	sort.Float64s(rss)
	fmt.Printf("| start + open + get_state (messageCount %s), median of %d (wall min %s, max %s) | %s | %s | %.1f MB (max %.1f) |\n",
		count, runs, benchkit.MS(o.Min), benchkit.MS(o.Max), benchkit.MS(o.Median), benchkit.MS(c.Median), rss[len(rss)/2], rss[len(rss)-1])

	prev, last, err := lastIDs(file)
	if err != nil {
		return err
	}
	// get_entries with a cursor at the end.
	{
		a, err := startAgent(bin, file, home)
		if err != nil {
			return err
		}
		if _, _, err := a.request(map[string]any{"type": "get_state"}); err != nil {
			return err
		}
		const n = 200
		var total time.Duration
		var worst time.Duration
		for i := 0; i < n; i++ {
			since := last
			if i%2 == 1 {
				since = prev
			}
			_, d, err := a.request(map[string]any{"type": "get_entries", "since": since})
			if err != nil {
				return err
			}
			total += d
			worst = max(worst, d)
		}
		rss := a.peakRSS()
		fmt.Printf("| get_entries with since = one of the last two entries, mean of %d (max %s) | %s | %s (whole process) | %.1f MB |\n", n, benchkit.MS(worst), benchkit.MS(total/n), benchkit.MS(a.stop()), rss)
	}
	// export_html.
	{
		a, err := startAgent(bin, file, home)
		if err != nil {
			return err
		}
		if _, _, err := a.request(map[string]any{"type": "get_state"}); err != nil {
			return err
		}
		out := filepath.Join(home, "export.html")
		_, d, err := a.request(map[string]any{"type": "export_html", "outputPath": out})
		if err != nil {
			return err
		}
		efi, _ := os.Stat(out)
		rss := a.peakRSS()
		fmt.Printf("| export_html (%.1f MB page) | %s | %s (whole process) | %.1f MB |\n", float64(efi.Size())/(1<<20), benchkit.MS(d), benchkit.MS(a.stop()), rss)
	}
	// Whole-file answers, for reference: their responses are as large as
	// the file.
	for _, c := range []string{"get_entries", "get_tree"} {
		a, err := startAgent(bin, file, home)
		if err != nil {
			return err
		}
		if _, _, err := a.request(map[string]any{"type": "get_state"}); err != nil {
			return err
		}
		line, d, err := a.request(map[string]any{"type": c})
		if err != nil {
			return err
		}
		rss := a.peakRSS()
		fmt.Printf("| %s without cursor (%.1f MB response, reference) | %s | %s (whole process) | %.1f MB |\n", c, float64(len(line))/(1<<20), benchkit.MS(d), benchkit.MS(a.stop()), rss)
	}
	return nil
}
