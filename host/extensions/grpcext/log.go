package grpcext

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"regexp"
	"sync"
	"time"
)

// Limits of a plugin's log output.
const (
	logLinesPerSecond = 200
	logBurst          = 400
	logMaxLine        = 4096
)

// logWriter turns a plugin's standard error (and forwarded standard
// output) into log records with the plugin's name. A plugin that floods
// its log is rate limited: excess lines are counted and reported once per
// second instead of written.
type logWriter struct {
	log    *slog.Logger
	stream string

	mu         sync.Mutex
	buf        []byte
	tokens     float64
	last       time.Time
	suppressed int
	reported   time.Time

	// missing is the first line saying that a dependency of the plugin is
	// missing (a module not found, a shared library not loaded);
	// missingSeen is closed when it is set.
	missing     string
	missingSeen chan struct{}
}

func newLogWriter(log *slog.Logger, stream string) *logWriter {
	return &logWriter{log: log, stream: stream, tokens: logBurst, last: time.Now(), missingSeen: make(chan struct{})}
}

// missingDependency matches the messages of runtimes that cannot find a
// dependency: Node, Python, the dynamic loader.
var missingDependency = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`Cannot find module '[^']+'|Cannot find package '[^']+'|ModuleNotFoundError: No module named '[^']+'|error while loading shared libraries: [^:]+`)
})

// missingDependency returns the missing-dependency message seen on this
// stream, waiting up to wait for it (the plugin's output may still be on
// its way when its start fails); "" when there was none.
func (w *logWriter) missingDependency(wait time.Duration) string {
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-w.missingSeen:
	case <-t.C:
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.missing
}

func (w *logWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			if len(w.buf) < logMaxLine {
				w.buf = append(w.buf, p[:min(len(p), logMaxLine-len(w.buf))]...)
			}
			break
		}
		if len(w.buf) < logMaxLine {
			w.buf = append(w.buf, p[:min(i, logMaxLine-len(w.buf))]...)
		}
		w.emitLocked(w.buf)
		w.buf = w.buf[:0]
		p = p[i+1:]
	}
	return n, nil
}

func (w *logWriter) allowLocked() bool {
	now := time.Now()
	w.tokens += now.Sub(w.last).Seconds() * logLinesPerSecond
	if w.tokens > logBurst {
		w.tokens = logBurst
	}
	w.last = now
	if w.tokens >= 1 {
		w.tokens--
		return true
	}
	return false
}

func (w *logWriter) emitLocked(line []byte) {
	line = bytes.TrimRight(line, "\r")
	if len(bytes.TrimSpace(line)) == 0 {
		return
	}
	if w.missing == "" {
		if m := missingDependency().Find(line); m != nil {
			w.missing = string(m)
			close(w.missingSeen)
		}
	}
	if !w.allowLocked() {
		// Counted, and reported once a second while the flood lasts.
		w.suppressed++
		if w.reported.IsZero() {
			// This line opens the streak and is counted in its report.
			w.log.Warn("plugin log is flooding; suppressing lines", "keptPerSecond", logLinesPerSecond)
			w.reported = time.Now()
			w.suppressed = 1
		} else if time.Since(w.reported) > time.Second {
			w.log.Warn("plugin log is flooding; lines suppressed", "suppressed", w.suppressed)
			w.reported = time.Now()
			w.suppressed = 0
		}
		return
	}
	if !w.reported.IsZero() {
		// The first line let through again ends the streak: say how many
		// lines were dropped since the last report.
		if w.suppressed > 0 {
			w.log.Warn("plugin log flood over; lines suppressed", "suppressed", w.suppressed)
		}
		w.suppressed = 0
		w.reported = time.Time{}
	}
	level, msg, attrs := parseLine(line)
	args := []any{"stream", w.stream}
	args = append(args, attrs...)
	w.log.Log(context.Background(), level, msg, args...)
}

// parseLine reads go-plugin's JSON log lines (hclog) and plain text.
func parseLine(line []byte) (slog.Level, string, []any) {
	if len(line) > 0 && line[0] == '{' {
		var m map[string]any
		if json.Unmarshal(line, &m) == nil {
			if msg, ok := m["@message"].(string); ok {
				lvl := slog.LevelInfo
				switch m["@level"] {
				case "trace", "debug":
					lvl = slog.LevelDebug
				case "warn":
					lvl = slog.LevelWarn
				case "error":
					lvl = slog.LevelError
				}
				var attrs []any
				for k, v := range m {
					if len(k) > 0 && k[0] != '@' {
						attrs = append(attrs, k, v)
					}
				}
				return lvl, msg, attrs
			}
		}
	}
	return slog.LevelInfo, string(line), nil
}
