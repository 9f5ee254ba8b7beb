package rpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"

	"github.com/atomic-go/atomic/internal/jsonw"
)

// Request is one decoded command line.
type Request struct {
	// ID is the raw JSON of the request id, nil when absent.
	ID   json.RawMessage
	Type string
	// Raw is the whole command object.
	Raw json.RawMessage
	// Accepted is what the command's Accept function left for its handler.
	Accepted any

	after func()
	// later, when set, gives the response: it runs off the lane and the
	// response is sent when it returns.
	later func() (any, error)
	// fail, when set, is answered instead of running a handler (an input
	// line that is not a command still waits for its turn, so that
	// responses keep the order of the input).
	fail *LineError
}

// After sets a function that runs once the response has been queued (used
// by prompt so that its acknowledgement precedes the run's events).
func (r *Request) After(fn func()) { r.after = fn }

// Later makes the response wait for fn, which runs off the request lane
// once the handler has returned (other commands are served meanwhile):
// fn's result is the response. Used by prompt for an extension command,
// answered when the command has finished.
func (r *Request) Later(fn func() (any, error)) { r.later = fn }

// Decode unmarshals the command into v, turning type errors into clear
// messages.
func (r *Request) Decode(v any) error {
	if err := json.Unmarshal(r.Raw, v); err != nil {
		return decodeError(err)
	}
	return nil
}

// LineError is an input line that is not a runnable command. Its response
// carries ID (when one could be read) and Command ("" leaves the key out).
type LineError struct {
	ID      json.RawMessage
	Command string
	Err     error
}

func (e *LineError) Error() string { return e.Err.Error() }

// ParseCommand decodes the envelope of one input line: it must be a JSON
// object whose "type" is a string. The error says what the response to a
// line that is not a command must be: "parse" for text that is not JSON,
// "unknown" for JSON that is not a command object, and no command at all
// when "type" is missing.
func ParseCommand(line []byte) (*Request, *LineError) {
	var env struct {
		ID   json.RawMessage `json:"id"`
		Type json.RawMessage `json:"type"`
	}
	if first := bytes.TrimLeft(line, " \t\r\n"); len(first) == 0 || first[0] != '{' {
		if !json.Valid(line) {
			return nil, &LineError{Command: "parse", Err: errors.New("Failed to parse command: " + syntaxMessage(line))}
		}
		return nil, &LineError{Command: "unknown", Err: errors.New("Invalid command: a command must be a JSON object")}
	}
	// Unmarshal checks the whole line before decoding anything, so a
	// syntax error anywhere is reported as one.
	if err := json.Unmarshal(line, &env); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return nil, &LineError{Command: "parse", Err: errors.New("Failed to parse command: " + err.Error())}
		}
		// Not reachable for a valid object; kept so that a decoder change
		// cannot turn into a crash.
		return nil, &LineError{Command: "unknown", Err: fmt.Errorf("Invalid command: %w", err)}
	}
	req := &Request{ID: compactID(env.ID), Raw: line}
	if env.Type == nil || string(env.Type) == "null" {
		return nil, &LineError{ID: req.ID, Err: errors.New("Unknown command: undefined")}
	}
	if err := json.Unmarshal(env.Type, &req.Type); err != nil {
		return nil, &LineError{ID: req.ID, Command: "unknown", Err: errors.New(`Invalid command: field "type" must be a string`)}
	}
	return req, nil
}

// IsUIResponse reports whether req answers an extension UI request: such
// records carry a string id and never get a response. Without a string id
// the record is treated as an (unknown) command and answered.
func IsUIResponse(req *Request) bool {
	return req.Type == "extension_ui_response" && len(req.ID) > 0 && req.ID[0] == '"'
}

// syntaxMessage describes why line is not JSON.
func syntaxMessage(line []byte) string {
	if len(bytes.TrimSpace(line)) == 0 {
		return "Unexpected end of JSON input"
	}
	var v any
	if err := json.Unmarshal(line, &v); err != nil {
		return err.Error()
	}
	return "invalid JSON"
}

// compactID returns the id as it is echoed: compacted, and with bytes that
// are not UTF-8 replaced by U+FFFD (every valid UTF-8 id is echoed exactly,
// escapes included).
func compactID(id json.RawMessage) json.RawMessage {
	if id == nil {
		return nil
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, id); err != nil {
		return jsonw.ValidUTF8(id)
	}
	return jsonw.ValidUTF8(buf.Bytes())
}

func decodeError(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		if te.Field == "" {
			return fmt.Errorf("Invalid command: expected %s, got %s", jsonTypeName(te.Type), te.Value)
		}
		return fmt.Errorf("Invalid command: field %q must be %s, got %s", te.Field, jsonTypeName(te.Type), te.Value)
	}
	return fmt.Errorf("Invalid command: %w", err)
}

// jsonTypeName names the JSON type a Go type is decoded from.
func jsonTypeName(t reflect.Type) string {
	if t == nil {
		return "a value"
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Interface:
		return "a value"
	}
	return "an object"
}

// MissingField is the error for a required field that is absent.
func MissingField(name string) error {
	return fmt.Errorf("Invalid command: missing required field %q", name)
}
