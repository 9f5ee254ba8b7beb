package jsext

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"sync"

	"github.com/dop251/goja"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/atomic-go/atomic/host/extensions"
	"github.com/atomic-go/atomic/host/extensions/hostsvc"
	"github.com/atomic-go/atomic/host/hooks"
	pb "github.com/atomic-go/atomic/proto/atomic/plugin/v1"
	"github.com/atomic-go/atomic/sdk"
)

// The host port of js/api.js in goja: every HostService method, called in
// process on hostsvc.Server over the call's host. Requests and responses
// cross as JSON objects with the proto field names, a bytes field holding
// its JSON value as it is (see api.js).

// portAPI is the port's natives: host (synchronous, on the loop) and
// hostAsync (off the loop, settling a promise).
type portAPI struct {
	s *Script
	r *goja.Runtime
}

func (a portAPI) exports() map[string]any {
	return map[string]any{
		"host":           a.host,
		"hostAsync":      a.hostAsync,
		"handlerContext": a.handlerContext,
		"staleMessage":   extensions.StaleContextMessage,
	}
}

// portMethod is one unary HostService method of hostsvc.Server.
type portMethod struct {
	name string
	fn   reflect.Value // func(*Server, context.Context, *Req) (*Resp, error)
	req  reflect.Type  // *Req
	resp reflect.Type  // *Resp
}

var (
	portOnce    sync.Once
	portMethods map[string]portMethod
)

// methods lists hostsvc.Server's unary HostService methods by name.
func methods() map[string]portMethod {
	portOnce.Do(func() {
		portMethods = map[string]portMethod{}
		ctxType := reflect.TypeFor[context.Context]()
		msgType := reflect.TypeFor[proto.Message]()
		errType := reflect.TypeFor[error]()
		sd := pb.File_atomic_plugin_v1_host_proto.Services().ByName("HostService")
		t := reflect.TypeFor[*hostsvc.Server]()
		for i := 0; i < sd.Methods().Len(); i++ {
			md := sd.Methods().Get(i)
			m, ok := t.MethodByName(string(md.Name()))
			if !ok || md.IsStreamingServer() || md.IsStreamingClient() {
				continue
			}
			ft := m.Type
			if ft.NumIn() != 3 || ft.In(1) != ctxType || !ft.In(2).Implements(msgType) || ft.NumOut() != 2 || ft.Out(1) != errType {
				continue
			}
			portMethods[string(md.Name())] = portMethod{name: string(md.Name()), fn: m.Func, req: ft.In(2), resp: ft.Out(0)}
		}
	})
	return portMethods
}

// server is the HostService of one call.
func (s *Script) server(c *call) *hostsvc.Server {
	return &hostsvc.Server{Host: c.host, Path: s.spec.Path, Registrations: s.setRegistrations,
		Call: func(context.Context) context.Context { return c.ctx }}
}

// request decodes a request of the method (a TypeError for a bad one).
func (a portAPI) request(method, reqJSON string) (portMethod, proto.Message) {
	m, ok := methods()[method]
	if !ok {
		panic(a.r.NewTypeError(fmt.Sprintf("the host has no method %s", method)))
	}
	req := reflect.New(m.req.Elem()).Interface().(proto.Message)
	if err := decodeMessage(req.ProtoReflect(), json.RawMessage(reqJSON)); err != nil {
		panic(a.r.NewTypeError(fmt.Sprintf("%s: %v", method, err)))
	}
	if method == "Exec" {
		r := req.(*pb.ExecRequest)
		checkExecPaths(a.r, r.Command, r.Cwd)
	}
	return m, req
}

// invokePort calls the method and encodes its response.
func (s *Script) invokePort(ctx context.Context, c *call, m portMethod, req proto.Message) (string, error) {
	// (An isolated script's registrations stay in the child, whose
	// plugin serves what it registered while loading.)
	if h, ok := c.host.(*sdkHost); ok && m.name != "UpdateRegistrations" {
		if raw, ok := h.h.(sdk.RawHost); ok {
			// An isolated script: the agent serves the call as it is.
			return forward(h.callCtx(ctx), raw, m, req)
		}
	}
	out := m.fn.Call([]reflect.Value{reflect.ValueOf(s.server(c)), reflect.ValueOf(ctx), reflect.ValueOf(req)})
	if err, _ := out[1].Interface().(error); err != nil {
		return "", portError(err)
	}
	if m.name == "UpdateRegistrations" {
		s.mu.Lock()
		reregister := s.reregister
		s.mu.Unlock()
		// An isolated script: what it registered now reaches the agent.
		if reregister != nil {
			if err := reregister(ctx); err != nil {
				return "", portError(err)
			}
		}
	}
	resp, _ := out[0].Interface().(proto.Message)
	if resp == nil || !resp.ProtoReflect().IsValid() {
		return "{}", nil
	}
	return string(encodeMessage(resp.ProtoReflect())), nil
}

// forward makes the call on the agent's HostService (the message as it
// is, the response decoded as hostsvc.Server's would be).
func forward(ctx context.Context, raw sdk.RawHost, m portMethod, req proto.Message) (string, error) {
	in, err := proto.Marshal(req)
	if err != nil {
		return "", err
	}
	out, err := raw.CallHost(ctx, m.name, in)
	if err != nil {
		return "", portError(err)
	}
	resp := reflect.New(m.resp.Elem()).Interface().(proto.Message)
	if err := proto.Unmarshal(out, resp); err != nil {
		return "", fmt.Errorf("%s: the agent's answer does not decode: %w", m.name, err)
	}
	return string(encodeMessage(resp.ProtoReflect())), nil
}

// portError is the host's error as the extension sees it: the message of
// a gRPC status (as over gRPC), or the error.
func portError(err error) error {
	if st, ok := status.FromError(err); ok {
		return fmt.Errorf("%s", st.Message())
	}
	return err
}

// host calls a method on the loop (engine.port.sync).
func (a portAPI) host(id goja.Value, method, reqJSON string) string {
	c := a.s.callOf(id)
	m, req := a.request(method, reqJSON)
	out, err := a.s.invokePort(context.WithoutCancel(c.ctx), c, m, req)
	if err != nil {
		panic(jsErrorValue(a.r, err.Error()))
	}
	return out
}

// hostAsync calls a method off the loop (engine.port.call): the promise
// settles with the response. A token (non-zero) cancels the call;
// ordered calls reach the host one at a time in the order made.
func (a portAPI) hostAsync(id goja.Value, method, reqJSON string, token int64, ordered bool) goja.Value {
	s := a.s
	c := s.callOf(id)
	m, req := a.request(method, reqJSON)
	ctx, done := context.WithoutCancel(c.ctx), func() {}
	if token != 0 {
		ctx, done = s.tokenContext(ctx, token)
	}
	var turn <-chan struct{}
	taken := func() {}
	if ordered {
		turn, taken = s.sends.start()
	}
	return s.async(a.r, func() (any, error) {
		defer done()
		defer taken()
		if turn != nil {
			<-turn
		}
		return s.invokePort(ctx, c, m, req)
	}, jsonResult)
}

// handlerContext is the call's HandlerContext (engine.context).
func (a portAPI) handlerContext(id goja.Value) string {
	return string(encodeMessage(hostsvc.HandlerContext(a.s.callOf(id).host.HandlerContext(), "").ProtoReflect()))
}

// setRegistrations takes what the script registered (api.js's describe,
// at the end of loading and on UpdateRegistrations after it).
func (s *Script) setRegistrations(d *pb.DescribeResponse) error {
	tools := hostsvc.ToolSpecs(d)
	var commands []extensions.CommandSpec
	for _, c := range d.Commands {
		commands = append(commands, extensions.CommandSpec{Name: c.Name, Description: c.Description, HasCompletions: c.HasArgumentCompletions})
	}
	var flags []extensions.FlagSpec
	for _, f := range d.Flags {
		flags = append(flags, extensions.FlagSpec{Name: f.Name, Description: f.Description, Type: f.Type, Default: f.DefaultValue})
	}
	providers := hostsvc.ProviderSpecs(d)
	shortcuts := hostsvc.ShortcutSpecs(d)
	counts := map[string]int{}
	for e, n := range d.HandlerCounts {
		counts[e] = int(n)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	known := map[string]bool{}
	for _, e := range s.events {
		known[e] = true
	}
	for _, e := range d.Events {
		if known[e] {
			continue
		}
		if _, ok := hooks.Kinds[e]; !ok {
			s.log.Warn("pi.on(): atomic never sends this event", "event", e)
		}
		s.events = append(s.events, e)
	}
	s.handlerCounts, s.commands, s.tools, s.flags, s.providers, s.shortcuts = counts, commands, tools, flags, providers, shortcuts
	return nil
}

// decodeMessage fills m from a JSON object with the proto field names;
// a bytes field takes the JSON of its value (null: empty).
func decodeMessage(m protoreflect.Message, raw json.RawMessage) error {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		return fmt.Errorf("%s: expected an object", m.Descriptor().Name())
	}
	fields := m.Descriptor().Fields()
	for k, v := range obj {
		fd := fields.ByName(protoreflect.Name(k))
		if fd == nil {
			return fmt.Errorf("%s has no field %s", m.Descriptor().Name(), k)
		}
		if string(v) == "null" {
			continue
		}
		switch {
		case fd.IsList():
			var items []json.RawMessage
			if err := json.Unmarshal(v, &items); err != nil {
				return fmt.Errorf("%s: expected a list", k)
			}
			l := m.Mutable(fd).List()
			for _, it := range items {
				if fd.Kind() == protoreflect.MessageKind {
					e := l.NewElement()
					if err := decodeMessage(e.Message(), it); err != nil {
						return err
					}
					l.Append(e)
					continue
				}
				x, err := decodeScalar(fd, it)
				if err != nil {
					return fmt.Errorf("%s: %w", k, err)
				}
				l.Append(x)
			}
		case fd.IsMap():
			var items map[string]json.RawMessage
			if err := json.Unmarshal(v, &items); err != nil {
				return fmt.Errorf("%s: expected an object", k)
			}
			mp := m.Mutable(fd).Map()
			for kk, vv := range items {
				x, err := decodeScalar(fd.MapValue(), vv)
				if err != nil {
					return fmt.Errorf("%s: %w", k, err)
				}
				mp.Set(protoreflect.ValueOfString(kk).MapKey(), x)
			}
		case fd.Kind() == protoreflect.MessageKind:
			if err := decodeMessage(m.Mutable(fd).Message(), v); err != nil {
				return err
			}
		default:
			x, err := decodeScalar(fd, v)
			if err != nil {
				return fmt.Errorf("%s: %w", k, err)
			}
			m.Set(fd, x)
		}
	}
	return nil
}

func decodeScalar(fd protoreflect.FieldDescriptor, v json.RawMessage) (protoreflect.Value, error) {
	var err error
	num := func() float64 {
		var f float64
		err = json.Unmarshal(v, &f)
		return f
	}
	unsigned := func() float64 { return max(num(), 0) }
	switch fd.Kind() {
	case protoreflect.StringKind:
		var s string
		err = json.Unmarshal(v, &s)
		return protoreflect.ValueOfString(s), err
	case protoreflect.BoolKind:
		var b bool
		err = json.Unmarshal(v, &b)
		return protoreflect.ValueOfBool(b), err
	case protoreflect.BytesKind:
		return protoreflect.ValueOfBytes(append([]byte(nil), v...)), nil
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		return protoreflect.ValueOfInt32(int32(num())), err
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return protoreflect.ValueOfUint32(uint32(unsigned())), err
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		return protoreflect.ValueOfInt64(int64(num())), err
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return protoreflect.ValueOfUint64(uint64(unsigned())), err
	case protoreflect.DoubleKind:
		return protoreflect.ValueOfFloat64(num()), err
	case protoreflect.FloatKind:
		return protoreflect.ValueOfFloat32(float32(num())), err
	case protoreflect.EnumKind:
		var name string
		if json.Unmarshal(v, &name) == nil {
			if ev := fd.Enum().Values().ByName(protoreflect.Name(name)); ev != nil {
				return protoreflect.ValueOfEnum(ev.Number()), nil
			}
			return protoreflect.Value{}, fmt.Errorf("unknown value %q", name)
		}
		return protoreflect.ValueOfEnum(protoreflect.EnumNumber(int32(num()))), err
	}
	return protoreflect.Value{}, fmt.Errorf("unsupported field kind %v", fd.Kind())
}

// encodeMessage is m as a JSON object with every field (defaults
// included, as the Node port reads them; an unset message is null, an
// empty bytes field absent).
func encodeMessage(m protoreflect.Message) []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	fields := m.Descriptor().Fields()
	first := true
	for i := 0; i < fields.Len(); i++ {
		fd := fields.Get(i)
		if fd.ContainingOneof() != nil && !m.Has(fd) {
			continue
		}
		if fd.Kind() == protoreflect.BytesKind && !fd.IsList() && !fd.IsMap() && len(m.Get(fd).Bytes()) == 0 {
			continue
		}
		if !first {
			b.WriteByte(',')
		}
		first = false
		b.WriteString(strconv.Quote(string(fd.Name())))
		b.WriteByte(':')
		v := m.Get(fd)
		switch {
		case fd.IsList():
			l := v.List()
			b.WriteByte('[')
			for j := 0; j < l.Len(); j++ {
				if j > 0 {
					b.WriteByte(',')
				}
				encodeValue(&b, fd, l.Get(j))
			}
			b.WriteByte(']')
		case fd.IsMap():
			var keys []string
			vals := map[string]protoreflect.Value{}
			v.Map().Range(func(k protoreflect.MapKey, v protoreflect.Value) bool {
				keys = append(keys, k.String())
				vals[k.String()] = v
				return true
			})
			sort.Strings(keys)
			b.WriteByte('{')
			for j, k := range keys {
				if j > 0 {
					b.WriteByte(',')
				}
				b.WriteString(strconv.Quote(k))
				b.WriteByte(':')
				encodeValue(&b, fd.MapValue(), vals[k])
			}
			b.WriteByte('}')
		case fd.Kind() == protoreflect.MessageKind && !m.Has(fd):
			b.WriteString("null")
		default:
			encodeValue(&b, fd, v)
		}
	}
	b.WriteByte('}')
	return b.Bytes()
}

func encodeValue(b *bytes.Buffer, fd protoreflect.FieldDescriptor, v protoreflect.Value) {
	switch fd.Kind() {
	case protoreflect.MessageKind, protoreflect.GroupKind:
		b.Write(encodeMessage(v.Message()))
	case protoreflect.BytesKind:
		if raw := v.Bytes(); len(raw) > 0 && json.Valid(raw) {
			b.Write(raw)
		} else {
			b.WriteString("null")
		}
	case protoreflect.EnumKind:
		if ev := fd.Enum().Values().ByNumber(v.Enum()); ev != nil {
			b.WriteString(strconv.Quote(string(ev.Name())))
		} else {
			b.WriteString(strconv.Itoa(int(v.Enum())))
		}
	default:
		out, err := json.Marshal(v.Interface())
		if err != nil {
			b.WriteString("null")
			return
		}
		b.Write(out)
	}
}
