package nodeext

// The remembered runtime choice: an extension that auto sent to Node
// because it failed to load in goja (fallback.go) is loaded in Node
// directly at the next start of the same version, without trying goja
// again. One small file per entry path under the cache directory, next
// to the graph cache, holding the version of atomic and the digest of the
// content of every file of the extension's import graph: any change of
// either, and goja is tried again. A file that cannot be read, parsed or
// checked is no memory at all (goja is tried; the file is replaced).
//
// Only a choice for Node is kept: goja is tried first anyway, and an
// extension that loads there needs no memory (so the goja path costs one
// failed open).

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/atomic-go/atomic/internal/fsutil"
)

// choiceFormat changes when what a choice file means changes.
const choiceFormat = "choice-1"

// Bounds of the remembered choices: files kept (the least recently used
// removed first), their total size, and the size of one.
const (
	maxChoiceEntries = 512
	maxChoiceTotal   = 4 << 20
	maxChoiceBytes   = 16 << 10
	maxReasonBytes   = 1 << 10
)

// choiceEntry is one choice file.
type choiceEntry struct {
	Version string `json:"version"`
	Entry   string `json:"entry"`
	Digest  string `json:"digest"`
	Runtime string `json:"runtime"`
	Reason  string `json:"reason"`
}

// choiceStore is the directory of the remembered choices.
type choiceStore struct {
	dir     string
	version string // atomic's version (the build and the host's)
}

func (rt *Runtime) choices() choiceStore {
	return choiceStore{dir: filepath.Join(rt.cacheDir(), "choices"), version: choiceFormat + ";" + rt.HostVersion + ";" + graphVersion() + ";" + executableID()}
}

// executableID names the running binary by its size and modification
// time: a development build has no version of its own ("(devel)"), and a
// new one may give goja what an extension lacked.
var executableID = sync.OnceValue(func() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	info, err := os.Stat(exe)
	if err != nil {
		return ""
	}
	return fmt.Sprintf("exe-%d-%d", info.Size(), info.ModTime().UnixNano())
})

func (c choiceStore) file(entry string) string {
	sum := sha256.Sum256([]byte(entry))
	return filepath.Join(c.dir, hex.EncodeToString(sum[:12])+".json")
}

// recall returns the reason Node was chosen for the graph's extension at
// an earlier start, when nothing of it (nor atomic) changed since.
func (c choiceStore) recall(g Graph) (reason string, ok bool) {
	file := c.file(g.Entry)
	b, err := fsutil.ReadRegular(file, maxChoiceBytes)
	if err != nil {
		return "", false
	}
	var e choiceEntry
	if json.Unmarshal(b, &e) != nil || e.Version != c.version || e.Entry != g.Entry || e.Runtime != "node" || e.Reason == "" {
		return "", false
	}
	if d, err := graphDigest(g); err != nil || d != e.Digest {
		return "", false
	}
	now := time.Now()
	_ = os.Chtimes(file, now, now) // recently used: kept by prune
	return e.Reason, true
}

// remember records that the graph's extension runs in Node, and why. A
// failed write only costs a goja attempt at the next start.
func (c choiceStore) remember(g Graph, reason string) {
	d, err := graphDigest(g)
	if err != nil {
		return
	}
	reason = clip(reason, maxReasonBytes)
	b, err := json.Marshal(choiceEntry{Version: c.version, Entry: g.Entry, Digest: d, Runtime: "node", Reason: reason})
	if err != nil || len(b) > maxChoiceBytes {
		return
	}
	if fsutil.WriteBytes(c.file(g.Entry), b, fsutil.Options{Perm: 0o600, DirPerm: 0o700}) == nil {
		pruneGraphs(c.dir, maxChoiceEntries, maxChoiceTotal)
	}
}

// forget removes what is remembered of entry.
func (c choiceStore) forget(entry string) { _ = os.Remove(c.file(entry)) }

// graphDigest hashes the path and content of every file of the graph
// (the entry when esbuild listed none). Files that are not regular (a
// FIFO, a device) fail it: nothing is remembered.
func graphDigest(g Graph) (string, error) {
	files := g.Files
	if len(files) == 0 {
		if g.Entry == "" {
			return "", errors.New("no files")
		}
		files = []string{g.Entry}
	}
	h := sha256.New()
	for _, f := range files {
		if err := hashFile(h, f); err != nil {
			return "", err
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func hashFile(h io.Writer, path string) error {
	f, info, err := fsutil.OpenRegular(path)
	if err != nil {
		return err
	}
	defer f.Close()
	// Path and size first: two files' contents cannot run into each other.
	if _, err := fmt.Fprintf(h, "%s\x00%d\x00", path, info.Size()); err != nil {
		return err
	}
	n, err := io.Copy(h, f)
	if err != nil {
		return err
	}
	if n != info.Size() {
		return errors.New(path + " changed while it was read")
	}
	_, err = h.Write([]byte{0})
	return err
}
