package jsext

import (
	"encoding/json"
	"testing"

	"github.com/atomic-go/atomic/internal/e2e"
)

// The agent's utilities among pi 1.6's library exports (skill blocks,
// diffs, renderDiff, image sniffing, the dimension note, the shell, the
// branch-summary helpers) give in goja what pi 1.6 itself gives on the
// corpus of test/testdata/pi16/libgaps-check.ts: libgaps.golden, recorded
// from pi by libgaps.mjs. nodeext's TestPi16UtilitiesInNode runs the same.
func TestPi16UtilitiesInGoja(t *testing.T) {
	h := newHarness(t)
	work, _ := json.Marshal(t.TempDir())
	s := h.mustLoad("libgaps-check.ts", "const workDir = "+string(work)+";\n"+e2e.Pi16Testdata(t, "libgaps-check.ts"))
	e2e.MatchPi16Golden(t, s.Commands()[0].Description, "libgaps.golden")
}
