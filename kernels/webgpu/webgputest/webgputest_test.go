package webgputest

import (
	"errors"
	"fmt"
	"runtime"
	"testing"
)

type closer struct{ closed *bool }

func (c closer) Close() { *c.closed = true }

var errNone = errors.New("no adapter")

// TestOpen checks the rule: a backend is closed when the test ends, a
// missing adapter skips outside CI and fails under it, and another error
// fails.
func TestOpen(t *testing.T) {
	closed := false
	t.Run("opened", func(t *testing.T) {
		Open(t, func() (closer, error) { return closer{&closed}, nil }, errNone)
	})
	if !closed {
		t.Error("the backend was not closed when the test ended")
	}
	for _, c := range []struct {
		ci     string
		err    error
		result string
	}{
		{"", fmt.Errorf("%w: none", errNone), "skipped"},
		{"true", fmt.Errorf("%w: none", errNone), "failed"},
		{"", errors.New("device lost"), "failed"},
	} {
		t.Setenv("CI", c.ci)
		tb := &recorder{TB: t}
		done := make(chan struct{})
		go func() { // Fatalf and Skipf end the goroutine
			defer close(done)
			Open(tb, func() (closer, error) { return closer{}, c.err }, errNone)
		}()
		<-done
		if tb.result != c.result {
			t.Errorf("CI=%q, %v: the test %s, want %s", c.ci, c.err, tb.result, c.result)
		}
	}
}

// recorder is a testing.TB that records whether Open failed or skipped.
type recorder struct {
	testing.TB
	result string
}

func (r *recorder) Helper() {}

func (r *recorder) Fatalf(string, ...any) {
	r.result = "failed"
	runtime.Goexit()
}

func (r *recorder) Skipf(string, ...any) {
	r.result = "skipped"
	runtime.Goexit()
}
