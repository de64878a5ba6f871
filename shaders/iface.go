package shaders

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"
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

// ParseInterface reads the interface of the shader file name (with what
// Source puts before it). It reads the declarations this project's
// shaders use (scalar uniform fields, one uniform block, group 0) and
// fails on others. (It scans tokens by hand: the regexp package would add
// a tenth to the page's WebAssembly.)
func ParseInterface(name string) (Interface, error) {
	return parseInterface(Source(name))
}

// parseInterface is ParseInterface on the text of a shader.
func parseInterface(src string) (Interface, error) {
	in := Interface{Bindings: map[uint32]Binding{}, Entries: map[string][]uint32{}}
	ts := tokenize(src)
	byName := map[string]uint32{}
	uniformType := ""
	structs := map[string][]Field{}
	var structErr error
	type fn struct {
		compute bool
		uses    []string // the names it uses that are not its own
	}
	fns := map[string]fn{}
	var attrs []attribute
	for i := 0; i < len(ts); {
		switch t := ts[i]; {
		case t == "@" && i+1 < len(ts):
			a := attribute{name: ts[i+1]}
			i += 2
			if i < len(ts) && ts[i] == "(" {
				end := closing(ts, i, "(", ")")
				a.args = ts[i+1 : end]
				i = end + 1
			}
			attrs = append(attrs, a)
			continue
		case t == "var" && bindingOf(attrs) >= 0:
			n := uint32(bindingOf(attrs))
			i++
			var template []string
			if i < len(ts) && ts[i] == "<" {
				end := closing(ts, i, "<", ">")
				template = ts[i+1 : end]
				i = end + 1
			}
			if i+1 >= len(ts) || !isIdent(ts[i]) || ts[i+1] != ":" {
				return in, fmt.Errorf("binding %d: a var without its name and type", n)
			}
			name := ts[i]
			end := i + 2
			for end < len(ts) && ts[end] != ";" {
				end++
			}
			typ := strings.Join(ts[i+2:end], "")
			i = end + 1
			access := "read"
			switch {
			case slices.Contains(template, "uniform"):
				access = "uniform"
				if uniformType != "" {
					return in, fmt.Errorf("more than one uniform block")
				}
				uniformType = typ
			case slices.Contains(template, "read_write"):
				access = "read_write"
			case len(template) == 0 || template[0] != "storage":
				return in, fmt.Errorf("binding %d (%s): address space %q", n, name, strings.Join(template, ""))
			}
			if _, dup := in.Bindings[n]; dup {
				return in, fmt.Errorf("binding %d declared twice", n)
			}
			in.Bindings[n] = Binding{Name: name, Access: access}
			byName[name] = n
		case t == "struct" && i+2 < len(ts) && ts[i+2] == "{":
			name, end := ts[i+1], closing(ts, i+2, "{", "}")
			if end == len(ts) {
				return in, fmt.Errorf("struct %s: unclosed brace", name)
			}
			fields, err := structFields(ts[i+3 : end])
			if err != nil && structErr == nil {
				structErr = fmt.Errorf("uniform block %s: %w", name, err)
			}
			structs[name] = fields
			i = end + 1
		case t == "fn" && i+1 < len(ts):
			name := ts[i+1]
			open := i + 2
			for open < len(ts) && ts[open] != "{" {
				open++
			}
			end := closing(ts, open, "{", "}")
			if end == len(ts) {
				return in, fmt.Errorf("fn %s: unclosed brace", name)
			}
			own := map[string]bool{}
			for k := i + 2; k+1 < open; k++ { // the parameters: a name before ':'
				if isIdent(ts[k]) && ts[k+1] == ":" {
					own[ts[k]] = true
				}
			}
			body := ts[open+1 : end]
			for k := 0; k+1 < len(body); k++ {
				if body[k] == "let" || body[k] == "var" || body[k] == "const" {
					own[body[k+1]] = true
				}
			}
			var uses []string
			for k, id := range body {
				if isIdent(id) && !own[id] && (k == 0 || body[k-1] != ".") {
					uses = append(uses, id)
				}
			}
			fns[name] = fn{compute: slices.ContainsFunc(attrs, func(a attribute) bool { return a.name == "compute" }), uses: uses}
			i = end + 1
		default:
			i++
		}
		attrs = attrs[:0]
	}
	if uniformType != "" {
		fields, ok := structs[uniformType]
		switch {
		case !ok:
			return in, fmt.Errorf("uniform block type %s: no struct of that name", uniformType)
		case structErr != nil && strings.HasPrefix(structErr.Error(), "uniform block "+uniformType+":"):
			return in, structErr
		}
		in.Params = fields
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

// attribute is one @name(args) before a declaration.
type attribute struct {
	name string
	args []string
}

// bindingOf returns the binding number of attributes @group(0)
// @binding(N), or -1.
func bindingOf(attrs []attribute) int {
	group, binding := -1, -1
	for _, a := range attrs {
		if len(a.args) != 1 {
			continue
		}
		n, err := strconv.Atoi(strings.TrimSuffix(a.args[0], "u"))
		switch {
		case err != nil:
		case a.name == "group":
			group = n
		case a.name == "binding":
			binding = n
		}
	}
	if group != 0 {
		return -1
	}
	return binding
}

// structFields reads the fields "name: type," of a struct's body, which
// must be scalars.
func structFields(body []string) ([]Field, error) {
	var fields []Field
	for len(body) > 0 {
		end := slices.Index(body, ",")
		if end < 0 {
			end = len(body)
		}
		f := body[:end]
		if len(f) != 3 || !isIdent(f[0]) || f[1] != ":" || !slices.Contains([]string{"u32", "i32", "f32"}, f[2]) {
			return fields, fmt.Errorf("field %q is not a scalar u32, i32 or f32", strings.Join(f, " "))
		}
		fields = append(fields, Field{Name: f[0], Type: f[2]})
		body = body[min(end+1, len(body)):]
	}
	return fields, nil
}

// closing returns the index of the token that closes the one at open
// (nesting counted), or len(ts).
func closing(ts []string, open int, left, right string) int {
	depth := 0
	for i := open; i < len(ts); i++ {
		switch ts[i] {
		case left:
			depth++
		case right:
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return len(ts)
}

// isIdent reports whether a token is an identifier.
func isIdent(t string) bool {
	return t != "" && (t[0] == '_' || unicode.IsLetter(rune(t[0])))
}

// tokenize splits WGSL into identifiers, numbers and single punctuation
// characters, without comments.
func tokenize(src string) []string {
	var ts []string
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case strings.HasPrefix(src[i:], "//"):
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case strings.HasPrefix(src[i:], "/*"):
			end := strings.Index(src[i+2:], "*/")
			if end < 0 {
				return ts
			}
			i += end + 4
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9':
			j := i + 1
			for j < len(src) && (src[j] == '_' || src[j] == '.' && c >= '0' && c <= '9' || src[j] >= 'a' && src[j] <= 'z' || src[j] >= 'A' && src[j] <= 'Z' || src[j] >= '0' && src[j] <= '9') {
				j++
			}
			ts = append(ts, src[i:j])
			i = j
		default:
			ts = append(ts, src[i:i+1])
			i++
		}
	}
	return ts
}
