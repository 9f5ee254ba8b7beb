package app

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/atomic-go/atomic/host/events"
	"github.com/atomic-go/atomic/host/hooks"
	"github.com/atomic-go/atomic/host/llm"
	"github.com/atomic-go/atomic/host/session"
)

// routeVirtual is the provider of the virtual models extensions register
// (pi's registerVirtualModel): it asks the extension where the request
// goes (its route(), through the event virtual_model_route) and streams
// from that physical model with its provider's credentials; the message
// names the physical model. A route that fails, names no model, another
// virtual model or one without credentials ends the request with an
// error, as in pi.
func (rt *Runtime) routeVirtual(ctx context.Context, req *llm.Request, b *llm.Builder) error {
	vm := req.Model
	bus := rt.ext.bus
	if bus == nil || !bus.Has(hooks.VirtualModelRoute) {
		return fmt.Errorf("virtual model %s/%s: no extension routes it", vm.Provider, vm.ID)
	}
	level := req.ThinkingLevel
	if level == "" {
		level = llm.ThinkingOff
	}
	// As pi: a request is the user's when a message the user wrote
	// follows the last answer.
	reason := "continuation"
	for i := len(req.Messages) - 1; i >= 0 && req.Messages[i].Role != llm.RoleAssistant; i-- {
		if req.Messages[i].Role == llm.RoleUser {
			reason = "user"
			break
		}
	}
	request := map[string]any{"model": vm, "thinkingLevel": level, "reason": reason, "messages": req.Messages}
	loop := loopRequestOf(ctx)
	if loop == nil {
		// Outside the agent loop (a compaction summary, an extension's
		// model call): no router state.
		reason = "direct"
		request["reason"] = reason
	}
	if loop != nil && loop.failed != nil {
		failed := loop.failed
		// The automatic retry of a failed request: the failed message
		// is no longer in the messages.
		reason = "retry"
		f := map[string]any{"message": failed}
		if fm, ok := rt.catalog.Find(failed.Provider, failed.Model); ok {
			f["model"] = fm
		}
		if loop.failedLevel != "" {
			f["thinkingLevel"] = loop.failedLevel
		}
		request["reason"], request["failed"] = reason, f
	}
	rt.mu.Lock()
	sess := rt.sess
	rt.mu.Unlock()
	var state json.RawMessage
	if loop != nil {
		state = rt.ext.virtual.state(sess, vm)
	}
	if state != nil {
		request["state"] = state
	}
	for i := len(req.Messages) - 1; i >= 0; i-- {
		m := req.Messages[i]
		if m.Role != llm.RoleAssistant || m.StopReason == llm.StopError || m.StopReason == llm.StopAborted {
			continue
		}
		if pm, ok := rt.catalog.Find(m.Provider, m.Model); ok {
			request["previous"] = map[string]any{"model": pm}
		}
		break
	}
	var answer hooks.VirtualModelRouteResult
	raws := bus.Call(ctx, hooks.VirtualModelRoute, hooks.VirtualModelRouteEvent{Provider: vm.Provider, ID: vm.ID, Request: request})
	if len(raws) == 0 || json.Unmarshal(raws[0], &answer) != nil || answer.Model == nil {
		return fmt.Errorf("virtual model %s/%s: route() gave no model", vm.Provider, vm.ID)
	}
	pm, ok := rt.catalog.Find(answer.Model.Provider, answer.Model.ID)
	switch {
	case !ok:
		return fmt.Errorf("virtual model %s/%s: route() chose %s/%s, which the catalogue does not have", vm.Provider, vm.ID, answer.Model.Provider, answer.Model.ID)
	case pm.API == llm.APIVirtual:
		return fmt.Errorf("virtual model %s/%s: route() chose another virtual model (%s/%s)", vm.Provider, vm.ID, pm.Provider, pm.ID)
	case rt.catalog.Usable != nil && !rt.catalog.Usable(pm.Provider):
		return fmt.Errorf("virtual model %s/%s: route() chose %s/%s, whose provider has no credentials", vm.Provider, vm.ID, pm.Provider, pm.ID)
	}
	if len(answer.State) > 0 && sess != nil && loop != nil {
		// New router state is kept on the branch before the request goes
		// out (route() leaves the state out to keep it).
		e := rt.appendEntry(sess, session.Entry{Type: session.TypeCustom, CustomType: virtualStateEntry,
			Data: map[string]any{"provider": vm.Provider, "modelId": vm.ID, "state": answer.State}})
		rt.Emit(events.Raw{Type: "entry_appended", Fields: map[string]any{"entry": e}})
	}
	provider, err := rt.catalog.ProviderFor(pm)
	if err != nil {
		return err
	}
	if answer.ThinkingLevel != "" {
		level = answer.ThinkingLevel
	}
	key, _ := rt.catalog.Credential(pm.Provider)
	routed := *req
	routed.Model, routed.APIKey, routed.Headers = pm, key, rt.requestHeaders(pm, key)
	if req.Hooks != nil {
		routed.Hooks = rt.providerHooks(pm) // the stream events name the physical model
	}
	routed.ThinkingLevel = llm.ClampThinkingLevel(&pm, level)
	if !pm.Reasoning {
		routed.ThinkingLevel = llm.ThinkingOff
	}
	if loop != nil {
		loop.level = routed.ThinkingLevel
	}
	b.Route(pm)
	return provider.Stream(ctx, &routed, b)
}

// virtualStateEntry is the custom entry that keeps a router's state on
// the session branch (pi's VIRTUAL_MODEL_STATE_ENTRY).
const virtualStateEntry = "pi.virtual-model-state"

// virtualStates remembers, per virtual model, the router state found on
// the session branch and the leaf it was found from, so that each request
// looks only at the entries appended since (a branch walked again only
// after the leaf moved off it). A leaf lock (mu guards only its fields;
// the session's read lock is taken under it).
type virtualStates struct {
	mu     sync.Mutex
	sessID string                 // the session seen holds for (its id: no pointer keeps a replaced session alive)
	seen   map[string]virtualSeen // by "provider/id"
}

type virtualSeen struct {
	leaf  string
	state json.RawMessage
}

// state is the latest router state the active branch of sess keeps for
// the virtual model vm, as JSON (nil: none).
func (v *virtualStates) state(sess *session.Session, vm llm.Model) json.RawMessage {
	if sess == nil {
		return nil
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if id := sess.ID(); v.sessID != id || v.seen == nil {
		v.sessID, v.seen = id, map[string]virtualSeen{}
	}
	key := vm.Provider + "/" + vm.ID
	prev, known := v.seen[key]
	stop := ""
	if known {
		stop = prev.leaf
	}
	var state json.RawMessage
	found, atStop, leaf := sess.FindBack(session.TypeCustom, stop, func(e *session.Entry) bool {
		st, ok := virtualStateOf(e, vm)
		state = st
		return ok
	})
	switch {
	case found != nil:
	case atStop:
		state = prev.state
	default:
		state = nil
	}
	v.seen[key] = virtualSeen{leaf: leaf, state: state}
	return state
}

// virtualStateOf reads a pi.virtual-model-state entry of the virtual
// model vm.
func virtualStateOf(e *session.Entry, vm llm.Model) (json.RawMessage, bool) {
	if e.CustomType != virtualStateEntry {
		return nil, false
	}
	b, err := json.Marshal(e.Data)
	if err != nil {
		return nil, false
	}
	var d struct {
		Provider string          `json:"provider"`
		ModelID  string          `json:"modelId"`
		State    json.RawMessage `json:"state"`
	}
	if json.Unmarshal(b, &d) != nil || d.Provider != vm.Provider || d.ModelID != vm.ID {
		return nil, false
	}
	return d.State, true
}
