package traintest_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/deeplda/deeplda/kernels"
	"github.com/deeplda/deeplda/kernels/cpu"
	"github.com/deeplda/deeplda/safetensors"
	"github.com/deeplda/deeplda/train/traintest"
)

// counter counts the checks of a direct run (traintest.Counter).
type counter struct {
	testing.TB
	n int
}

func (c *counter) Count(string) { c.n++ }

// shared opens the golden files of ../shared/golden for Check.
func shared(t *testing.T) func(string) (*safetensors.File, error) {
	return func(name string) (*safetensors.File, error) { return traintest.Open(t, name), nil }
}

// TestCheckCounts runs Check on the CPU backend: every check passes, each
// section counts the checks that the direct run of the same file counts,
// and the summary describes the backend and tolerance.
func TestCheckCounts(t *testing.T) {
	s := traintest.Check(cpu.New(), traintest.CPUTolerance, []string{"mlp_synthetic"}, shared(t))
	if s.Error != "" || len(s.Failures) > 0 {
		t.Fatalf("error %q, failures %v", s.Error, s.Failures)
	}
	heads, mlp := &counter{TB: t}, &counter{TB: t}
	traintest.CheckHeadCases(heads, cpu.New(), traintest.Open(t, "head_cases"), traintest.CPUTolerance)
	c, _ := traintest.CaseNamed("mlp_synthetic")
	traintest.CheckCase(mlp, cpu.New(), c, traintest.Open(t, "mlp_synthetic"), traintest.CPUTolerance)
	want := []traintest.Section{{Name: "head_cases", Checks: heads.n}, {Name: "mlp_synthetic", Checks: mlp.n}}
	if len(s.Sections) != len(want) {
		t.Fatalf("sections %+v, want %+v", s.Sections, want)
	}
	for i, w := range want {
		if g := s.Sections[i]; g.Name != w.Name || g.Checks != w.Checks || g.Failed != 0 || g.Seconds <= 0 {
			t.Errorf("section %d: %+v, want %+v in some time", i, g, w)
		}
	}
	if s.Checks != heads.n+mlp.n || heads.n == 0 || mlp.n == 0 {
		t.Errorf("%d checks in all, want %d + %d", s.Checks, heads.n, mlp.n)
	}
	if s.Backend != "cpu" || s.Adapter == "" || s.Tolerance != "rtol 0.0001, atol 0.0001 x max|want|" {
		t.Errorf("backend %q, adapter %q, tolerance %q", s.Backend, s.Adapter, s.Tolerance)
	}
}

// TestCheckFailures: with a tolerance nothing meets, every comparison
// fails in the section it belongs to, and the checks still all run.
func TestCheckFailures(t *testing.T) {
	s := traintest.Check(cpu.New(), traintest.Tolerance{RTol: -1}, []string{"mlp_synthetic"}, shared(t))
	if s.Error != "" {
		t.Fatal(s.Error)
	}
	failed := map[string]int{}
	for _, f := range s.Failures {
		failed[f.Section]++
	}
	for _, sec := range s.Sections {
		if sec.Failed == 0 || sec.Failed != failed[sec.Name] || sec.Failed > sec.Checks {
			t.Errorf("section %+v: %d failures listed", sec, failed[sec.Name])
		}
	}
}

// panicking is a backend whose products panic.
type panicking struct{ kernels.Backend }

func (panicking) MatMul(c, a, b, bias kernels.Tensor, transA, transB bool) { panic("no products") }

// TestCheckEndsSections: a golden file that lacks a tensor ends its
// section with that failure and a panic ends its section as a failure;
// the next section runs.
func TestCheckEndsSections(t *testing.T) {
	open := func(name string) (*safetensors.File, error) {
		f := traintest.Open(t, name)
		delete(f.Tensors, "z")
		return f, nil
	}
	s := traintest.Check(cpu.New(), traintest.CPUTolerance, []string{"mlp_synthetic", "mlp_synthetic"}, open)
	if s.Error != "" || len(s.Sections) != 3 || len(s.Failures) != 2 {
		t.Fatalf("error %q, sections %+v, failures %+v", s.Error, s.Sections, s.Failures)
	}
	for _, f := range s.Failures {
		if f.Section != "mlp_synthetic" || f.Message != `golden file mlp_synthetic lacks "z"` {
			t.Errorf("failure %+v", f)
		}
	}
	s = traintest.Check(panicking{cpu.New()}, traintest.CPUTolerance, []string{"mlp_synthetic"}, shared(t))
	if len(s.Sections) != 2 || len(s.Failures) != 2 {
		t.Fatalf("sections %+v, failures %+v", s.Sections, s.Failures)
	}
	for i, f := range s.Failures {
		if f.Section != s.Sections[i].Name || !strings.HasPrefix(f.Message, "panic: no products\n") || s.Sections[i].Failed != 1 {
			t.Errorf("failure %+v of section %+v", f, s.Sections[i])
		}
	}
}

// TestCheckErrors: a file that cannot be read or an unknown case stops
// the checks with Error.
func TestCheckErrors(t *testing.T) {
	s := traintest.Check(cpu.New(), traintest.CPUTolerance, nil, func(string) (*safetensors.File, error) { return nil, errors.New("HTTP 404") })
	if s.Error != "HTTP 404" || len(s.Sections) != 0 {
		t.Errorf("unreadable head_cases: error %q, sections %+v", s.Error, s.Sections)
	}
	s = traintest.Check(cpu.New(), traintest.CPUTolerance, []string{"mlp_cifar"}, shared(t))
	if s.Error != `no golden model case "mlp_cifar"` || len(s.Sections) != 1 {
		t.Errorf("unknown case: error %q, sections %+v", s.Error, s.Sections)
	}
}
