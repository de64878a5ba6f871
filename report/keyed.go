package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"strings"
)

// Keyed is a value that an object of report.json holds under a key of its
// own beside the keys of its type's fields: a split's calibration metrics
// (Split.Calibration) and the out-of-distribution scores of an image run,
// whose keys come from one list (experiment.Scores) rather than from
// fields, so that a new one needs no new field.
type Keyed[T any] struct {
	Key   string
	Value T
}

// Lookup returns the value of key in list and whether list has it.
func Lookup[T any](list []Keyed[T], key string) (T, bool) {
	for _, e := range list {
		if e.Key == key {
			return e.Value, true
		}
	}
	var zero T
	return zero, false
}

// MarshalBeside returns the JSON object of fields (a struct) with the keys
// of extra after its own, in order. It fails when a key of extra is one of
// fields' own or repeats.
func MarshalBeside[T any](fields any, extra []Keyed[T]) ([]byte, error) {
	b, err := json.Marshal(fields)
	if err != nil || len(extra) == 0 {
		return b, err
	}
	seen := fieldKeys(reflect.TypeOf(fields))
	b = b[:len(b)-1] // without the closing brace
	for _, e := range extra {
		if seen[e.Key] {
			return nil, fmt.Errorf("report: key %q twice in one object", e.Key)
		}
		seen[e.Key] = true
		k, err := json.Marshal(e.Key)
		if err != nil {
			return nil, err
		}
		v, err := json.Marshal(e.Value)
		if err != nil {
			return nil, fmt.Errorf("report: %s: %w", e.Key, err)
		}
		if len(b) > 1 {
			b = append(b, ',')
		}
		b = append(append(append(b, k...), ':'), v...)
	}
	return append(b, '}'), nil
}

// UnmarshalBeside decodes the JSON object b into fields (a pointer to a
// struct) and returns the values of its other keys, each decoded as T, in
// the object's order. It fails when one of them is not a T.
func UnmarshalBeside[T any](b []byte, fields any) ([]Keyed[T], error) {
	if err := json.Unmarshal(b, fields); err != nil {
		return nil, err
	}
	own := fieldKeys(reflect.TypeOf(fields))
	dec := json.NewDecoder(bytes.NewReader(b))
	if t, err := dec.Token(); err != nil || t == nil {
		return nil, err // null
	}
	var extra []Keyed[T]
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		k := t.(string) // a key: json.Unmarshal checked the object
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, err
		}
		if own[k] {
			continue
		}
		var v T
		if err := json.Unmarshal(raw, &v); err != nil {
			return nil, fmt.Errorf("report: %s: %w", k, err)
		}
		extra = append(extra, Keyed[T]{k, v})
	}
	return extra, nil
}

// fieldKeys returns the JSON keys of the fields of the struct type t (or
// of the struct t points to), those of embedded structs included.
func fieldKeys(t reflect.Type) map[string]bool {
	keys := map[string]bool{}
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch {
		case name == "-":
		case f.Anonymous && name == "":
			maps.Copy(keys, fieldKeys(f.Type))
		case !f.IsExported():
		case name == "":
			keys[f.Name] = true
		default:
			keys[name] = true
		}
	}
	return keys
}
