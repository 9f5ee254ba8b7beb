//go:build !unix

package fsutil

import (
	"io/fs"
	"os"
)

const openFlags = 0

func keepOwner(*os.File, fs.FileInfo) {}

func writable(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().Perm()&0o200 != 0
}

// devIno identifies a directory (loop detection of Walk); not known here,
// so only Walk's depth bound ends a loop.
type devIno struct{ dev, ino uint64 }

func idOf(fs.FileInfo) (devIno, bool) { return devIno{}, false }
