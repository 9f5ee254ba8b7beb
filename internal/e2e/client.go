package e2e

import (
	"context"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/atomic-go/atomic/internal/wirecov"
	"github.com/atomic-go/atomic/sdk/rpcclient"
)

// Client is an agent started through sdk/rpcclient, in the same isolated
// environment as Start. The embedded client is the public Go client, so
// tests read like a client author's code.
type Client struct {
	*rpcclient.Client
	Env

	t     testing.TB
	mu    sync.Mutex
	lines int
	bad   []string
	// unterminated is the last line when it had no LF (a process killed
	// in the middle of writing a record leaves one).
	unterminated bool
	keep         bool
	kept         [][]byte

	// errMu and errCond signal each write to the agent's stderr, for
	// WaitStderr (the text itself is the rpcclient's Stderr).
	errMu   sync.Mutex
	errCond *sync.Cond
}

// signalWriter broadcasts cond after every write and keeps nothing.
type signalWriter struct {
	mu   *sync.Mutex
	cond *sync.Cond
}

func (w signalWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	w.cond.Broadcast()
	w.mu.Unlock()
	return len(p), nil
}

// WaitStderr waits until the agent's stderr holds every one of want (a
// line logged before a response may reach the test after it), and fails
// the test after 10 s.
func (c *Client) WaitStderr(want ...string) string {
	c.t.Helper()
	return c.WaitStderrFor(containsAll(want), quoteAll(want))
}

// WaitStderrFor waits until ok holds for the agent's stderr so far and
// returns it; after 10 s it fails the test, naming what.
func (c *Client) WaitStderrFor(ok func(stderr string) bool, what string) string {
	c.t.Helper()
	return waitText(c.t, &c.errMu, c.errCond, c.Stderr, ok, what)
}

// Lines returns the stdout lines read so far (with ClientOptions.KeepLines).
func (c *Client) Lines() [][]byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([][]byte(nil), c.kept...)
}

// ClientOptions configure StartClient beyond Options.
type ClientOptions struct {
	// UIHandler answers extension dialogs.
	UIHandler rpcclient.UIHandler
	// RequestTimeout of quick commands (default 10 s).
	RequestTimeout time.Duration
	// KeepLines keeps every stdout line for Lines.
	KeepLines bool
}

// StartClient starts the agent (built once per test process, as for
// Start) with opts and returns a client for it. When the test ends the
// agent is stopped, and the test fails if any stdout line was not exactly
// one JSON object, or if a -race build reported a data race.
func StartClient(t testing.TB, opts Options, copts ...ClientOptions) *Client {
	t.Helper()
	var co ClientOptions
	if len(copts) > 0 {
		co = copts[0]
	}
	if co.RequestTimeout == 0 {
		co.RequestTimeout = 10 * time.Second
	}
	cmd, env := Command(t, opts)
	c := &Client{Env: env, t: t, keep: co.KeepLines}
	c.errCond = sync.NewCond(&c.errMu)
	var err error
	c.Client, err = rpcclient.Start(rpcclient.Options{
		Executable:     cmd.Path,
		Args:           cmd.Args[1:],
		NoModeFlag:     true, // cmd.Args already has it
		Env:            cmd.Env,
		ReplaceEnv:     true,
		Dir:            cmd.Dir,
		RequestTimeout: co.RequestTimeout,
		StopTimeout:    5 * time.Second,
		UIHandler:      co.UIHandler,
		OnLine:         c.checkLine,
		Stderr:         signalWriter{mu: &c.errMu, cond: c.errCond},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = c.CloseInput()
		st, err := c.Wait(ctx)
		if err != nil {
			_ = c.Stop(ctx)
		}
		c.mu.Lock()
		if c.unterminated && st != nil && killed(st) {
			c.bad = c.bad[:len(c.bad)-1] // cut off by the kill: expected
		}
		for _, b := range c.bad {
			t.Errorf("stdout: %s", b)
		}
		c.mu.Unlock()
		if strings.Contains(c.Stderr(), "WARNING: DATA RACE") {
			t.Errorf("the agent reported a data race")
		}
		if t.Failed() {
			t.Logf("agent stderr:\n%s", c.Stderr())
		}
	})
	return c
}

func (c *Client) checkLine(line []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.lines++
	wirecov.FromEnv().Line(line)
	if c.keep {
		c.kept = append(c.kept, append([]byte(nil), line...))
	}
	c.unterminated = false
	if err := CheckRecordLine(line); err != nil && len(c.bad) < 10 {
		c.bad = append(c.bad, "line "+strconv.Itoa(c.lines)+" is not a protocol record: "+err.Error()+": "+clip(line, 300))
		c.unterminated = len(line) > 0 && line[len(line)-1] != '\n'
	}
}

func killed(st *os.ProcessState) bool {
	ws, ok := st.Sys().(syscall.WaitStatus)
	return ok && ws.Signaled()
}

// Ctx returns a context that ends after timeout or with the test.
func Ctx(t testing.TB, timeout time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	t.Cleanup(cancel)
	return ctx
}
