package jsext

import (
	"log/slog"
	"sync"
	"time"
)

// Limits of a script's console output.
const (
	logLinesPerSecond = 200
	logBurst          = 400
)

// rateLimiter keeps a script that floods its console from flooding the
// agent's log: excess lines are counted and reported once per second.
type rateLimiter struct {
	log        *slog.Logger
	mu         sync.Mutex
	tokens     float64
	last       time.Time
	suppressed int
	reported   time.Time
}

func newRateLimiter(log *slog.Logger) *rateLimiter {
	return &rateLimiter{log: log, tokens: logBurst, last: time.Now()}
}

func (l *rateLimiter) allow() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := time.Now()
	l.tokens += now.Sub(l.last).Seconds() * logLinesPerSecond
	if l.tokens > logBurst {
		l.tokens = logBurst
	}
	l.last = now
	if l.tokens >= 1 {
		l.tokens--
		return true
	}
	l.suppressed++
	if now.Sub(l.reported) > time.Second {
		l.log.Warn("script console is flooding; lines suppressed", "suppressed", l.suppressed)
		l.reported, l.suppressed = now, 0
	}
	return false
}
