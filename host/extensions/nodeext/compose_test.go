package nodeext

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/atomic-go/atomic/host/extensions"
	"github.com/atomic-go/atomic/host/hooks"
	"github.com/atomic-go/atomic/host/hooks/hookstest"
)

// TestCompositionFixtures runs the hook bus's composition table with
// handlers running in Node: the Node host runs each handler alone
// (events.per_handler) and the bus composes, for a script's own handlers
// and for other extensions' alike.
func TestCompositionFixtures(t *testing.T) {
	h := &fakeHost{}
	rt := newRuntime(t, h)
	dir := t.TempDir()
	n := 0
	hookstest.Run(t, func(t *testing.T, event string, groups [][]hookstest.Handler) []hooks.Subscriber {
		var subs []hooks.Subscriber
		for _, g := range groups {
			n++
			p := filepath.Join(dir, fmt.Sprintf("ext%d.ts", n))
			if err := os.WriteFile(p, []byte(hookstest.Script(event, g)), 0o600); err != nil {
				t.Fatal(err)
			}
			subs = append(subs, loadExt(t, rt, h, p, extensions.Options{}))
		}
		return subs
	})
}
