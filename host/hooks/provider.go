package hooks

import (
	"context"
	"encoding/json"
	"fmt"
)

// ProviderHeaders dispatches before_provider_headers: each handler sees
// {headers} as the handlers before it left them (a deleted header as
// null) and returns {headers}, the whole set. It returns the changes to
// make: a value to set, or nil to delete.
func (b *Bus) ProviderHeaders(ctx context.Context, headers map[string]string) map[string]*string {
	cur := map[string]*string{}
	for k, v := range headers {
		cur[k] = &v
	}
	for _, e := range b.handlers(BeforeProviderHeaders) {
		raw, err := b.invoke(ctx, e, NewEvent(BeforeProviderHeaders, BeforeProviderHeadersEvent{Headers: cur}))
		if err == nil && truthy(raw) {
			var r BeforeProviderHeadersResult
			if err = decodeObject(raw, &r); err == nil && r.Headers != nil {
				// A header the handler deleted from the object goes too.
				for k := range cur {
					if _, ok := r.Headers[k]; !ok {
						r.Headers[k] = nil
					}
				}
				cur = r.Headers
			} else if err != nil {
				err = fmt.Errorf("malformed result: %w", err)
			}
		}
		if err != nil && !isCancel(ctx, err) {
			b.report(e.e.sub, BeforeProviderHeaders, err)
		}
	}
	changes := map[string]*string{}
	for k, v := range cur {
		old, had := headers[k]
		switch {
		case v == nil && had:
			changes[k] = nil
		case v != nil && (!had || old != *v):
			changes[k] = v
		}
	}
	return changes
}

// ProviderRequest dispatches before_provider_request: each handler sees
// {payload} as the handlers before it left it and may return {payload},
// which replaces it for later handlers and for the request. It returns
// the payload to send, or nil when no handler changed it.
func (b *Bus) ProviderRequest(ctx context.Context, payload json.RawMessage) json.RawMessage {
	var out json.RawMessage
	cur := payload
	for _, e := range b.handlers(BeforeProviderRequest) {
		raw, err := b.invoke(ctx, e, NewEvent(BeforeProviderRequest, BeforeProviderRequestEvent{Payload: cur}))
		if err == nil && truthy(raw) {
			var r BeforeProviderRequestResult
			if err = decodeObject(raw, &r); err == nil && truthy(r.Payload) {
				cur, out = r.Payload, r.Payload
			}
		}
		if err != nil && !isCancel(ctx, err) {
			b.report(e.e.sub, BeforeProviderRequest, err)
		}
	}
	return out
}
