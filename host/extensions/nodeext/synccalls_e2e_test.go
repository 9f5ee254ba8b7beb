package nodeext

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/atomic-go/atomic/host/extensions"
)

// pi's synchronous getters give the agent's answers over the host lane
// and, in a process started without one (the host program then has no
// lane descriptor and makes them from its worker thread), the same.
func TestSynchronousCallsWithAndWithoutTheHostLane(t *testing.T) {
	var got []string
	for _, noLane := range []bool{false, true} {
		h := &fakeHost{uiCh: make(chan string, 10)}
		rt := newRuntime(t, h)
		rt.noHostLane = noLane
		ext := loadExt(t, rt, h, "testdata/synccalls.ts", extensions.Options{})
		if err := ext.RunCommand(context.Background(), "sync", ""); err != nil {
			t.Fatalf("no lane %v: %v", noLane, err)
		}
		select {
		case ui := <-h.uiCh:
			got = append(got, ui)
		case <-time.After(30 * time.Second):
			t.Fatalf("no lane %v: no notification", noLane)
		}
		ext.Close()
	}
	const want = `sync tools=[\"read\",\"bash\"] id=s1 name=named`
	for i, ui := range got {
		if !strings.Contains(ui, want) {
			t.Fatalf("run %d (no lane: %v): %s, want it to contain %s", i, i == 1, ui, want)
		}
	}
}
