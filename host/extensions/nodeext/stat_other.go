//go:build !unix

package nodeext

import "errors"

// statPath: without inodes and change times the graph cache cannot tell
// a file was replaced, so it does not cache (every start analyzes).
func statPath(string, bool) (fileStat, bool, error) {
	return fileStat{}, false, errors.New("no graph cache on this system")
}

func (s fileStat) isDir() bool     { return false }
func (s fileStat) isSymlink() bool { return false }
