package jsext

import (
	"errors"
	"io/fs"
	"syscall"

	"github.com/dop251/goja_nodejs/require"

	"github.com/atomic-go/atomic/internal/fsutil"
)

// MaxSourceFile caps a script source file the runtimes read (an
// extension's entry file and every file it requires or imports, JSON
// included). A larger file, or one that is not a regular file (a FIFO, a
// device such as /dev/zero, a socket, a directory), is refused before it
// is read (fsutil's regular-file rule), so that a hostile package cannot
// hang start-up or exhaust memory.
const MaxSourceFile = 16 << 20

// maxCachedTransform caps a transform read back from the disk cache (the
// CommonJS code with its inline source map is larger than the source).
const maxCachedTransform = 4 * MaxSourceFile

// ReadSource reads a script source file under the regular-file rule.
func ReadSource(path string) ([]byte, error) {
	return fsutil.ReadRegular(path, MaxSourceFile)
}

// loadSource is the require module's source loader on ReadSource: a path
// that does not exist (or names a directory, which the resolver then
// tries as a package or an index) is ModuleFileDoesNotExistError so that
// resolution goes on; anything else not a regular file is an error.
func loadSource(path string) ([]byte, error) {
	b, err := ReadSource(path)
	if err == nil {
		return b, nil
	}
	var nr *fsutil.NotRegularError
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) || errors.As(err, &nr) && nr.Kind == fsutil.Kind(fs.ModeDir) {
		return nil, require.ModuleFileDoesNotExistError
	}
	return nil, err
}
