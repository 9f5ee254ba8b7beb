package nodeext

import (
	"testing"

	"github.com/atomic-go/atomic/internal/e2e"
)

// The agent's utilities among pi 1.6's library exports give in Node what
// pi 1.6 itself gives (test/testdata/pi16/libgaps.golden, recorded from pi
// by libgaps.mjs), as in goja (jsext's TestPi16UtilitiesInGoja).
func TestPi16UtilitiesInNode(t *testing.T) {
	e2e.MatchPi16Golden(t, pi16Check(t, "libgaps-check.ts", "workDir", t.TempDir()), "libgaps.golden")
}
