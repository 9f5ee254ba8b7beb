//go:build !unix

package tools

import (
	"fmt"
	"os"
	"path/filepath"
)

// createPersisted creates userDir/dirName/fileName, refusing symlinks in
// place of the directories (without the descriptor-relative checks of the
// unix version).
func createPersisted(userDir, dirName, fileName string) (*os.File, error) {
	sessPath := filepath.Join(userDir, dirName)
	for _, dir := range []string{userDir, sessPath} {
		if err := os.Mkdir(dir, 0o700); err != nil && !os.IsExist(err) {
			return nil, err
		}
		fi, err := os.Lstat(dir)
		if err != nil {
			return nil, err
		}
		if !fi.IsDir() {
			return nil, fmt.Errorf("refusing %s: it is a symlink or not a directory", dir)
		}
	}
	return os.OpenFile(filepath.Join(sessPath, fileName), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
}

// prunePersisted is a no-op where the tree cannot be walked safely.
func prunePersisted(string, func([]persistedFile) []persistedFile) error { return nil }
