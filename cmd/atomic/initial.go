package main

import (
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"golang.org/x/term"

	"github.com/atomic-go/atomic/host/app"
	"github.com/atomic-go/atomic/host/llm"
	"github.com/atomic-go/atomic/host/tools"
	"github.com/atomic-go/atomic/internal/fsutil"
)

// The prompts of one run from the command line, as pi 1.6 makes them:
// piped stdin, then the @file arguments, then the first message form the
// first prompt (with the attached images); every further message is a
// prompt of its own, sent in order once the one before has finished.

// maxAttachment caps one @file argument (and piped stdin).
const maxAttachment = 32 << 20

// splitFileArgs separates the @path arguments from the messages.
func splitFileArgs(args []string) (messages, files []string) {
	for _, a := range args {
		if len(a) > 1 && a[0] == '@' {
			files = append(files, a[1:])
		} else {
			messages = append(messages, a)
		}
	}
	return messages, files
}

// stdinIsPiped reports whether standard input is not a terminal (a pipe
// or a file whose contents are a prompt).
func stdinIsPiped() bool {
	return !term.IsTerminal(int(os.Stdin.Fd()))
}

// readPiped reads piped stdin, trimmed ("" for nothing), within
// maxAttachment.
func readPiped(in io.Reader) (string, error) {
	b, err := io.ReadAll(io.LimitReader(in, maxAttachment+1))
	if err != nil {
		return "", fmt.Errorf("reading stdin: %w", err)
	}
	if len(b) > maxAttachment {
		return "", fmt.Errorf("standard input is larger than %d MiB", maxAttachment>>20)
	}
	return strings.TrimSpace(string(b)), nil
}

// attachFiles reads the @file arguments: a text file becomes a
// <file name="…"> block of the prompt, an image (PNG, JPEG, GIF, WebP) an
// image of the prompt with an empty block naming it; an empty file is
// skipped. A file that is missing, not a regular file or too large is an
// error.
func attachFiles(files []string, cwd string) (string, []llm.ContentBlock, error) {
	var text strings.Builder
	var images []llm.ContentBlock
	for _, f := range files {
		p := tools.ResolvePath(cwd, f)
		b, err := fsutil.ReadRegular(p, maxAttachment)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return "", nil, fmt.Errorf("File not found: %s", p)
		case errors.Is(err, fsutil.ErrTooLarge):
			return "", nil, fmt.Errorf("%s is larger than the %d MiB an @file argument may attach", p, maxAttachment>>20)
		case err != nil:
			return "", nil, fmt.Errorf("cannot attach %s: %w", p, err)
		case len(b) == 0:
			continue
		}
		if mime := tools.ImageMIME(b); mime != "" {
			images = append(images, llm.Image(base64.StdEncoding.EncodeToString(b), mime))
			fmt.Fprintf(&text, "<file name=\"%s\"></file>\n", p)
			continue
		}
		body := strings.TrimPrefix(string(b), "\ufeff")
		fmt.Fprintf(&text, "<file name=\"%s\">\n%s\n</file>\n", p, body)
	}
	return text.String(), images, nil
}

// initialPrompts builds the prompts of a print or json run from the
// messages (with their @file arguments) and piped stdin ("" for none).
// Piped stdin comes first, on a line of its own before the rest (pi 1.6
// joins it to the message with no separator; a diff followed by "review"
// would end in "…review").
func initialPrompts(args []string, stdin, cwd string) ([]app.PromptInput, error) {
	messages, files := splitFileArgs(args)
	fileText, images, err := attachFiles(files, cwd)
	if err != nil {
		return nil, err
	}
	var first []string
	if stdin != "" {
		first = append(first, stdin+"\n")
	}
	if fileText != "" {
		first = append(first, fileText)
	}
	if len(messages) > 0 {
		first = append(first, messages[0])
		messages = messages[1:]
	}
	var out []app.PromptInput
	if len(first) > 0 {
		out = append(out, app.PromptInput{Text: strings.Join(first, ""), Images: images})
	}
	for _, m := range messages {
		out = append(out, app.PromptInput{Text: m})
	}
	return out, nil
}
