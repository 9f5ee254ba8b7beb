// Command providers measures the 2,000-delta prompt through the real
// provider code paths: the atomic binary talks to a local server that
// streams one answer of 2,000 text deltas in the openai-completions or
// anthropic-messages dialect (and, for comparison, the in-process faux
// model). For each run it reports the time from sending the prompt to
// agent_end, the agent's CPU time for the prompt (from /proc/<pid>/task/*/schedstat),
// and the bytes the agent wrote to stdout for the prompt.
//
//	go run ./bench/providers -runs 7
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
	"github.com/atomic-go/atomic/host/llm/llmtest"
)

const key = "sk-bench-local"

func main() {
	bin := flag.String("bin", "", "atomic binary (built from ./cmd/atomic when empty)")
	runs := flag.Int("runs", 5, "prompts per dialect")
	deltas := flag.Int("deltas", 2000, "text deltas per answer")
	flag.Parse()

	if *bin == "" {
		dir, err := os.MkdirTemp("", "atomic-bench-")
		benchkit.Check(err)
		defer os.RemoveAll(dir)
		*bin, err = benchkit.BuildAtomic(dir)
		benchkit.Check(err)
	}
	text := strings.Repeat("x", *deltas*8) // 8 bytes per delta
	turn := llmtest.Turn{Text: text, Chunks: *deltas, Usage: llmtest.Usage{Input: 1200, Output: *deltas}}

	fmt.Printf("atomic 2,000-delta prompt, %d runs each, %s/%s, %d CPUs\n\n", *runs, runtime.GOOS, runtime.GOARCH, runtime.NumCPU())
	fmt.Println("| dialect | send→agent_end median (min) | agent CPU median (min) | stdout bytes |")
	fmt.Println("|---|---|---|---|")
	for _, d := range []struct {
		name, api string
		render    func(llmtest.Turn) llmtest.Response
	}{
		{"openai-completions", "openai-completions", llmtest.OpenAIChat},
		{"anthropic-messages", "anthropic-messages", llmtest.Anthropic},
		{"faux (in-process)", "", nil},
	} {
		var res []result
		for i := 0; i < *runs; i++ {
			res = append(res, once(*bin, d.api, d.render, turn, *deltas))
		}
		report(d.name, res)
	}
}

type result struct {
	wall, cpu time.Duration
	bytes     int
}

func once(bin, api string, render func(llmtest.Turn) llmtest.Response, turn llmtest.Turn, deltas int) result {
	home, err := os.MkdirTemp("", "atomic-bench-home-")
	benchkit.Check(err)
	defer os.RemoveAll(home)
	agentDir := filepath.Join(home, ".atomic", "agent")
	benchkit.Check(os.MkdirAll(agentDir, 0o700))
	env := []string{"HOME=" + home, "ATOMIC_CODING_AGENT_DIR=" + agentDir, "PATH=" + os.Getenv("PATH")}
	if render != nil {
		srv := llmtest.NewServer()
		defer srv.Close()
		srv.Respond = func(llmtest.Request) llmtest.Response { return render(turn) }
		base := srv.URL
		if api == "openai-completions" {
			base += "/v1"
		}
		models := fmt.Sprintf(`{"providers":{"bench":{"baseUrl":%q,"api":%q,"apiKey":%q,"models":[{"id":"bench-model","contextWindow":200000,"cost":{"input":3,"output":15}}]}}}`, base, api, key)
		benchkit.Check(os.WriteFile(filepath.Join(agentDir, "models.json"), []byte(models), 0o600))
	} else {
		script := filepath.Join(home, "script.jsonl")
		step, _ := json.Marshal(map[string]any{"text": turn.Text, "chunks": deltas})
		benchkit.Check(os.WriteFile(script, append(step, '\n'), 0o600))
		env = append(env, "ATOMIC_FAUX_SCRIPT="+script)
	}
	cmd := exec.Command(bin, "--mode", "rpc", "--no-tools")
	cmd.Dir = home
	cmd.Env = env
	stdin, err := cmd.StdinPipe()
	benchkit.Check(err)
	stdout, err := cmd.StdoutPipe()
	benchkit.Check(err)
	cmd.Stderr = os.Stderr
	benchkit.Check(cmd.Start())
	r := bufio.NewReaderSize(stdout, 1<<20)

	// Wait until the agent answers, so start-up is not measured.
	_, err = io.WriteString(stdin, `{"id":"s","type":"get_state"}`+"\n")
	benchkit.Check(err)
	readUntil(r, []byte(`"id":"s"`))

	cpu0 := cpuTime(cmd.Process.Pid)
	t0 := time.Now()
	_, err = io.WriteString(stdin, `{"id":"p","type":"prompt","message":"go"}`+"\n")
	benchkit.Check(err)
	n := readUntil(r, []byte(`"type":"agent_end"`))
	wall := time.Since(t0)
	cpu := cpuTime(cmd.Process.Pid) - cpu0
	stdin.Close()
	_, _ = io.Copy(io.Discard, r)
	_ = cmd.Wait()
	return result{wall: wall, cpu: cpu, bytes: n}
}

// readUntil reads lines until one contains marker; it returns the bytes
// read.
func readUntil(r *bufio.Reader, marker []byte) int {
	n := 0
	for {
		line, err := r.ReadBytes('\n')
		n += len(line)
		if bytes.Contains(line, marker) {
			return n
		}
		if err != nil {
			benchkit.Check(fmt.Errorf("stdout ended before %s", marker))
		}
	}
}

// cpuTime is the process's CPU time: the sum over its threads of
// /proc/<pid>/task/<tid>/schedstat (nanoseconds on a CPU), falling back to
// the clock-tick counts of /proc/<pid>/stat.
func cpuTime(pid int) time.Duration {
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/schedstat", pid))
	var total int64
	for _, t := range tasks {
		data, err := os.ReadFile(t)
		if err != nil {
			continue
		}
		if f := strings.Fields(string(data)); len(f) > 0 {
			ns, _ := strconv.ParseInt(f[0], 10, 64)
			total += ns
		}
	}
	if total > 0 {
		return time.Duration(total)
	}
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	s := string(data)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	ut, _ := strconv.ParseFloat(f[11], 64)
	st, _ := strconv.ParseFloat(f[12], 64)
	return time.Duration((ut + st) / 100 * float64(time.Second)) // USER_HZ is 100 on Linux
}

func report(name string, rs []result) {
	walls := make([]time.Duration, len(rs))
	cpus := make([]time.Duration, len(rs))
	for i, r := range rs {
		walls[i], cpus[i] = r.wall, r.cpu
	}
	w, c := benchkit.Summarize(walls), benchkit.Summarize(cpus)
	fmt.Printf("| %s | %s (%s) | %s (%s) | %d |\n", name,
		benchkit.MS(w.Median), benchkit.MS(w.Min), benchkit.MS(c.Median), benchkit.MS(c.Min), rs[0].bytes)
}
