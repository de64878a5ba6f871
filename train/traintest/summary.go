package traintest

import (
	"fmt"
	"runtime/debug"
	"time"

	"github.com/deeplda/deeplda/kernels"
	"github.com/deeplda/deeplda/safetensors"
)

// CPUTolerance is the CPU backend's tolerance against PyTorch: rtol 1e-4,
// with an absolute floor of 1e-4 of the tensor's largest value for sums
// whose float32 rounding depends on the order of summation.
var CPUTolerance = Tolerance{RTol: 1e-4, ATol: 1e-4}

// GPUTolerance is the WebGPU backend's tolerance against PyTorch: rtol
// 1e-3, with the same absolute floor, for the GPU's float32 sums in other
// orders.
var GPUTolerance = Tolerance{RTol: 1e-3, ATol: 1e-4}

// Failure is a failed check of a Summary.
type Failure struct {
	Section string `json:"section"`
	Message string `json:"message"`
}

// Section is one group of checks of a Summary: one golden file.
type Section struct {
	Name    string  `json:"name"`
	Checks  int     `json:"checks"`
	Failed  int     `json:"failed"`
	Seconds float64 `json:"seconds"`
}

// Summary is the result of Check, as the browser's golden page program
// writes it: the backend, the checks of each golden file, the failures and
// logs, and why the checks could not run (Error).
type Summary struct {
	Backend   string    `json:"backend"`
	Adapter   string    `json:"adapter"`
	Tolerance string    `json:"tolerance"`
	Checks    int       `json:"checks"`
	Sections  []Section `json:"sections"`
	Failures  []Failure `json:"failures"`
	Logs      []string  `json:"logs"`
	Error     string    `json:"error,omitempty"`
}

// Check runs the golden checks where there is no "go test": the head cases
// (CheckHeadCases), then the model cases named (CheckCase), each read with
// open ("head_cases", "mlp_synthetic") and counted as a section of the
// Summary. A Fatalf or a panic ends its section (a panic as a failure); a
// file that cannot be read, an unknown case or a backend that fails at the
// end sets Error.
func Check(be kernels.Backend, tol Tolerance, cases []string, open func(name string) (*safetensors.File, error)) *Summary {
	s := &Summary{Backend: be.Info().Name, Adapter: be.Info().Adapter, Tolerance: tol.String(), Failures: []Failure{}, Logs: []string{}}
	r := &reporter{s: s}
	heads, err := open("head_cases")
	if err != nil {
		s.Error = err.Error()
		return s
	}
	r.run("head_cases", func() { CheckHeadCases(r, be, heads, tol) })
	for _, name := range cases {
		c, ok := CaseNamed(name)
		if !ok {
			s.Error = fmt.Sprintf("no golden model case %q", name)
			return s
		}
		f, err := open(name)
		if err != nil {
			s.Error = err.Error()
			return s
		}
		r.run(name, func() { CheckCase(r, be, c, f, tol) })
	}
	if err := be.Sync(); err != nil {
		s.Error = "the backend failed: " + err.Error()
	}
	return s
}

// fatal unwinds a section after Fatalf.
type fatal struct{}

// reporter is the TB (and Counter) of Check: it collects failures and
// counts the checks of the section it runs.
type reporter struct {
	s   *Summary
	cur *Section
}

func (r *reporter) Helper() {}

func (r *reporter) Count(string) {
	r.s.Checks++
	r.cur.Checks++
}

func (r *reporter) Errorf(format string, args ...any) {
	r.s.Failures = append(r.s.Failures, Failure{r.cur.Name, fmt.Sprintf(format, args...)})
	r.cur.Failed++
}

func (r *reporter) Fatalf(format string, args ...any) {
	r.Errorf(format, args...)
	panic(fatal{})
}

func (r *reporter) Logf(format string, args ...any) {
	r.s.Logs = append(r.s.Logs, r.cur.Name+": "+fmt.Sprintf(format, args...))
}

// run runs f as the section name: a Fatalf or a panic ends the section
// (a panic as a failure).
func (r *reporter) run(name string, f func()) {
	r.s.Sections = append(r.s.Sections, Section{Name: name})
	r.cur = &r.s.Sections[len(r.s.Sections)-1]
	start := time.Now()
	defer func() {
		r.cur.Seconds = time.Since(start).Seconds()
		if p := recover(); p != nil {
			if _, ok := p.(fatal); !ok {
				r.Errorf("panic: %v\n%s", p, debug.Stack())
			}
		}
	}()
	f()
}
