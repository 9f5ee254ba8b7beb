package jsext

import "github.com/dop251/goja"

func intlNatives(r *goja.Runtime) map[string]any { return map[string]any{} }
