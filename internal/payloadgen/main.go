// Command payloadgen is a protoc plugin that turns the event payload
// schema (proto/atomic/plugin/v1/events.proto) into plain Go structs with
// the reference API's JSON keys, for encoding/json: one file for the host's
// hook bus (host/hooks/payloads.gen.go, typed with host/llm's types) and
// one for the Go SDK (sdk/payloads.gen.go, typed with the SDK's). The
// bytes on the wire stay the reference's JSON objects; the schema is what
// both sides are generated from and what buf breaking checks.
//
// .ci/proto-check builds it and runs it with the other generators
// (buf.gen.yaml); it does not need to be run by hand.
//
// How a field becomes Go (see the options in events.proto):
//   - The `type` field of an event payload is left out: the bus writes the
//     event name itself.
//   - Scalars are Go scalars (int32 → int). In a payload, `optional` adds
//     omitempty, and an optional bool or number, or a field with
//     (presence) or (nullable), is a pointer. In a result every field has
//     omitempty (a result is a patch).
//   - Messages of the schema are the generated structs (a pointer when
//     optional or in a result), unless the target maps the message to a
//     type of its own (ContentBlock → llm.ContentBlock in the host).
//   - Struct and Value are given the type the target maps their (shape)
//     to, else the target's default for free-form values.
//   - (truthy) result fields are the target's truthy type in the host (a
//     value read with JavaScript truthiness).
package main

import (
	"bytes"
	"fmt"
	"go/format"
	"sort"
	"strings"

	pluginv1 "github.com/atomic-go/atomic/proto/atomic/plugin/v1"
	"google.golang.org/protobuf/compiler/protogen"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/pluginpb"
)

const schemaFile = "atomic/plugin/v1/events.proto"

// target is one generated file.
type target struct {
	file    string
	pkg     string
	imports []string
	// messages maps schema messages to types of the target's own (not
	// generated); rename gives generated ones another Go name.
	messages map[string]string
	rename   map[string]string
	// payloadShapes and resultShapes map a free-form field's shape to a
	// Go type, in payloads (and the messages they share with results)
	// and in results.
	payloadShapes, resultShapes map[string]string
	// structType and valueType are the defaults for free-form fields.
	structType, valueType             string
	resultStructType, resultValueType string
	// truthy is the Go type of (truthy) result fields.
	truthy string
	// tables: write PayloadTypes and ResultTypes (event → Go type).
	tables bool
	// constants: write a constant per event name, <constPrefix><Name>.
	constants   bool
	constPrefix string
}

var targets = []target{
	{
		file: "host/hooks/payloads.gen.go", pkg: "hooks",
		imports: []string{"encoding/json", "github.com/atomic-go/atomic/host/llm"},
		messages: map[string]string{
			"ContentBlock": "llm.ContentBlock",
			"ToolOutput":   "llm.ToolResult",
		},
		payloadShapes: map[string]string{
			"AgentMessage":   "llm.Message",
			"Model":          "llm.Model",
			"MessageContent": "llm.Content",
			"Headers":        "map[string]*string",
			"Arguments":      "map[string]any",
		},
		resultShapes: map[string]string{
			"Headers": "map[string]*string",
		},
		structType: "any", valueType: "any",
		resultStructType: "json.RawMessage", resultValueType: "json.RawMessage",
		truthy: "Truthy", tables: true, constants: true,
	},
	{
		file: "sdk/payloads.gen.go", pkg: "sdk",
		messages: map[string]string{
			"ToolOutput": "ToolOutput",
		},
		rename:    map[string]string{"ContentBlock": "Block"},
		constants: true, constPrefix: "Event",
		payloadShapes: map[string]string{
			"AgentMessage":           "Message",
			"SystemAndAgentMessages": "Message",
			"Model":                  "Model",
			"MessageContent":         "any",
			"Headers":                "map[string]*string",
			"Arguments":              "map[string]any",
		},
		resultShapes: map[string]string{
			"AgentMessage": "Message",
			"Headers":      "map[string]*string",
			"Arguments":    "map[string]any",
		},
		structType: "map[string]any", valueType: "any",
		resultStructType: "map[string]any", resultValueType: "any",
		truthy: "bool",
	},
}

func main() {
	protogen.Options{}.Run(func(gen *protogen.Plugin) error {
		gen.SupportedFeatures = uint64(pluginpb.CodeGeneratorResponse_FEATURE_PROTO3_OPTIONAL)
		for _, f := range gen.Files {
			if !f.Generate || f.Desc.Path() != schemaFile {
				continue
			}
			for _, t := range targets {
				src, err := t.generate(f)
				if err != nil {
					return err
				}
				out := gen.NewGeneratedFile(t.file, "")
				if _, err := out.Write(src); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// kind is the role of a message: an event's payload, a handler's result,
// or a part of either.
type kind int

const (
	part kind = iota
	payload
	result
)

func kindOf(m *protogen.Message) (kind, []string, []string) {
	evs := proto.GetExtension(m.Desc.Options(), pluginv1.E_Event).([]string)
	res := proto.GetExtension(m.Desc.Options(), pluginv1.E_Result).([]string)
	switch {
	case len(evs) > 0:
		return payload, evs, res
	case len(res) > 0:
		return result, evs, res
	}
	return part, evs, res
}

func (t target) goName(m *protogen.Message) string {
	name := string(m.Desc.Name())
	if r, ok := t.rename[name]; ok {
		return r
	}
	return name
}

func (t target) generate(f *protogen.File) ([]byte, error) {
	var b bytes.Buffer
	fmt.Fprintf(&b, "// Code generated by internal/payloadgen from %s. DO NOT EDIT.\n\n", schemaFile)
	fmt.Fprintf(&b, "package %s\n\n", t.pkg)
	var used bytes.Buffer
	events := map[string]string{}
	results := map[string]string{}
	for _, m := range f.Messages {
		name := string(m.Desc.Name())
		if _, external := t.messages[name]; external {
			continue
		}
		k, evs, res := kindOf(m)
		for _, e := range evs {
			events[e] = t.goName(m)
		}
		for _, e := range res {
			results[e] = t.goName(m)
		}
		if err := t.writeStruct(&used, m, k); err != nil {
			return nil, err
		}
	}
	if t.constants {
		names := make([]string, 0, len(events))
		for name := range events {
			names = append(names, name)
		}
		sort.Strings(names)
		used.WriteString("// Event names (every event of the schema).\nconst (\n")
		for _, name := range names {
			fmt.Fprintf(&used, "\t%s%s = %q\n", t.constPrefix, goField(name), name)
		}
		used.WriteString(")\n\n")
	}
	if t.tables {
		writeTable(&used, "PayloadTypes", "the Go type of each event's payload (the message of events.proto with that event in its `event` option)", events)
		writeTable(&used, "ResultTypes", "the Go type of each event's handler result (the message with that event in its `result` option)", results)
	}
	src := used.String()
	var imports []string
	for _, imp := range t.imports {
		alias := imp[strings.LastIndex(imp, "/")+1:]
		if strings.Contains(src, alias+".") {
			imports = append(imports, imp)
		}
	}
	if len(imports) > 0 {
		b.WriteString("import (\n")
		for _, imp := range imports {
			fmt.Fprintf(&b, "\t%q\n", imp)
		}
		b.WriteString(")\n\n")
	}
	b.WriteString(src)
	out, err := format.Source(b.Bytes())
	if err != nil {
		return nil, fmt.Errorf("payloadgen: %s: %w\n%s", t.file, err, b.String())
	}
	return out, nil
}

func writeTable(b *bytes.Buffer, name, doc string, table map[string]string) {
	keys := make([]string, 0, len(table))
	for k := range table {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	fmt.Fprintf(b, "// %s names %s.\nvar %s = map[string]string{\n", name, doc, name)
	for _, k := range keys {
		fmt.Fprintf(b, "\t%q: %q,\n", k, table[k])
	}
	b.WriteString("}\n\n")
}

func comment(b *bytes.Buffer, c protogen.Comments, indent string) {
	text := strings.TrimRight(string(c), "\n")
	if text == "" {
		return
	}
	for _, line := range strings.Split(text, "\n") {
		fmt.Fprintf(b, "%s//%s\n", indent, strings.TrimRight(line, " "))
	}
}

func (t target) writeStruct(b *bytes.Buffer, m *protogen.Message, k kind) error {
	doc := string(m.Comments.Leading)
	if name := t.goName(m); name != string(m.Desc.Name()) {
		doc = strings.Replace(doc, " "+string(m.Desc.Name())+" ", " "+name+" ", 1)
	}
	comment(b, protogen.Comments(doc), "")
	fmt.Fprintf(b, "type %s struct {\n", t.goName(m))
	for _, fl := range m.Fields {
		if k == payload && fl.Desc.Name() == "type" {
			continue
		}
		typ, omit, err := t.fieldType(fl, k)
		if err != nil {
			return fmt.Errorf("%s.%s: %w", m.Desc.Name(), fl.Desc.Name(), err)
		}
		comment(b, fl.Comments.Leading, "\t")
		tag := fl.Desc.JSONName()
		if omit {
			tag += ",omitempty"
		}
		fmt.Fprintf(b, "\t%s %s `json:%q`\n", goField(string(fl.Desc.Name())), typ, tag)
	}
	b.WriteString("}\n\n")
	return nil
}

func boolOpt(fl *protogen.Field, x protoreflect.ExtensionType) bool {
	v, _ := proto.GetExtension(fl.Desc.Options(), x).(bool)
	return v
}

// fieldType is a field's Go type and whether its key is left out when
// empty.
func (t target) fieldType(fl *protogen.Field, k kind) (string, bool, error) {
	d := fl.Desc
	shape, _ := proto.GetExtension(d.Options(), pluginv1.E_Shape).(string)
	nullable := boolOpt(fl, pluginv1.E_Nullable)
	presence := boolOpt(fl, pluginv1.E_Presence) || nullable
	optional := d.HasOptionalKeyword()
	omit := optional && !nullable
	if k == result {
		omit = true
	}
	if d.IsList() || d.IsMap() {
		omit = omit || boolOpt(fl, pluginv1.E_OmitEmpty)
	}
	if d.IsMap() {
		kt, _, err := t.scalar(d.MapKey(), false)
		if err != nil {
			return "", false, err
		}
		vt, err := t.elemType(fl, d.MapValue(), shape, k)
		if err != nil {
			return "", false, err
		}
		return "map[" + kt + "]" + vt, omit, nil
	}
	if d.Kind() == protoreflect.MessageKind {
		et, err := t.elemType(fl, d, shape, k)
		if err != nil {
			return "", false, err
		}
		if d.IsList() {
			if et == "any" {
				// A list of anything: the caller's own slice type.
				return "any", omit, nil
			}
			return "[]" + et, omit, nil
		}
		if optional && k != result && !strings.HasPrefix(et, "any") && !strings.HasPrefix(et, "map[") &&
			!strings.HasPrefix(et, "[]") && !strings.HasPrefix(et, "json.") && !strings.HasPrefix(et, "*") && fl.Message != nil &&
			fl.Message.Desc.ParentFile().Path() != schemaFile {
			// An optional free-form value of a concrete type.
			return "*" + et, omit, nil
		}
		// A message of the schema is a pointer when it may be absent.
		if fl.Message != nil && fl.Message.Desc.ParentFile().Path() == schemaFile && !t.isExternal(fl.Message) &&
			(optional || nullable || k == result) {
			return "*" + et, omit, nil
		}
		return et, omit, nil
	}
	if d.IsList() {
		st, _, err := t.scalar(d, false)
		return "[]" + st, omit, err
	}
	if k == result && boolOpt(fl, pluginv1.E_Truthy) {
		return t.truthy, omit, nil
	}
	st, number, err := t.scalar(d, false)
	if err != nil {
		return "", false, err
	}
	ptr := presence || (optional && (number || d.Kind() == protoreflect.BoolKind))
	if k == result && optional && d.Kind() == protoreflect.StringKind && !presence {
		ptr = false
	}
	if ptr {
		st = "*" + st
	}
	return st, omit, nil
}

func (t target) isExternal(m *protogen.Message) bool {
	_, ok := t.messages[string(m.Desc.Name())]
	return ok
}

// elemType is the Go type of a message-typed field's element.
func (t target) elemType(fl *protogen.Field, d protoreflect.FieldDescriptor, shape string, k kind) (string, error) {
	if d.Kind() != protoreflect.MessageKind {
		st, _, err := t.scalar(d, false)
		return st, err
	}
	md := d.Message()
	full := string(md.FullName())
	switch full {
	case "google.protobuf.Struct", "google.protobuf.Value", "google.protobuf.ListValue":
		shapes, def := t.payloadShapes, t.structType
		if full != "google.protobuf.Struct" {
			def = t.valueType
		}
		if k == result {
			shapes, def = t.resultShapes, t.resultStructType
			if full != "google.protobuf.Struct" {
				def = t.resultValueType
			}
		}
		if s, ok := shapes[shape]; ok && shape != "" {
			return s, nil
		}
		if k == result && fl.Desc.IsList() {
			// A list of free-form values in a result is read whole.
			return def, nil
		}
		return def, nil
	}
	if md.ParentFile().Path() != schemaFile {
		return "", fmt.Errorf("message %s is not in %s", full, schemaFile)
	}
	name := string(md.Name())
	if ext, ok := t.messages[name]; ok {
		return ext, nil
	}
	if r, ok := t.rename[name]; ok {
		return r, nil
	}
	return name, nil
}

func (t target) scalar(d protoreflect.FieldDescriptor, _ bool) (string, bool, error) {
	switch d.Kind() {
	case protoreflect.StringKind:
		return "string", false, nil
	case protoreflect.BoolKind:
		return "bool", false, nil
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Uint32Kind:
		return "int", true, nil
	case protoreflect.Int64Kind, protoreflect.Sint64Kind:
		return "int64", true, nil
	case protoreflect.DoubleKind:
		return "float64", true, nil
	}
	return "", false, fmt.Errorf("field kind %s is not supported", d.Kind())
}

// goField is a field name in Go style: tool_call_id → ToolCallID.
func goField(name string) string {
	var b strings.Builder
	for _, part := range strings.Split(name, "_") {
		switch part {
		case "id", "api", "url", "mcp", "json", "ui":
			b.WriteString(strings.ToUpper(part))
		case "ids":
			b.WriteString("IDs")
		default:
			b.WriteString(strings.ToUpper(part[:1]) + part[1:])
		}
	}
	return b.String()
}
