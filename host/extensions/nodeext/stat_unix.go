//go:build unix

package nodeext

import (
	"golang.org/x/sys/unix"
)

// statPath is what the graph cache compares of one path: lstat's mode,
// size, modification and change times (ns), inode and device; follow
// stats the target of a symbolic link instead. ok is false when the path
// does not exist.
func statPath(path string, follow bool) (s fileStat, ok bool, err error) {
	var st unix.Stat_t
	if follow {
		err = unix.Stat(path, &st)
	} else {
		err = unix.Lstat(path, &st)
	}
	if err == unix.ENOENT || err == unix.ENOTDIR {
		return fileStat{}, false, nil
	}
	if err != nil {
		return fileStat{}, false, err
	}
	return fileStat{
		Mode: uint32(st.Mode), Size: st.Size, Mtime: st.Mtim.Nano(), Ctime: st.Ctim.Nano(),
		Ino: uint64(st.Ino), Dev: uint64(st.Dev), //nolint:unconvert // int32 on some systems
	}, true, nil
}

func (s fileStat) isDir() bool     { return s.Mode&unix.S_IFMT == unix.S_IFDIR }
func (s fileStat) isSymlink() bool { return s.Mode&unix.S_IFMT == unix.S_IFLNK }
