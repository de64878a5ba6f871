package shaders

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Interface is what a shader (Source's text) asks of the code that runs
// it: its bindings, the fields of its uniform block and, for each compute
// entry point, the bindings it uses. The WebGPU backend checks its
// kernels' bind group layouts and parameter blocks against it, so that a
// binding or a field out of step between Go and WGSL is an error that
// names both, not a validation failure or a silently wrong value.
type Interface struct {
	// Bindings holds the group-0 bindings by number.
	Bindings map[uint32]Binding
	// Params lists the fields of the uniform block's struct in order.
	Params []Field
	// Entries holds, for each @compute entry point, the numbers of the
	// bindings it uses (directly or through the functions it calls), in
	// increasing order.
	Entries map[string][]uint32
}

// Binding is one module-scope resource variable.
type Binding struct {
	Name   string
	Access string // "uniform", "read" or "read_write"
}

// Field is one field of the uniform block.
type Field struct {
	Name, Type string // Type: u32, i32 or f32
}

var (
	lineComment  = regexp.MustCompile(`//[^\n]*`)
	blockComment = regexp.MustCompile(`(?s)/\*.*?\*/`)
	bindingDecl  = regexp.MustCompile(`@group\(\s*0\s*\)\s*@binding\(\s*(\d+)\s*\)\s*var\s*(?:<([^>]*)>)?\s*(\w+)\s*:\s*([^;]+);`)
	structDecl   = regexp.MustCompile(`struct\s+(\w+)\s*\{([^}]*)\}`)
	fieldDecl    = regexp.MustCompile(`^\s*(\w+)\s*:\s*(\w+)\s*$`)
	fnDecl       = regexp.MustCompile(`((?:@\w+(?:\([^)]*\))?\s*)*)fn\s+(\w+)\s*\(([^)]*)\)[^{]*\{`)
	localDecl    = regexp.MustCompile(`\b(?:let|var|const)\s+(\w+)`)
	paramName    = regexp.MustCompile(`(?:^|,)\s*(?:@\w+(?:\([^)]*\))?\s*)*(\w+)\s*:`)
	ident        = regexp.MustCompile(`\.?\b[A-Za-z_]\w*`)
)

// ParseInterface reads the interface of the shader file name (with what
// Source puts before it). It reads the declarations this project's
// shaders use (scalar uniform fields, one uniform block, group 0) and
// fails on others.
func ParseInterface(name string) (Interface, error) {
	return parseInterface(Source(name))
}

// parseInterface is ParseInterface on the text of a shader.
func parseInterface(src string) (Interface, error) {
	src = lineComment.ReplaceAllString(blockComment.ReplaceAllString(src, ""), "")
	in := Interface{Bindings: map[uint32]Binding{}, Entries: map[string][]uint32{}}
	byName := map[string]uint32{}
	uniformType := ""
	for _, m := range bindingDecl.FindAllStringSubmatch(src, -1) {
		n, err := strconv.ParseUint(m[1], 10, 32)
		if err != nil {
			return in, fmt.Errorf("binding %s: %v", m[1], err)
		}
		access := "read"
		switch {
		case strings.TrimSpace(m[2]) == "uniform":
			access = "uniform"
			if uniformType != "" {
				return in, fmt.Errorf("more than one uniform block")
			}
			uniformType = strings.TrimSpace(m[4])
		case strings.Contains(m[2], "read_write"):
			access = "read_write"
		case !strings.HasPrefix(strings.TrimSpace(m[2]), "storage"):
			return in, fmt.Errorf("binding %d (%s): address space %q", n, m[3], m[2])
		}
		if _, dup := in.Bindings[uint32(n)]; dup {
			return in, fmt.Errorf("binding %d declared twice", n)
		}
		in.Bindings[uint32(n)] = Binding{Name: m[3], Access: access}
		byName[m[3]] = uint32(n)
	}
	for _, m := range structDecl.FindAllStringSubmatch(src, -1) {
		if m[1] != uniformType {
			continue
		}
		for _, f := range strings.Split(m[2], ",") {
			if strings.TrimSpace(f) == "" {
				continue
			}
			fm := fieldDecl.FindStringSubmatch(f)
			if fm == nil || !slices.Contains([]string{"u32", "i32", "f32"}, fm[2]) {
				return in, fmt.Errorf("uniform block %s: field %q is not a scalar u32, i32 or f32", uniformType, strings.TrimSpace(f))
			}
			in.Params = append(in.Params, Field{Name: fm[1], Type: fm[2]})
		}
	}
	if uniformType != "" && in.Params == nil {
		return in, fmt.Errorf("uniform block type %s: no struct of that name", uniformType)
	}
	// The functions, their bodies and what each uses directly.
	type fn struct {
		compute bool
		uses    []string // module-scope names and functions it names
	}
	fns := map[string]fn{}
	for _, loc := range fnDecl.FindAllStringSubmatchIndex(src, -1) {
		attrs, name, params := src[loc[2]:loc[3]], src[loc[4]:loc[5]], src[loc[6]:loc[7]]
		body, err := braced(src, loc[1]-1)
		if err != nil {
			return in, fmt.Errorf("fn %s: %v", name, err)
		}
		local := map[string]bool{}
		for _, m := range paramName.FindAllStringSubmatch(params, -1) {
			local[m[1]] = true
		}
		for _, m := range localDecl.FindAllStringSubmatch(body, -1) {
			local[m[1]] = true
		}
		var uses []string
		for _, id := range ident.FindAllString(body, -1) {
			if !strings.HasPrefix(id, ".") && !local[id] {
				uses = append(uses, id)
			}
		}
		fns[name] = fn{compute: strings.Contains(attrs, "@compute"), uses: uses}
	}
	for name, f := range fns {
		if !f.compute {
			continue
		}
		used := map[uint32]bool{}
		seen := map[string]bool{name: true}
		stack := []string{name}
		for len(stack) > 0 {
			cur := fns[stack[len(stack)-1]]
			stack = stack[:len(stack)-1]
			for _, id := range cur.uses {
				if n, ok := byName[id]; ok {
					used[n] = true
				} else if _, ok := fns[id]; ok && !seen[id] {
					seen[id] = true
					stack = append(stack, id)
				}
			}
		}
		var list []uint32
		for n := range used {
			list = append(list, n)
		}
		slices.Sort(list)
		in.Entries[name] = list
	}
	return in, nil
}

// braced returns the text between the brace at src[open] and the one that
// closes it.
func braced(src string, open int) (string, error) {
	depth := 0
	for i := open; i < len(src); i++ {
		switch src[i] {
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				return src[open+1 : i], nil
			}
		}
	}
	return "", fmt.Errorf("unclosed brace")
}
