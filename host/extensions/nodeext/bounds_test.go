package nodeext

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/atomic-go/atomic/host/extensions"
)

// A Node extension that misses its load deadline is named, with the phase
// and the deadline.
func TestLoadDeadlineNamesTheExtensionAndPhase(t *testing.T) {
	defer func(d time.Duration) { extensions.StartTimeout = d }(extensions.StartTimeout)
	extensions.StartTimeout = 8 * time.Second
	h := &fakeHost{}
	rt := newRuntime(t, h)
	abs, _ := filepath.Abs("testdata/neverloads.ts")
	_, err := rt.Load(context.Background(), extensions.Spec{Path: abs, Kind: extensions.KindScript, Dir: filepath.Dir(abs)}, h)
	if err == nil {
		t.Fatal("an extension that never loads loaded")
	}
	for _, want := range []string{abs, "8s", "loading the extension"} {
		if !strings.Contains(err.Error(), want) {
			t.Fatalf("missing %q in %v", want, err)
		}
	}
	if strings.Contains(err.Error(), "describe") {
		t.Fatalf("protocol words in %v", err)
	}
}

// Buffers are outside the V8 heap: the RSS watchdog kills the process past
// its limit, the crash names the extension and the reason, and the
// extension answers again from a new process.
func TestBufferAllocationIsBoundedByTheRSSWatchdog(t *testing.T) {
	h := &fakeHost{uiCh: make(chan string, 10)}
	rt := newRuntime(t, h)
	rt.RSSLimitMB = 160
	ext := loadExt(t, rt, h, "testdata/buffers.ts", extensions.Options{})
	err := ext.RunCommand(context.Background(), "buffers", "")
	if err == nil {
		t.Fatalf("512 MiB of Buffers were allocated under a limit of 160 MiB: %v", <-h.uiCh)
	}
	errs := h.waitErrors(t, 1)
	if len(errs) != 1 || errs[0].Event != "crash" || !strings.HasSuffix(errs[0].ExtensionPath, "buffers.ts") ||
		!strings.Contains(errs[0].Error, "passed the limit of 160 MiB") {
		t.Fatalf("crash reports: %+v", errs)
	}
	if err := ext.RunCommand(context.Background(), "ok", ""); err != nil {
		t.Fatal(err)
	}
}
