package tools

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"
)

// Persisted output: full copies of command output that was cut for the
// model or the client live in a private tree under the temp directory,
//
//	<tmpdir>/atomic-<uid>/<session-id>/<prefix><random>.log
//
// The two directories are created with mode 0700 and must be real
// directories owned by the current user (a symlink in their place is
// refused, a directory with a looser mode is tightened to 0700); files are
// created with mode 0600, O_EXCL and O_NOFOLLOW, relative to the opened
// directory, so nothing planted in the tree can redirect a write.
const (
	// PersistMaxFileBytes caps one persisted file; the writer stops at the
	// cap and ends the file with a note.
	PersistMaxFileBytes = 64 << 20
	// PersistMaxAge: persisted files not modified for this long are
	// removed.
	PersistMaxAge = 7 * 24 * time.Hour
	// PersistMaxTotalBytes: when the persisted files of the user take more
	// than this, the oldest are removed until they fit, except files
	// modified within PersistMinAge.
	PersistMaxTotalBytes = 1 << 30
	// PersistMinAge protects recent files from the size rule.
	PersistMinAge = time.Hour
	// persistPruneEvery is the shortest time between two prunes started
	// by writes in one process.
	persistPruneEvery = 10 * time.Minute
)

// Persisted file name patterns pruned by OutputStore.Prune.
const (
	persistSuffix = ".log"
	// BashOutputPrefix names the full output of a direct bash command.
	BashOutputPrefix = "atomic-bash-"
)

// OutputStore creates and prunes persisted output files.
type OutputStore struct {
	// Base is the temp directory; "" means os.TempDir() at each call.
	Base string
	// MaxFileBytes, MaxAge, MaxTotalBytes and MinAge default to the
	// Persist* constants when zero.
	MaxFileBytes  int64
	MaxAge        time.Duration
	MaxTotalBytes int64
	MinAge        time.Duration

	mu        sync.Mutex
	lastPrune time.Time
	pruning   bool
}

// DefaultOutputStore is the store used by the runtime.
var DefaultOutputStore = &OutputStore{}

func (s *OutputStore) base() string {
	if s.Base != "" {
		return s.Base
	}
	return os.TempDir()
}

// UserDir returns <tmpdir>/atomic-<uid>.
func (s *OutputStore) UserDir() string {
	return filepath.Join(s.base(), fmt.Sprintf("atomic-%d", os.Getuid()))
}

// FileCap returns the size cap of one file.
func (s *OutputStore) FileCap() int64 {
	if s.MaxFileBytes > 0 {
		return s.MaxFileBytes
	}
	return PersistMaxFileBytes
}

func (s *OutputStore) policy() (maxAge, minAge time.Duration, maxTotal int64) {
	maxAge, minAge, maxTotal = s.MaxAge, s.MinAge, s.MaxTotalBytes
	if maxAge <= 0 {
		maxAge = PersistMaxAge
	}
	if minAge <= 0 {
		minAge = PersistMinAge
	}
	if maxTotal <= 0 {
		maxTotal = PersistMaxTotalBytes
	}
	return
}

// Create makes a new file <prefix><random>.log in the session's directory
// and returns it open for writing. It also starts a background prune when
// the last one is long enough ago.
func (s *OutputStore) Create(sessionID, prefix string) (*os.File, error) {
	s.maybePrune()
	var lastErr error
	for attempt := 0; attempt < 3; attempt++ {
		f, err := createPersisted(s.UserDir(), safeDirName(sessionID), prefix+randomHex(8)+persistSuffix)
		if err == nil {
			return f, nil
		}
		lastErr = err
		if !os.IsExist(err) && !os.IsNotExist(err) {
			break // retry only name clashes and a directory pruned meanwhile
		}
	}
	return nil, lastErr
}

func (s *OutputStore) maybePrune() {
	s.mu.Lock()
	if s.pruning || (!s.lastPrune.IsZero() && time.Since(s.lastPrune) < persistPruneEvery) {
		s.mu.Unlock()
		return
	}
	s.pruning = true
	s.lastPrune = time.Now()
	s.mu.Unlock()
	go func() {
		_ = s.Prune()
		s.mu.Lock()
		s.pruning = false
		s.mu.Unlock()
	}()
}

// PruneInBackground starts a prune (at process start) unless one ran
// recently.
func (s *OutputStore) PruneInBackground() { s.maybePrune() }

// persistedFile is one file found by a prune.
type persistedFile struct {
	dir   string // session directory name
	name  string
	size  int64
	mtime time.Time
}

// Prune applies the retention rule to the user's tree: files not modified
// for MaxAge are removed, then the oldest files (except those younger than
// MinAge) until the total fits MaxTotalBytes; session directories left
// empty are removed. Only files named like persisted output are touched,
// and nothing behind a symlink or owned by another user.
func (s *OutputStore) Prune() error {
	maxAge, minAge, maxTotal := s.policy()
	return prunePersisted(s.UserDir(), func(files []persistedFile) []persistedFile {
		now := time.Now()
		var remove, keep []persistedFile
		var total int64
		for _, f := range files {
			if now.Sub(f.mtime) > maxAge {
				remove = append(remove, f)
			} else {
				keep = append(keep, f)
				total += f.size
			}
		}
		sort.Slice(keep, func(i, j int) bool { return keep[i].mtime.Before(keep[j].mtime) })
		for _, f := range keep {
			if total <= maxTotal {
				break
			}
			if now.Sub(f.mtime) < minAge {
				continue
			}
			remove = append(remove, f)
			total -= f.size
		}
		return remove
	})
}

func isPersistedName(name string) bool {
	return strings.HasPrefix(name, "atomic-") && strings.HasSuffix(name, persistSuffix)
}

// safeDirName turns a session id into one path component.
func safeDirName(id string) string {
	var b strings.Builder
	for _, r := range id {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	name := b.String()
	if name == "" || name[0] == '.' {
		name = "session-" + name
	}
	if len(name) > 128 {
		name = name[:128]
	}
	return name
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
