package jsext

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"

	"github.com/dop251/goja"

	"github.com/atomic-go/atomic/host/llm"
	"github.com/atomic-go/atomic/host/tools"
)

// The built-in tool factories of the pi package (createReadTool(cwd),
// createBashTool(cwd, {spawnHook}), …): an extension wraps or overrides a
// built-in tool with them. They run the agent's own built-in tools
// (tools.RunBuiltin, shared with the Node runtime), so the wrapped tool
// behaves exactly as the built-in does.

// builtinToolInfo is what a factory's tool object shows: the built-in's
// description, parameters and prompt lines, as JSON ("" for an unknown
// name).
func builtinToolInfo(name string) string {
	info, ok := tools.BuiltinFactoryInfo(name)
	if !ok {
		return ""
	}
	return jsString(info)
}

// runBuiltinTool runs the built-in tool name with the arguments (JSON), in
// cwd, with extra environment (KEY=VALUE), until the token is cancelled;
// onUpdate (a function or undefined) receives partial results as JSON. The
// promise settles with the result as JSON, or rejects with the tool's
// error (as pi's tools throw).
func (s *Script) runBuiltinTool(r *goja.Runtime, token int64, name, cwd, argsJSON, envJSON string, onUpdate goja.Value) goja.Value {
	if _, ok := tools.BuiltinFactoryInfo(name); !ok {
		panic(r.NewTypeError(fmt.Sprintf("%q is not a built-in tool", name)))
	}
	args := mustJSON[map[string]any](r, name, argsJSON)
	env := mustJSON[[]string](r, name, envJSON)
	update, _ := goja.AssertFunction(onUpdate)
	ctx, done := s.tokenContext(context.Background(), token)
	return s.async(r, func() (any, error) {
		defer done()
		var onUpd func(llm.ToolResult)
		if update != nil {
			onUpd = func(res llm.ToolResult) {
				b, err := json.Marshal(res)
				if err != nil {
					return
				}
				s.vm.run(func(r *goja.Runtime) {
					if _, err := update(goja.Undefined(), r.ToValue(string(b))); err != nil {
						s.log.Warn("a built-in tool's onUpdate failed", "tool", name, "error", s.errText(err))
					}
				})
			}
		}
		return tools.RunBuiltin(ctx, name, args, cwd, env, onUpd)
	}, jsonResult)
}

// latin1Bytes is the string as bytes, one per character, when every
// character is in U+0000..U+00FF (what btoa takes).
func latin1Bytes(s string) ([]byte, bool) {
	out := make([]byte, 0, len(s))
	for _, c := range s {
		if c > 0xff {
			return nil, false
		}
		out = append(out, byte(c))
	}
	return out, true
}

// latin1String is the bytes as a string of one character each (what
// atob returns).
func latin1String(b []byte) string {
	rs := make([]rune, len(b))
	for i, c := range b {
		rs[i] = rune(c)
	}
	return string(rs)
}

// forgivingBase64 decodes as the web's atob does: ASCII white space is
// ignored and the padding may be left out.
func forgivingBase64(s string) ([]byte, error) {
	clean := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case ' ', '\t', '\n', '\f', '\r':
		default:
			clean = append(clean, c)
		}
	}
	if len(clean)%4 == 0 && len(clean) >= 2 && clean[len(clean)-1] == '=' {
		clean = clean[:len(clean)-1]
		if clean[len(clean)-1] == '=' {
			clean = clean[:len(clean)-1]
		}
	}
	if len(clean)%4 == 1 {
		return nil, fmt.Errorf("bad length")
	}
	return base64.RawStdEncoding.DecodeString(string(clean))
}
