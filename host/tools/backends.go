package tools

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/atomic-go/atomic/internal/fsutil"
)

// Files is where read, write and edit take and put text when the files
// live with a client (an editor's buffers: ACP's fs/read_text_file and
// fs/write_text_file). The tools keep their rules around it: the path is
// resolved and checked on this machine first (a path that exists and is
// not a regular file is refused, as without Files), what is read is
// bounded (MaxClientText) and shown truncated as usual, and images and
// binary files found on disk are read from disk.
type Files interface {
	// ReadTextFile returns the text of the file at path (absolute). A
	// missing file is an error wrapping fs.ErrNotExist.
	ReadTextFile(ctx context.Context, path string) (string, error)
	// WriteTextFile creates or replaces the file at path (absolute).
	WriteTextFile(ctx context.Context, path, content string) error
}

// CommandRunner runs the bash tool's commands instead of the local shell
// (an editor's terminal: ACP's terminal/*). It honours the request's Cwd,
// Env, Timeout (TimedOut), MaxLines/MaxBytes (the output is cut with
// TruncateTail) and OnUpdate, and returns with Cancelled set when ctx ends.
type CommandRunner interface {
	RunCommand(ctx context.Context, callID string, req ShellRequest) (ShellOutput, error)
}

// MaxClientText bounds the text a tool takes from Files: the same bound
// as edit's (a client's answer is held whole).
const MaxClientText = MaxEditBytes

// readClientText reads the file at abs (p as the model named it) through
// files, under the tools' rules: a path that exists here and is not a
// regular file is refused, and the text is bounded by MaxClientText.
func readClientText(ctx context.Context, files Files, abs, p, verb string) (string, error) {
	if _, err := fsutil.StatRegular(abs); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", toolFileError(err, p, verb)
	}
	text, err := files.ReadTextFile(ctx, abs)
	if err != nil {
		if ctx.Err() != nil {
			return "", ErrAborted
		}
		return "", toolFileError(err, p, verb)
	}
	if len(text) > MaxClientText {
		return "", fmt.Errorf("Cannot %s %s: it is larger than the %s the tools take from the client", verb, p, FormatSize(MaxClientText))
	}
	return text, nil
}

// OutputOf is the ShellOutput of a command's output as a CommandRunner
// got it: cleaned as RunShell cleans it, one trailing newline removed,
// cut with TruncateTail to the request's limits. cut says the runner kept
// only the end of the output (the totals then count what it kept).
func OutputOf(req ShellRequest, text string, cut bool) ShellOutput {
	text = SanitizeOutput(text)
	if req.StripCR {
		text = strings.ReplaceAll(text, "\r", "")
	}
	trailing := strings.HasSuffix(text, "\n")
	text = strings.TrimSuffix(text, "\n")
	tr := TruncateTail(text, req.MaxLines, req.MaxBytes)
	tr.Truncated = tr.Truncated || cut
	last := text[strings.LastIndexByte(text, '\n')+1:]
	return ShellOutput{Output: tr.Content, Truncation: tr, LastLineBytes: len(last), TrailingNewline: trailing}
}
