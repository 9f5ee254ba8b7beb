package rpcclient

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"syscall"
	"time"
)

// Response is a response record: the answer to one command.
type Response struct {
	ID      string `json:"id,omitempty"`
	Type    string `json:"type"`
	Command string `json:"command"`
	Success bool   `json:"success"`
	// Data is the payload as received: nil when the response had none,
	// "null" when it was an explicit null.
	Data         json.RawMessage `json:"data,omitempty"`
	Error        string          `json:"error,omitempty"`
	ErrorCode    string          `json:"errorCode,omitempty"`
	ErrorDetails json.RawMessage `json:"errorDetails,omitempty"`
}

// Decode decodes the response's data into v. Absent or null data leaves v
// unchanged.
func (r *Response) Decode(v any) error {
	if len(r.Data) == 0 || string(r.Data) == "null" {
		return nil
	}
	if err := json.Unmarshal(r.Data, v); err != nil {
		return fmt.Errorf("rpcclient: decode %s data: %w", r.Command, err)
	}
	return nil
}

// IsNull reports whether the response's data is absent or an explicit
// null.
func (r *Response) IsNull() bool { return len(r.Data) == 0 || string(r.Data) == "null" }

// CommandError is a response with success false: the agent refused or
// failed the command.
type CommandError struct {
	Command string
	Message string
	// Code and Details are the optional errorCode and errorDetails of the
	// response.
	Code    string
	Details json.RawMessage
}

// Error implements error: "<command>: <message>".
func (e *CommandError) Error() string {
	return fmt.Sprintf("%s: %s", e.Command, e.Message)
}

// TimeoutError is returned when a quick command got no response within
// Options.RequestTimeout.
type TimeoutError struct {
	Command string
	After   time.Duration
	Stderr  string // the agent's recent stderr
}

// Error implements error.
func (e *TimeoutError) Error() string {
	return fmt.Sprintf("rpcclient: timeout waiting for the response to %s after %v%s", e.Command, e.After, stderrSuffix(e.Stderr))
}

// ExitError is returned by calls that were waiting, or are made, after the
// agent process exited.
type ExitError struct {
	// Command is the command that was waiting (empty for the process's own
	// exit).
	Command string
	State   *os.ProcessState
	Stderr  string // the agent's recent stderr
}

// Code returns the exit status, or -1 when a signal ended the process.
func (e *ExitError) Code() int {
	if e.State == nil {
		return -1
	}
	return e.State.ExitCode()
}

// Signal returns the signal that ended the process, or 0.
func (e *ExitError) Signal() syscall.Signal {
	if e.State == nil {
		return 0
	}
	if ws, ok := e.State.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return ws.Signal()
	}
	return 0
}

// Error implements error, with the exit status and the tail of stderr.
func (e *ExitError) Error() string {
	what := "agent process exited"
	if e.Command != "" {
		what = "agent process exited before answering " + e.Command
	}
	sig := "none"
	if s := e.Signal(); s != 0 {
		sig = s.String()
	}
	return fmt.Sprintf("rpcclient: %s (code=%d signal=%s)%s", what, e.Code(), sig, stderrSuffix(e.Stderr))
}

func stderrSuffix(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return ""
	}
	const max = 2000
	if len(s) > max {
		s = "…" + s[len(s)-max:]
	}
	return "; stderr: " + s
}
