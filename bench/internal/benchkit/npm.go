package benchkit

import (
	"context"
	"errors"
	"time"

	"github.com/atomic-go/atomic/internal/npmpkg"
)

// EnsureNPM installs name@version into the user cache once (npmpkg) and
// stops the program when that is impossible.
func EnsureNPM(name, version string) npmpkg.Install {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	inst, err := npmpkg.Ensure(ctx, name, version)
	if errors.Is(err, npmpkg.ErrUnreachable) {
		Fail("cannot install %s@%s: %v", name, version, err)
	}
	Check(err)
	return inst
}
