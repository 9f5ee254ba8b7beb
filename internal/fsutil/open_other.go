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
