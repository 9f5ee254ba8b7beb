package tui_test

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/charmbracelet/x/vt"
	"github.com/creack/pty"

	"github.com/atomic-go/atomic/internal/e2e"
)

var contextUse = regexp.MustCompile(` +\d+(\.\d+)?k?/\d+(\.\d+)?[kM]? \(\d+\.\d%\)`)

var update = flag.Bool("update", false, "rewrite the golden screens in testdata")

// screen is the built binary in a real pseudo-terminal, with a terminal
// emulator reading what it draws.
type screen struct {
	t      *testing.T
	cmd    *exec.Cmd
	env    e2e.Env
	ptm    *os.File
	mu     sync.Mutex
	emu    *vt.Emulator
	exited chan struct{}
	// drained is closed when the pty is read to its end.
	drained chan struct{}
	err     error
}

const cols, rows = 80, 24

func startScreen(t *testing.T, opts e2e.Options) *screen {
	t.Helper()
	return startScreenWith(t, opts, nil)
}

// startScreenWith is startScreen with the emulator set up first (its
// colours, say) by setup.
func startScreenWith(t *testing.T, opts e2e.Options, setup func(*vt.Emulator)) *screen {
	t.Helper()
	opts.NoMode = true
	if opts.Env == nil {
		opts.Env = map[string]string{}
	}
	opts.Env["TERM"] = "xterm-256color"
	if _, set := opts.Env["NO_COLOR"]; !set {
		opts.Env["NO_COLOR"] = ""
	}
	cmd, env := e2e.Command(t, opts)
	emu := vt.NewEmulator(cols, rows)
	if setup != nil {
		setup(emu)
	}
	ptm, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: rows, Cols: cols})
	if err != nil {
		t.Fatal(err)
	}
	s := &screen{t: t, cmd: cmd, env: env, ptm: ptm, emu: emu, exited: make(chan struct{}), drained: make(chan struct{})}
	go func() {
		// What the program draws goes into the emulator.
		defer close(s.drained)
		buf := make([]byte, 32<<10)
		for {
			n, err := ptm.Read(buf)
			if n > 0 {
				s.mu.Lock()
				_, _ = s.emu.Write(buf[:n])
				s.mu.Unlock()
			}
			if err != nil {
				return
			}
		}
	}()
	answered := make(chan struct{})
	go func() {
		// The emulator's answers to the program's queries go back.
		defer close(answered)
		_, _ = io.Copy(ptm, s.emu)
	}()
	go func() {
		s.err = cmd.Wait()
		close(s.exited)
	}()
	t.Cleanup(func() {
		select {
		case <-s.exited:
		default:
			_ = cmd.Process.Kill()
			<-s.exited
		}
		ptm.Close()
		// The emulator is closed once nothing reads or writes it (its
		// Close is not safe beside its Read): closing its input pipe ends
		// the copy of its answers.
		if c, ok := s.emu.InputPipe().(io.Closer); ok {
			_ = c.Close()
		}
		<-answered
		<-s.drained
		s.emu.Close()
		// Descriptor 2 is the log file: a race report (ATOMIC_E2E_RACE=1)
		// or a crash lands there.
		if l := s.log(); strings.Contains(l, "WARNING: DATA RACE") || strings.Contains(l, "panic:") {
			t.Errorf("the log shows a race or a panic:\n%s", l)
		}
	})
	return s
}

// text is the screen's text, trailing spaces trimmed.
func (s *screen) text() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	lines := strings.Split(s.emu.String(), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n")
}

// waitFor waits until the screen shows every one of want.
func (s *screen) waitFor(want ...string) string {
	s.t.Helper()
	return s.waitUntil(fmt.Sprintf("%q", want), func(got string) bool {
		for _, w := range want {
			if !strings.Contains(got, w) {
				return false
			}
		}
		return true
	})
}

// waitUntil waits until ok accepts the screen.
func (s *screen) waitUntil(what string, ok func(screen string) bool) string {
	s.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		got := s.text()
		if ok(got) {
			return got
		}
		select {
		case <-s.exited:
			s.t.Fatalf("atomic exited (%v) while waiting for %s; screen:\n%s\nlog:\n%s", s.err, what, got, s.log())
		case <-tick.C:
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("the screen never showed %s; screen:\n%s\nlog:\n%s", what, got, s.log())
		}
	}
}

// waitGone waits until the screen no longer shows text.
func (s *screen) waitGone(text string) string {
	s.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		got := s.text()
		if !strings.Contains(got, text) {
			return got
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("the screen still shows %q:\n%s", text, got)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func (s *screen) log() string {
	b, _ := os.ReadFile(filepath.Join(s.env.AgentDir, "atomic.log"))
	return string(b)
}

// typeText sends keys as typed.
func (s *screen) typeText(text string) {
	s.t.Helper()
	if _, err := s.ptm.WriteString(text); err != nil {
		s.t.Fatal(err)
	}
}

// ask sends a prompt and waits for its answer and the end of the run.
func (s *screen) ask(prompt, answer string) {
	s.t.Helper()
	s.typeText(prompt + keyEnter)
	s.waitFor(answer)
	s.waitGone("Working…")
}

// Keys as a terminal sends them.
const (
	keyEnter = "\r"
	keyEsc   = "\x1b"
	keyCtrlC = "\x03"
	keyCtrlD = "\x04"
	keyDown  = "\x1b[B"
	keyTab   = "\t"
)

// leftAltScreen reports whether the emulator is off the alternate screen
// once it has read what the program wrote before it exited (the reader
// may still be behind when the exit is seen; the pty ends with EOF).
func (s *screen) leftAltScreen() bool {
	s.t.Helper()
	select {
	case <-s.drained:
	case <-time.After(5 * time.Second):
		s.t.Fatal("the pty was not read to its end")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return !s.emu.IsAltScreen()
}

// wait waits for the process to end and returns its exit status.
func (s *screen) wait() int {
	s.t.Helper()
	select {
	case <-s.exited:
	case <-time.After(15 * time.Second):
		s.t.Fatalf("atomic did not exit; screen:\n%s", s.text())
	}
	var ee *exec.ExitError
	if errors.As(s.err, &ee) {
		return ee.ExitCode()
	}
	if s.err != nil {
		s.t.Fatal(s.err)
	}
	return 0
}

// golden compares the screen with testdata/<name>.txt (rewritten with
// -update). Lines that name the temporary directories are masked.
func (s *screen) golden(name, got string) {
	s.t.Helper()
	got = strings.ReplaceAll(got, s.env.Dir, "<cwd>")
	lines := strings.Split(got, "\n")
	for i, l := range lines {
		if strings.Contains(l, "<cwd>") {
			lines[i] = "<cwd line>"
		}
		// The context estimate depends on the system prompt, which names
		// the temporary directory.
		lines[i] = contextUse.ReplaceAllString(lines[i], " <ctx>")
	}
	got = strings.TrimRight(strings.Join(lines, "\n"), "\n") + "\n"
	path := filepath.Join("testdata", name+".txt")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			s.t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		s.t.Fatalf("%v (run with -update to create it); screen:\n%s", err, got)
	}
	if string(want) != got {
		s.t.Errorf("screen %s differs from %s (run with -update to accept):\n--- got\n%s\n--- want\n%s", name, path, got, want)
	}
}
