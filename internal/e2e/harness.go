// Package e2e starts the real atomic binary and talks to it over pipes, for
// the black-box tests of the protocol. Every agent runs in an isolated home
// and agent directory with no provider credentials, so it uses the offline
// faux model unless a test configures another.
package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/atomic-go/atomic/internal/wirecov"
)

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// Binary builds cmd/atomic once per test process and returns its path.
// With ATOMIC_E2E_RACE=1 in the environment it is built with -race.
func Binary(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		root, err := moduleRoot()
		if err != nil {
			buildErr = err
			return
		}
		dir, err := buildDir("atomic-e2e-bin-")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "atomic")
		args := []string{"build", "-o", binPath}
		if os.Getenv("ATOMIC_E2E_RACE") != "" {
			args = append(args, "-race") // race-check the binary too
		}
		cmd := exec.Command("go", append(args, "./cmd/atomic")...)
		cmd.Dir = root
		out, err := cmd.CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

func moduleRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", err
	}
	mod := strings.TrimSpace(string(out))
	if mod == "" || mod == os.DevNull {
		return "", fmt.Errorf("not inside the module")
	}
	return filepath.Dir(mod), nil
}

// Options configure a started agent.
type Options struct {
	Args []string          // extra flags after --mode rpc
	Env  map[string]string // extra environment
	Dir  string            // working directory (a temp dir when empty)
	// Script is written to a file and passed as ATOMIC_FAUX_SCRIPT: each
	// element is one scripted assistant turn.
	Script []map[string]any
	// NoMode leaves out --mode rpc (for print and json mode tests).
	NoMode bool
	// RawStdout turns off the check, made when the test ends, that every
	// stdout line is one JSON object (for print mode).
	RawStdout bool
	// AgentFiles are written into the agent directory before the start
	// (name relative to it -> content), e.g. "models.json".
	AgentFiles map[string]string
}

// Record is one line the agent wrote to stdout, decoded.
type Record map[string]any

// Type returns the record's type.
func (r Record) Type() string { s, _ := r["type"].(string); return s }

// Agent is a running atomic process.
type Agent struct {
	t        testing.TB
	cmd      *exec.Cmd
	stdin    io.WriteCloser
	Home     string // isolated HOME
	AgentDir string
	Dir      string // working directory
	Record   string // path of the faux request record file

	mu      sync.Mutex
	cond    *sync.Cond
	records []Record
	raw     [][]byte
	eof     bool
	stderr  bytes.Buffer
	nextID  int
	exited  chan struct{}
	exitErr error
}

// Env describes the isolated environment Command prepared.
type Env struct {
	Home     string // isolated HOME
	AgentDir string // ATOMIC_CODING_AGENT_DIR
	Dir      string // working directory
	Record   string // path of the faux request record file
}

// Command prepares (without starting) the binary with opts in an isolated
// environment: a fresh HOME and agent directory, no provider credentials,
// the faux script written to a file, and a faux request record file.
func Command(t testing.TB, opts Options) (*exec.Cmd, Env) {
	t.Helper()
	bin := Binary(t)
	home := t.TempDir()
	e := Env{Home: home, AgentDir: filepath.Join(home, ".atomic", "agent"), Dir: opts.Dir, Record: filepath.Join(home, "faux-record.jsonl")}
	if e.Dir == "" {
		e.Dir = t.TempDir()
	}
	if err := os.MkdirAll(e.AgentDir, 0o700); err != nil {
		t.Fatal(err)
	}
	for name, content := range opts.AgentFiles {
		p := filepath.Join(e.AgentDir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	args := []string{}
	if !opts.NoMode {
		args = append(args, "--mode", "rpc")
	}
	args = append(args, opts.Args...)
	cmd := exec.Command(bin, args...)
	cmd.Dir = e.Dir
	env := []string{}
	for _, kv := range os.Environ() {
		k := kv[:strings.IndexByte(kv, '=')]
		if strings.HasSuffix(k, "_API_KEY") || strings.HasPrefix(k, "ATOMIC_") || strings.HasPrefix(k, "PI_") || k == "HOME" {
			continue
		}
		env = append(env, kv)
	}
	env = append(env, "HOME="+home, "ATOMIC_CODING_AGENT_DIR="+e.AgentDir, "ATOMIC_FAUX_RECORD="+e.Record)
	if opts.Script != nil {
		path := filepath.Join(home, "faux-script.jsonl")
		var buf bytes.Buffer
		for _, step := range opts.Script {
			b, err := json.Marshal(step)
			if err != nil {
				t.Fatal(err)
			}
			buf.Write(b)
			buf.WriteByte('\n')
		}
		if err := os.WriteFile(path, buf.Bytes(), 0o600); err != nil {
			t.Fatal(err)
		}
		env = append(env, "ATOMIC_FAUX_SCRIPT="+path)
	}
	for k, v := range opts.Env {
		env = append(env, k+"="+v)
	}
	cmd.Env = env
	return cmd, e
}

// Result is the outcome of Run.
type Result struct {
	Stdout, Stderr string
	ExitCode       int
}

// Run runs the binary to completion with stdin as its input (print and
// json mode tests; set opts.NoMode) and returns what it wrote.
func Run(t testing.TB, opts Options, stdin string, timeout time.Duration) Result {
	t.Helper()
	cmd, _ := Command(t, opts)
	var stdout, stderr bytes.Buffer
	cmd.Stdin = strings.NewReader(stdin)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(timeout):
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("atomic %v did not exit within %v; stderr:\n%s", cmd.Args[1:], timeout, stderr.String())
	}
	res := Result{Stdout: stdout.String(), Stderr: stderr.String()}
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			res.ExitCode = ee.ExitCode()
		} else {
			t.Fatal(err)
		}
	}
	return res
}

// Start launches the agent.
func Start(t testing.TB, opts Options) *Agent {
	t.Helper()
	cmd, env := Command(t, opts)
	a := &Agent{t: t, Home: env.Home, AgentDir: env.AgentDir, Dir: env.Dir, Record: env.Record, exited: make(chan struct{})}
	a.cond = sync.NewCond(&a.mu)
	var err error
	a.stdin, err = cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	// A plain pipe rather than StdoutPipe: cmd.Wait closes StdoutPipe's
	// reader as soon as the process exits, which would race with reading
	// the last records.
	stdout, stdoutW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout = stdoutW
	cmd.Stderr = &lockedWriter{mu: &a.mu, buf: &a.stderr, cond: a.cond}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stdoutW.Close()
	a.cmd = cmd
	go func() {
		a.readLoop(stdout)
		stdout.Close()
	}()
	go func() {
		a.exitErr = cmd.Wait()
		close(a.exited)
	}()
	t.Cleanup(func() {
		_ = a.stdin.Close()
		select {
		case <-a.exited:
		case <-time.After(5 * time.Second):
			_ = cmd.Process.Kill()
			<-a.exited
		}
		a.waitEOF(2 * time.Second)
		if !opts.RawStdout {
			a.checkStdout()
		}
		if strings.Contains(a.Stderr(), "WARNING: DATA RACE") {
			t.Errorf("the agent reported a data race")
		}
		if t.Failed() {
			t.Logf("agent stderr:\n%s", a.Stderr())
		}
	})
	return a
}

type lockedWriter struct {
	mu   *sync.Mutex
	buf  *bytes.Buffer
	cond *sync.Cond // broadcast after each write (nil: none)
}

func (w *lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.cond != nil {
		defer w.cond.Broadcast()
	}
	return w.buf.Write(p)
}

func (a *Agent) readLoop(r io.Reader) {
	br := bufio.NewReaderSize(r, 1<<20)
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			wirecov.FromEnv().Line(line)
			var rec Record
			jerr := json.Unmarshal(line, &rec)
			a.mu.Lock()
			a.raw = append(a.raw, line)
			if jerr != nil {
				rec = Record{"type": "__invalid__", "line": string(line)}
			}
			a.records = append(a.records, rec)
			a.cond.Broadcast()
			a.mu.Unlock()
		}
		if err != nil {
			a.mu.Lock()
			a.eof = true
			a.cond.Broadcast()
			a.mu.Unlock()
			return
		}
	}
}

// waitEOF waits until stdout was read to its end (after the process
// exited), or the timeout passed.
func (a *Agent) waitEOF(timeout time.Duration) {
	deadline := time.Now().Add(timeout)
	for {
		a.mu.Lock()
		eof := a.eof
		a.mu.Unlock()
		if eof || time.Now().After(deadline) {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// checkStdout fails the test unless every line the agent wrote to stdout
// is exactly one JSON object ended by LF: nothing but protocol records may
// ever reach stdout.
func (a *Agent) checkStdout() {
	a.t.Helper()
	for i, line := range a.RawLines() {
		if err := CheckRecordLine(line); err != nil {
			a.t.Errorf("stdout line %d is not a protocol record: %v\n%q", i+1, err, clip(line, 300))
		}
	}
}

// CheckRecordLine returns an error unless line is one JSON object followed
// by a single LF, in UTF-8 (RFC 8259 §8.1).
func CheckRecordLine(line []byte) error {
	if len(line) == 0 || line[len(line)-1] != '\n' {
		return fmt.Errorf("line does not end with LF")
	}
	if !utf8.Valid(line) {
		return fmt.Errorf("not valid UTF-8")
	}
	body := line[:len(line)-1]
	if bytes.IndexByte(body, '\n') >= 0 || bytes.HasSuffix(body, []byte("\r")) {
		return fmt.Errorf("line holds a stray line break")
	}
	if !json.Valid(body) {
		return fmt.Errorf("not valid JSON")
	}
	if trimmed := bytes.TrimSpace(body); len(trimmed) == 0 || trimmed[0] != '{' {
		return fmt.Errorf("not a JSON object")
	}
	return nil
}

func clip(b []byte, n int) string {
	if len(b) > n {
		return string(b[:n]) + "…"
	}
	return string(b)
}

// Stderr returns what the agent wrote to stderr so far.
func (a *Agent) Stderr() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.stderr.String()
}

// SendRaw writes raw bytes to the agent's stdin as they are.
func (a *Agent) SendRaw(line string) {
	a.t.Helper()
	if _, err := io.WriteString(a.stdin, line); err != nil {
		a.t.Fatalf("write stdin: %v", err)
	}
}

// Send writes one command as a JSON line.
func (a *Agent) Send(cmd map[string]any) {
	a.t.Helper()
	b, err := json.Marshal(cmd)
	if err != nil {
		a.t.Fatal(err)
	}
	a.SendRaw(string(b) + "\n")
}

// NewID returns a fresh request id.
func (a *Agent) NewID() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.nextID++
	return fmt.Sprintf("req-%d", a.nextID)
}

// Request sends cmd with a fresh id and waits for its response.
func (a *Agent) Request(cmd map[string]any) Record {
	a.t.Helper()
	if _, ok := cmd["id"]; !ok {
		cmd["id"] = a.NewID()
	}
	id := cmd["id"]
	from := a.Len()
	a.Send(cmd)
	return a.WaitFrom(from, 10*time.Second, func(r Record) bool {
		return r.Type() == "response" && fmt.Sprint(r["id"]) == fmt.Sprint(id)
	})
}

// Responses returns the responses read so far whose id, written as JSON,
// equals id written as JSON (so 1 and "1" differ).
func (a *Agent) Responses(id any) []Record {
	want, _ := json.Marshal(id)
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []Record
	for _, r := range a.records {
		if r.Type() != "response" {
			continue
		}
		got, ok := r["id"]
		if !ok {
			continue
		}
		if b, _ := json.Marshal(got); bytes.Equal(b, want) {
			out = append(out, r)
		}
	}
	return out
}

// WaitResponse waits for the response carrying id (compared as in
// Responses) among the records from index from.
func (a *Agent) WaitResponse(from int, id any) Record {
	a.t.Helper()
	want, _ := json.Marshal(id)
	return a.WaitFrom(from, 10*time.Second, func(r Record) bool {
		if r.Type() != "response" {
			return false
		}
		got, ok := r["id"]
		if !ok {
			return false
		}
		b, _ := json.Marshal(got)
		return bytes.Equal(b, want)
	})
}

// MustSucceed sends cmd and fails the test unless the response succeeds.
func (a *Agent) MustSucceed(cmd map[string]any) Record {
	a.t.Helper()
	r := a.Request(cmd)
	if r["success"] != true {
		a.t.Fatalf("%v failed: %v", cmd["type"], r["error"])
	}
	return r
}

// Len returns how many records were read so far.
func (a *Agent) Len() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.records)
}

// Records returns a copy of the records from index from.
func (a *Agent) Records(from int) []Record {
	a.mu.Lock()
	defer a.mu.Unlock()
	if from > len(a.records) {
		from = len(a.records)
	}
	return append([]Record(nil), a.records[from:]...)
}

// RawLines returns the raw stdout lines read so far.
func (a *Agent) RawLines() [][]byte {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([][]byte(nil), a.raw...)
}

// PromptAndWait sends a prompt and waits for its agent_end; it returns the
// records of the run starting at the prompt's response.
func (a *Agent) PromptAndWait(message string) []Record {
	a.t.Helper()
	from := a.Len()
	resp := a.Request(map[string]any{"type": "prompt", "message": message})
	if resp["success"] != true {
		a.t.Fatalf("prompt failed: %v", resp["error"])
	}
	end := a.WaitType(from, "agent_end")
	_ = end
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []Record
	for _, r := range a.records[from:] {
		out = append(out, r)
		if r.Type() == "agent_end" {
			break
		}
	}
	return out
}

// CloseStdin closes the agent's input.
func (a *Agent) CloseStdin() { _ = a.stdin.Close() }

// Wait waits for the process to exit and its output to be read to the
// end (the last records may still be in the pipe when it exits), and
// returns its exit code.
func (a *Agent) Wait(timeout time.Duration) int {
	a.t.Helper()
	select {
	case <-a.exited:
	case <-time.After(timeout):
		a.t.Fatalf("agent did not exit within %v; stderr:\n%s", timeout, a.Stderr())
	}
	a.waitEOF(5 * time.Second)
	if a.exitErr == nil {
		return 0
	}
	if ee, ok := a.exitErr.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	return -1
}

// Exited reports whether the process has exited.
func (a *Agent) Exited() bool {
	select {
	case <-a.exited:
		return true
	default:
		return false
	}
}

// Process returns the OS process.
func (a *Agent) Process() *os.Process { return a.cmd.Process }

// FauxRequests returns the requests the faux provider received.
func (a *Agent) FauxRequests() []map[string]any {
	a.t.Helper()
	data, err := os.ReadFile(a.Record)
	if err != nil {
		if os.IsNotExist(err) {
			return nil
		}
		a.t.Fatal(err)
	}
	var out []map[string]any
	for _, line := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal(line, &m); err != nil {
			a.t.Fatal(err)
		}
		out = append(out, m)
	}
	return out
}

// Types lists the record types.
func Types(recs []Record) []string {
	out := make([]string, len(recs))
	for i, r := range recs {
		out[i] = r.Type()
	}
	return out
}

func dump(recs []Record) string {
	var sb strings.Builder
	for _, r := range recs {
		b, _ := json.Marshal(r)
		if len(b) > 400 {
			b = append(b[:400], "…"...)
		}
		sb.Write(b)
		sb.WriteByte('\n')
	}
	return sb.String()
}
