package jsext

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/atomic-go/atomic/host/extensions"
	"github.com/atomic-go/atomic/host/hooks"
	"github.com/atomic-go/atomic/sdk"
	"github.com/atomic-go/atomic/sdk/sdktest"
)

// syncBuffer is a goroutine-safe log sink.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

type harness struct {
	t    *testing.T
	rt   *Runtime
	fake *sdktest.FakeHost
	host extensions.Host
	logs *syncBuffer
	dir  string
}

func newHarness(t *testing.T) *harness {
	t.Helper()
	h := &harness{t: t, fake: sdktest.NewFakeHost(), logs: &syncBuffer{}, dir: t.TempDir()}
	h.host = &sdkHost{h: h.fake, info: sdk.ContextInfo{Cwd: h.dir, Mode: "rpc", HasUI: true, SessionID: "s1", ThinkingLevel: "off", IsIdle: true}}
	h.rt = &Runtime{
		Log:      slog.New(slog.NewTextHandler(h.logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		CacheDir: filepath.Join(h.dir, "cache"), HostVersion: "test", AgentDir: h.dir,
	}
	return h
}

func (h *harness) write(name, src string) string {
	h.t.Helper()
	p := filepath.Join(h.dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		h.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		h.t.Fatal(err)
	}
	return p
}

func (h *harness) load(name, src string) (*Script, error) {
	h.t.Helper()
	p := h.write(name, src)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ext, err := h.rt.Load(ctx, extensions.Spec{Path: p, Kind: extensions.KindScript, Dir: h.dir}, h.host)
	if err != nil {
		return nil, err
	}
	s := ext.(*Script)
	h.t.Cleanup(func() { s.Close() })
	return s, nil
}

func (h *harness) mustLoad(name, src string) *Script {
	h.t.Helper()
	s, err := h.load(name, src)
	if err != nil {
		h.t.Fatalf("load %s: %v\nlog:\n%s", name, err, h.logs)
	}
	return s
}

func handle(t *testing.T, s *Script, event string, payload any, timeout time.Duration) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	raw, err := s.Handle(ctx, hooks.NewEvent(event, payload))
	return string(raw), err
}

// waitFake waits (bounded) until cond, evaluated under the fake host's
// lock, holds.
func (h *harness) waitFake(cond func() bool) {
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		ok := false
		h.fake.Locked(func() { ok = cond() })
		if ok {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func hooksEvent(name string, payload any) *hooks.Event { return hooks.NewEvent(name, payload) }

func itoa(n int) string { return strconv.Itoa(n) }
