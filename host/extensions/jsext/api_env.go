package jsext

import (
	"context"
	"encoding/base64"
	"log/slog"
	"os"
	"time"
	"unicode/utf8"

	"github.com/dop251/goja"

	"github.com/atomic-go/atomic/host/extensions"
	"github.com/atomic-go/atomic/host/extensions/jsext/nodecompat"
)

var processStart = time.Now()

// envAPI is what globals.js builds the environment from: the log,
// encodings, timers' sleep, and facts about the process (process.env,
// process.cwd(), performance.now() …).
type envAPI struct {
	s *Script
	r *goja.Runtime
}

func (a envAPI) exports() map[string]any {
	rt := a.s.rt
	exe, _ := os.Executable()
	return map[string]any{
		"log":        func(level, msg string) { a.s.log.Log(context.Background(), logLevel(level), msg) },
		"utf8Encode": func(str string) goja.ArrayBuffer { return a.r.NewArrayBuffer([]byte(str)) },
		"utf8Decode": utf8Decode,
		"byteLength": func(str string) int { return len(str) },
		"btoa":       a.btoa,
		"atob":       a.atob,
		"sleepMs":    sleepMs,
		"environ":    func() map[string]any { return environ(rt.Offline) },
		"cwd":        func() string { return a.s.cwd },
		"nanotime":   func() float64 { return float64(time.Since(processStart).Nanoseconds()) },
		"scriptPath": a.s.entry,
		"execPath":   exe,
		"pid":        os.Getpid(),
		"platform":   nodecompat.Platform(),
		"arch":       nodecompat.Arch(),
		"version":    rt.HostVersion,
		"agentDir":   rt.AgentDir,
	}
}

func utf8Decode(b goja.ArrayBuffer) string {
	data := b.Bytes()
	if utf8.Valid(data) {
		return string(data)
	}
	return string([]rune(string(data)))
}

func (a envAPI) btoa(str string) string {
	b, ok := latin1Bytes(str)
	if !ok {
		panic(jsErrorValue(a.r, "InvalidCharacterError: btoa: the string has characters outside the Latin1 range"))
	}
	return base64.StdEncoding.EncodeToString(b)
}

func (a envAPI) atob(str string) string {
	b, err := forgivingBase64(str)
	if err != nil {
		panic(jsErrorValue(a.r, "InvalidCharacterError: atob: the string is not correctly encoded"))
	}
	return latin1String(b)
}

// sleepMs blocks the loop for a short while (at most 50 ms a call).
func sleepMs(ms float64) {
	if ms > 0 {
		time.Sleep(time.Duration(min(ms, 50) * float64(time.Millisecond)))
	}
}

// environ is process.env: the agent's environment, with
// extensions.OfflineEnv when it runs offline.
func environ(offline bool) map[string]any {
	env := map[string]any{}
	vars := os.Environ()
	if offline {
		vars = append(vars, extensions.OfflineEnv()...)
	}
	for _, kv := range vars {
		for i := 0; i < len(kv); i++ {
			if kv[i] == '=' {
				env[kv[:i]] = kv[i+1:]
				break
			}
		}
	}
	return env
}

func logLevel(level string) slog.Level {
	switch level {
	case "debug":
		return slog.LevelDebug
	case "warn":
		return slog.LevelWarn
	case "error":
		return slog.LevelError
	}
	return slog.LevelInfo
}

// printer sends console output to the log (never to standard output).
type printer struct {
	log *slog.Logger
	rl  *rateLimiter
}

func (s *Script) printer() *printer {
	return &printer{log: s.log, rl: newRateLimiter(s.log)}
}

func (p *printer) emit(level slog.Level, msg string) {
	if p.rl.allow() {
		p.log.Log(context.Background(), level, msg, "source", "console")
	}
}

func (p *printer) Log(msg string)   { p.emit(slog.LevelInfo, msg) }
func (p *printer) Warn(msg string)  { p.emit(slog.LevelWarn, msg) }
func (p *printer) Error(msg string) { p.emit(slog.LevelError, msg) }
