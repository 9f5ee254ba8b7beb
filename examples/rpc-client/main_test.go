package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/atomic-go/atomic/internal/e2e"
	"github.com/atomic-go/atomic/sdk/rpcclient"
)

func TestRunAgainstAtomic(t *testing.T) {
	cmd, env := e2e.Command(t, e2e.Options{Script: []map[string]any{
		{"text": "Checking.", "toolCalls": []map[string]any{{"name": "bash", "arguments": map[string]any{"command": "echo from-the-tool"}}}},
		{"text": "All done here.", "chunks": 3},
	}})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var out, errOut bytes.Buffer
	err := run(ctx, config{bin: cmd.Path, prompt: "do it", args: cmd.Args[3:], env: cmd.Env, dir: env.Dir}, strings.NewReader(""), &out, &errOut)
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut.String())
	}
	if out.String() != "Checking.All done here.\n" {
		t.Errorf("stdout %q", out.String())
	}
	if !strings.Contains(errOut.String(), `[tool bash {"command":"echo from-the-tool"}]`) ||
		!strings.Contains(errOut.String(), "[4 messages,") {
		t.Errorf("stderr %q", errOut.String())
	}
}

func TestAnswerDialogs(t *testing.T) {
	ask := func(req rpcclient.UIRequest, yes bool, typed string) string {
		var errOut bytes.Buffer
		r := answer(req, yes, bufio.NewReader(strings.NewReader(typed)), &errOut)
		switch {
		case r.Cancelled:
			return "cancelled"
		case r.Confirmed != nil:
			return fmt.Sprint(*r.Confirmed)
		case r.Value != nil:
			return "value:" + *r.Value
		}
		return "none"
	}
	cases := []struct {
		req   rpcclient.UIRequest
		yes   bool
		typed string
		want  string
	}{
		{rpcclient.UIRequest{Method: "confirm", Title: "t", Message: "m"}, false, "y\n", "true"},
		{rpcclient.UIRequest{Method: "confirm"}, false, "\n", "false"},
		{rpcclient.UIRequest{Method: "confirm"}, true, "", "true"},
		{rpcclient.UIRequest{Method: "select", Options: []string{"a", "b"}}, false, "2\n", "value:b"},
		{rpcclient.UIRequest{Method: "select", Options: []string{"a", "b"}}, false, "9\n", "cancelled"},
		{rpcclient.UIRequest{Method: "input", Title: "name"}, false, "Ada\n", "value:Ada"},
		{rpcclient.UIRequest{Method: "input"}, false, "", "cancelled"},
		{rpcclient.UIRequest{Method: "notify", Message: "hi"}, false, "", "none"},
	}
	for i, c := range cases {
		if got := ask(c.req, c.yes, c.typed); got != c.want {
			t.Errorf("case %d (%s): %s, want %s", i, c.req.Method, got, c.want)
		}
	}
}
