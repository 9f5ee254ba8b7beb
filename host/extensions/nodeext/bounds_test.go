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
