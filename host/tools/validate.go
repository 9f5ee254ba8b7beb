package tools

import (
	"fmt"

	"github.com/atomic-go/atomic/host/tools/toolargs"
)

// Validate coerces a tool call's arguments and checks them against the
// tool's parameter schema as pi 1.6 does (host/tools/toolargs): it returns
// the arguments the tool runs with ("42" becomes 42 for an integer, a
// single value a one-item array), or pi's message listing each problem and
// the arguments received. raw is the model's argument text when there is
// one: the message echoes it in the order the model wrote it.
func (r *Registry) Validate(t Tool, args map[string]any, raw string) (map[string]any, error) {
	schema, err := r.schema(t)
	if err != nil {
		return nil, fmt.Errorf("tool %s has an invalid parameter schema: %w", t.Name(), err)
	}
	if args == nil {
		args = map[string]any{}
	}
	if schema == nil {
		return args, nil
	}
	received := toolargs.FromGo(args)
	if raw != "" {
		if v, err := toolargs.Decode([]byte(raw)); err == nil {
			if _, isObj := v.(*toolargs.Object); isObj {
				received = v
			}
		}
	}
	coerced, problems := schema.Parse(received)
	if problems != nil {
		return nil, fmt.Errorf("%s", toolargs.FormatError(t.Name(), problems, received))
	}
	out, ok := toolargs.ToGo(coerced).(map[string]any)
	if !ok {
		return args, nil
	}
	return out, nil
}

func (r *Registry) schema(t Tool) (*toolargs.Schema, error) {
	r.mu.RLock()
	s, ok := r.schemas[t.Name()]
	r.mu.RUnlock()
	if ok {
		return s, nil
	}
	params := t.Parameters()
	if len(params) == 0 {
		return nil, nil
	}
	s, err := toolargs.Compile(params)
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	r.schemas[t.Name()] = s
	r.mu.Unlock()
	return s, nil
}
