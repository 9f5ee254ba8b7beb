package hooks_test

import (
	"testing"

	"github.com/atomic-go/atomic/host/hooks/hookstest"
)

// TestCompositionFixtures runs the composition table with plain Go
// subscribers (the reference every runtime is compared with).
func TestCompositionFixtures(t *testing.T) {
	hookstest.Run(t, hookstest.Go)
}
