package protocol

import (
	"encoding/json"
	"reflect"
	"regexp"
	"testing"
	"time"

	"github.com/deeplda/deeplda/train"
)

// snake is a JSON key in snake_case.
var snake = regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`)

// fill sets every field reachable from v to a value that JSON writes: a
// pointer to a filled value, a slice and a map of one filled element
// (under the key "key"), 1 for numbers and true for booleans, so that
// encoding it writes every key the type can have.
func fill(v reflect.Value, depth int) {
	if depth > 12 {
		return
	}
	switch v.Kind() {
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem(), depth+1)
	case reflect.Struct:
		if v.Type() == reflect.TypeFor[time.Time]() {
			return
		}
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i), depth+1)
			}
		}
	case reflect.Slice:
		if v.Type() == reflect.TypeFor[json.RawMessage]() {
			v.SetBytes([]byte(`{}`))
			return
		}
		s := reflect.MakeSlice(v.Type(), 1, 1)
		fill(s.Index(0), depth+1)
		v.Set(s)
	case reflect.Array:
		for i := range v.Len() {
			fill(v.Index(i), depth+1)
		}
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		k := reflect.New(v.Type().Key()).Elem()
		if k.Kind() == reflect.String {
			k.SetString("key")
		}
		e := reflect.New(v.Type().Elem()).Elem()
		fill(e, depth+1)
		m.SetMapIndex(k, e)
		v.Set(m)
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(1)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(1)
	case reflect.Float32, reflect.Float64:
		v.SetFloat(1)
	case reflect.String:
		v.SetString("s")
	}
}

// keys reports every key of the JSON value v that is not snake_case, at
// its path.
func keys(t *testing.T, path string, v any) {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			if !snake.MatchString(k) {
				t.Errorf("%s.%s: a key that is not snake_case", path, k)
			}
			keys(t, path+"."+k, e)
		}
	case []any:
		for _, e := range v {
			keys(t, path+"[]", e)
		}
	}
}

// TestSnakeCase fills every field of a command and of an event and finds
// every key of their JSON in snake_case, and a progress's durations in
// seconds.
func TestSnakeCase(t *testing.T) {
	for _, v := range []any{&Command{}, &Event{}} {
		fill(reflect.ValueOf(v).Elem(), 0)
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		var back any
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		keys(t, reflect.TypeOf(v).Elem().Name(), back)
	}
	ev := Event{Kind: EvProgress, Progress: &Progress{}}
	ev.Progress.Elapsed, ev.Progress.Remaining = train.Duration(1500*time.Millisecond), train.Duration(2*time.Minute)
	b, err := Encode(ev)
	if err != nil {
		t.Fatal(err)
	}
	var wire struct {
		Progress map[string]float64 `json:"progress"`
	}
	if err := json.Unmarshal(b, &wire); err != nil || wire.Progress["elapsed_seconds"] != 1.5 || wire.Progress["remaining_seconds"] != 120 {
		t.Errorf("progress on the wire %v (%v), want elapsed_seconds 1.5 and remaining_seconds 120", wire.Progress, err)
	}
	back, err := DecodeEvent(b)
	if err != nil || back.Progress.Elapsed != ev.Progress.Elapsed || back.Progress.Remaining != ev.Progress.Remaining {
		t.Errorf("progress back as %+v (%v)", back.Progress, err)
	}
}
