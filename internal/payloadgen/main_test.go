package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	pluginv1 "github.com/atomic-go/atomic/proto/atomic/plugin/v1"
	"google.golang.org/protobuf/compiler/protogen"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/pluginpb"
)

func TestGoField(t *testing.T) {
	for in, want := range map[string]string{
		"tool_call_id": "ToolCallID", "tool_result_entry_ids": "ToolResultEntryIDs", "api": "API",
		"mime_type": "MimeType", "mcp_servers_change": "MCPServersChange", "ui_prompt_start": "UIPromptStart",
		"duration_ms": "DurationMs",
	} {
		if got := goField(in); got != want {
			t.Errorf("goField(%q) = %q, want %q", in, got, want)
		}
	}
}

// withoutComments drops the comment lines of Go source and the alignment
// they change (the compiled descriptor this test starts from has no
// comments; buf's request has).
func withoutComments(src string) string {
	var out []string
	for _, line := range strings.Split(src, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(line), "//") {
			out = append(out, strings.Join(strings.Fields(line), " "))
		}
	}
	return strings.Join(out, "\n")
}

// TestGeneratedFilesAreCurrent regenerates both files from the compiled
// schema and compares them, comments aside, with the committed ones (the
// full check, comments included, is .ci/proto-check's).
func TestGeneratedFilesAreCurrent(t *testing.T) {
	var files []*descriptorpb.FileDescriptorProto
	for _, fd := range []protoreflect.FileDescriptor{
		descriptorpb.File_google_protobuf_descriptor_proto, structpb.File_google_protobuf_struct_proto,
		pluginv1.File_atomic_plugin_v1_events_proto,
	} {
		files = append(files, protodesc.ToFileDescriptorProto(fd))
	}
	gen, err := protogen.Options{}.New(&pluginpb.CodeGeneratorRequest{FileToGenerate: []string{schemaFile}, ProtoFile: files})
	if err != nil {
		t.Fatal(err)
	}
	var schema *protogen.File
	for _, f := range gen.Files {
		if f.Desc.Path() == schemaFile {
			schema = f
		}
	}
	for _, target := range targets {
		src, err := target.generate(schema)
		if err != nil {
			t.Fatal(err)
		}
		committed, err := os.ReadFile(filepath.Join("..", "..", target.file))
		if err != nil {
			t.Fatal(err)
		}
		if withoutComments(string(src)) != withoutComments(string(committed)) {
			t.Errorf("%s is not what events.proto gives: run .ci/proto-check --write", target.file)
		}
		if !strings.Contains(withoutComments(string(src)), "ToolCallID string `json:\"toolCallId\"`") {
			t.Errorf("%s: tool_call's toolCallId is not generated as expected:\n%s", target.file, src)
		}
	}
}
