package jsext

import (
	"context"
	"errors"

	"github.com/atomic-go/atomic/host/extensions"
)

// loadIsolated starts a script in a child process (see child.go).
func (rt *Runtime) loadIsolated(ctx context.Context, spec extensions.Spec, host extensions.Host) (extensions.Extension, error) {
	return nil, errors.New("process isolation: not yet")
}
