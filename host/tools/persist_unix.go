//go:build unix

package tools

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/sys/unix"
)

// createPersisted creates userDir/dirName/fileName with every step made
// relative to an opened, verified directory.
func createPersisted(userDir, dirName, fileName string) (*os.File, error) {
	ufd, err := openPrivateDir(unix.AT_FDCWD, userDir, userDir, true)
	if err != nil {
		return nil, err
	}
	defer unix.Close(ufd)
	sessPath := filepath.Join(userDir, dirName)
	sfd, err := openPrivateDir(ufd, dirName, sessPath, true)
	if err != nil {
		return nil, err
	}
	defer unix.Close(sfd)
	fd, err := unix.Openat(sfd, fileName, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return nil, &os.PathError{Op: "create", Path: filepath.Join(sessPath, fileName), Err: err}
	}
	return os.NewFile(uintptr(fd), filepath.Join(sessPath, fileName)), nil
}

// openPrivateDir opens name (relative to dirfd) as a directory without
// following a symlink, creating it with mode 0700 when asked. It must be
// owned by the current user; a looser mode is tightened to 0700.
func openPrivateDir(dirfd int, name, path string, create bool) (int, error) {
	if create {
		if err := unix.Mkdirat(dirfd, name, 0o700); err != nil && !errors.Is(err, unix.EEXIST) {
			return -1, &os.PathError{Op: "mkdir", Path: path, Err: err}
		}
	}
	fd, err := unix.Openat(dirfd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		if errors.Is(err, unix.ELOOP) || errors.Is(err, unix.ENOTDIR) {
			return -1, fmt.Errorf("refusing %s: it is a symlink or not a directory", path)
		}
		return -1, &os.PathError{Op: "open", Path: path, Err: err}
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return -1, &os.PathError{Op: "stat", Path: path, Err: err}
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		unix.Close(fd)
		return -1, fmt.Errorf("refusing %s: not a directory", path)
	}
	if int(st.Uid) != os.Getuid() {
		unix.Close(fd)
		return -1, fmt.Errorf("refusing %s: owned by uid %d, not by the current user", path, st.Uid)
	}
	if st.Mode&0o7777 != 0o700 {
		if err := unix.Fchmod(fd, 0o700); err != nil {
			unix.Close(fd)
			return -1, fmt.Errorf("refusing %s: mode %o and it cannot be changed to 700: %w", path, st.Mode&0o7777, err)
		}
	}
	return fd, nil
}

// prunePersisted lists the persisted files under userDir, asks choose
// which to remove, removes them and then the session directories left
// empty. A missing userDir is not an error.
func prunePersisted(userDir string, choose func([]persistedFile) []persistedFile) error {
	ufd, err := openPrivateDir(unix.AT_FDCWD, userDir, userDir, false)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		return err
	}
	udir := os.NewFile(uintptr(ufd), userDir)
	defer udir.Close()
	dirs, err := udir.ReadDir(-1)
	if err != nil {
		return err
	}
	var files []persistedFile
	open := map[string]int{}
	defer func() {
		for _, fd := range open {
			unix.Close(fd)
		}
	}()
	for _, d := range dirs {
		if !d.IsDir() { // ReadDir does not follow symlinks
			continue
		}
		sfd, err := openPrivateDir(ufd, d.Name(), filepath.Join(userDir, d.Name()), false)
		if err != nil {
			continue
		}
		open[d.Name()] = sfd
		names, err := readDirNames(sfd)
		if err != nil {
			continue
		}
		for _, name := range names {
			if !isPersistedName(name) {
				continue
			}
			var st unix.Stat_t
			if unix.Fstatat(sfd, name, &st, unix.AT_SYMLINK_NOFOLLOW) != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
				continue
			}
			files = append(files, persistedFile{
				dir: d.Name(), name: name, size: st.Size,
				mtime: time.Unix(st.Mtim.Unix()),
			})
		}
	}
	for _, f := range choose(files) {
		_ = unix.Unlinkat(open[f.dir], f.name, 0)
	}
	for name := range open {
		// Fails harmlessly unless the directory is empty.
		_ = unix.Unlinkat(ufd, name, unix.AT_REMOVEDIR)
	}
	return nil
}

// readDirNames lists a directory given by an open descriptor, leaving the
// descriptor open.
func readDirNames(fd int) ([]string, error) {
	dup, err := unix.Dup(fd)
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(dup), "")
	defer f.Close()
	return f.Readdirnames(-1)
}
