package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// lockFile takes an exclusive advisory lock on path+".lock" so that two
// processes updating one settings file do not lose each other's changes.
func lockFile(path string) (func(), error) { return LockPath(path, 2*time.Second) }

// LockPath takes an exclusive advisory lock on path+".lock" (created
// beside path), waiting at most wait for another holder. The returned
// function releases it. Settings updates hold it for a moment; package
// installs hold their install directory's lock for the whole npm or git
// run.
func LockPath(path string, wait time.Duration) (func(), error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path+".lock", os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	deadline := time.Now().Add(wait)
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			break
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) || time.Now().After(deadline) {
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}

// Lock takes the exclusive lock that Update takes on a settings file, for
// other files of the agent directory that several agents update (trust.json):
// the returned function releases it.
func Lock(path string) (func(), error) { return lockFile(path) }
