package e2e

import (
	"bufio"
	"bytes"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// WaitFileLine waits until the file at path holds a line equal to line (the
// test plugin's --record file, a child's marker), or fails the test after
// timeout. It is how a test knows that a handler is really running before it
// acts on it, instead of sleeping and hoping.
func WaitFileLine(t testing.TB, path, line string, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		if b, err := os.ReadFile(path); err == nil {
			sc := bufio.NewScanner(bytes.NewReader(b))
			for sc.Scan() {
				if sc.Text() == line {
					return
				}
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no line %q in %s after %v", line, path, timeout)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// WaitFrom waits for the first record at index >= from that matches.
func (a *Agent) WaitFrom(from int, timeout time.Duration, match func(Record) bool) Record {
	a.t.Helper()
	r, why := a.waitFrom(from, timeout, match)
	if r == nil {
		a.mu.Lock()
		defer a.mu.Unlock()
		a.t.Fatalf("%s waiting for a record; got %d records:\n%s\nstderr:\n%s", why, len(a.records)-from, dump(a.records[min(from, len(a.records)):]), a.stderr.String())
	}
	return r
}

// Within is WaitFrom for a record that may rightly never come (a test
// that something does not happen before another step): nil when none
// matched within timeout or before stdout closed.
func (a *Agent) Within(from int, timeout time.Duration, match func(Record) bool) Record {
	r, _ := a.waitFrom(from, timeout, match)
	return r
}

func (a *Agent) waitFrom(from int, timeout time.Duration, match func(Record) bool) (Record, string) {
	deadline := time.Now().Add(timeout)
	timer := time.AfterFunc(timeout, func() {
		a.mu.Lock()
		a.cond.Broadcast()
		a.mu.Unlock()
	})
	defer timer.Stop()
	a.mu.Lock()
	defer a.mu.Unlock()
	for i := from; ; {
		for ; i < len(a.records); i++ {
			if match(a.records[i]) {
				return a.records[i], ""
			}
		}
		if a.eof {
			return nil, "stdout closed"
		}
		if time.Now().After(deadline) {
			return nil, "timed out"
		}
		a.cond.Wait()
	}
}

// WaitType waits for the next record of a type from index from.
func (a *Agent) WaitType(from int, typ string) Record {
	a.t.Helper()
	return a.WaitFrom(from, 15*time.Second, func(r Record) bool { return r.Type() == typ })
}

// WaitStderr waits until the agent's stderr holds every one of want (it
// reaches the test through a pipe of its own, so a line logged before a
// response may arrive after it), and fails the test after 10 s.
func (a *Agent) WaitStderr(want ...string) string {
	a.t.Helper()
	return a.WaitStderrFor(containsAll(want), quoteAll(want))
}

// WaitStderrFor waits until ok holds for the agent's stderr so far and
// returns it; after 10 s it fails the test, naming what.
func (a *Agent) WaitStderrFor(ok func(stderr string) bool, what string) string {
	a.t.Helper()
	return waitText(a.t, &a.mu, a.cond, func() string { return a.stderr.String() }, ok, what)
}

// waitText waits on cond (whose lock is mu, broadcast after each write)
// until ok(get()) holds, and fails t after 10 s naming what.
func waitText(t testing.TB, mu *sync.Mutex, cond *sync.Cond, get func() string, ok func(string) bool, what string) string {
	t.Helper()
	timer := time.AfterFunc(10*time.Second, func() {
		mu.Lock()
		cond.Broadcast()
		mu.Unlock()
	})
	defer timer.Stop()
	deadline := time.Now().Add(10 * time.Second)
	mu.Lock()
	defer mu.Unlock()
	for {
		got := get()
		if ok(got) {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("stderr %q: waited 10 s for %s", got, what)
		}
		cond.Wait()
	}
}

func containsAll(want []string) func(string) bool {
	return func(got string) bool {
		for _, w := range want {
			if !strings.Contains(got, w) {
				return false
			}
		}
		return true
	}
}

func quoteAll(want []string) string {
	q := make([]string, len(want))
	for i, w := range want {
		q[i] = strconv.Quote(w)
	}
	return strings.Join(q, " and ")
}
