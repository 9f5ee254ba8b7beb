package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/atomic-go/atomic/host/llm"
)

//go:embed bash.md
var bashDescription string

// BashDetails are the details of a bash result.
type BashDetails struct {
	Truncation     *Truncation `json:"truncation,omitempty"`
	FullOutputPath string      `json:"fullOutputPath,omitempty"`
}

// BashTool runs shell commands.
type BashTool struct{}

var _ Prompted = BashTool{}

func (BashTool) Name() string        { return "bash" }
func (BashTool) Description() string { return strings.TrimSpace(bashDescription) }

func (BashTool) Parameters() json.RawMessage {
	return json.RawMessage(`{
  "type": "object",
  "properties": {
    "command": {"type": "string", "description": "Shell command to run"},
    "timeout": {"type": "number", "description": "Time limit in seconds; no limit when omitted"}
  },
  "required": ["command"]
}`)
}

func (BashTool) PromptSnippet() string {
	return "Run a shell command (build, test, git, search, file operations)"
}

func (BashTool) PromptGuidelines() []string {
	return []string{
		"Commands run without a terminal or input; pass flags that avoid prompts and pagers.",
		"Give a timeout to commands that may run for a long time or never finish.",
	}
}

func (BashTool) Execute(ctx context.Context, call Call) (llm.ToolResult, error) {
	command, err := requiredString(call.Args, "command")
	if err != nil {
		return llm.ToolResult{}, err
	}
	timeout, hasTimeout, err := numberArg(call.Args, "timeout")
	if err != nil {
		return llm.ToolResult{}, err
	}
	req := ShellRequest{Command: command, Shell: call.Shell, Cwd: call.Cwd, Env: call.Env}
	if hasTimeout && timeout > 0 {
		req.Timeout = time.Duration(math.Min(timeout, 365*24*3600) * float64(time.Second))
	}
	if req.Cwd == "" {
		req.Cwd = ResolvePath("", ".")
	}
	if call.OnUpdate != nil {
		req.OnUpdate = func(o ShellOutput) { call.Update(bashResult(o.text(), o)) }
	}
	var out ShellOutput
	if call.Runner != nil {
		out, err = call.Runner.RunCommand(ctx, call.ID, req)
	} else {
		out, err = RunShell(ctx, req)
	}
	if err != nil {
		return llm.ToolResult{}, err
	}

	text := out.text()
	if tr := out.Truncation; tr.Truncated {
		text += "\n\n" + shellTruncationNotice(out)
	}
	fail := func(msg string) (llm.ToolResult, error) {
		res := bashResult(msg, out)
		return res, &ErrorWithResult{Result: res, Err: errors.New(msg)}
	}
	switch {
	case out.Cancelled:
		return fail(joinNonEmpty(text, "Command aborted"))
	case out.TimedOut:
		return fail(joinNonEmpty(text, "Command timed out after "+strconv.FormatFloat(timeout, 'f', -1, 64)+" seconds"))
	}
	if text == "" {
		text = "(no output)"
	}
	if out.ExitCode != 0 {
		return fail(fmt.Sprintf("%s\n\nCommand exited with code %d", text, out.ExitCode))
	}
	return bashResult(text, out), nil
}

// text is the output as the command wrote it, its trailing newline
// included (pi keeps it: "hi\n"); a truncated tail ends without it, as in
// pi.
func (o ShellOutput) text() string {
	if o.TrailingNewline && !o.Truncation.Truncated {
		return o.Output + "\n"
	}
	return o.Output
}

func joinNonEmpty(a, b string) string {
	if a == "" {
		return b
	}
	return a + "\n\n" + b
}

// bashResult builds a result with text and the output's details.
func bashResult(text string, o ShellOutput) llm.ToolResult {
	res := llm.TextResult(text)
	var d BashDetails
	if o.Truncation.Truncated {
		tr := o.Truncation
		d.Truncation = &tr
	}
	d.FullOutputPath = o.FullOutputPath
	if d.Truncation != nil || d.FullOutputPath != "" {
		res.Details = d
	}
	return res
}

// shellTruncationNotice describes how a tail-truncated command output was
// cut and where the full output is.
func shellTruncationNotice(o ShellOutput) string {
	tr := o.Truncation
	where := ""
	if o.FullOutputPath != "" {
		where = " Full output: " + o.FullOutputPath
	}
	end := tr.TotalLines
	start := end - tr.OutputLines + 1
	switch {
	case tr.LastLinePartial:
		return fmt.Sprintf("[Showing last %s of line %d (line is %s).%s]", FormatSize(tr.OutputBytes), end, FormatSize(o.LastLineBytes), where)
	case tr.TruncatedBy == TruncatedByLines:
		return fmt.Sprintf("[Showing lines %d-%d of %d.%s]", start, end, tr.TotalLines, where)
	default:
		return fmt.Sprintf("[Showing lines %d-%d of %d (%s limit).%s]", start, end, tr.TotalLines, FormatSize(tr.MaxBytes), where)
	}
}
