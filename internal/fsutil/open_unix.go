//go:build unix

package fsutil

import (
	"io/fs"
	"os"
	"syscall"
)

// openFlags are added to every open of a user-named file: never block on
// a FIFO or a device, never acquire a controlling terminal.
const openFlags = syscall.O_NONBLOCK | syscall.O_NOCTTY

// keepOwner gives f the owner of the file it replaces, where the process
// may (as root, or when the owner is already ours); best effort.
func keepOwner(f *os.File, old fs.FileInfo) {
	if st, ok := old.Sys().(*syscall.Stat_t); ok {
		if int(st.Uid) != os.Geteuid() || int(st.Gid) != os.Getegid() {
			_ = f.Chown(int(st.Uid), int(st.Gid))
		}
	}
}

// writable reports whether the process may write the file at path.
func writable(path string) bool {
	return syscall.Access(path, 2 /* W_OK */) == nil
}

// devIno identifies a directory (loop detection of Walk).
type devIno struct{ dev, ino uint64 }

func idOf(st fs.FileInfo) (devIno, bool) {
	s, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return devIno{}, false
	}
	return devIno{uint64(s.Dev), uint64(s.Ino)}, true //nolint:unconvert // Dev is 32-bit on some platforms
}
