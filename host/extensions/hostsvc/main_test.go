package hostsvc

import (
	"testing"

	"github.com/atomic-go/atomic/internal/leaktest"
)

// TestMain fails the package's tests if any goroutine outlives them.
func TestMain(m *testing.M) {
	leaktest.VerifyTestMain(m)
}
