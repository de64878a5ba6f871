package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// threadRun is one run of BenchmarkConvNetStep/batch64 on a number of
// threads, from bench/wasm_threads.sh's node-threads.txt.
type threadRun struct {
	threads int
	images  float64 // images/s
	serial  float64 // serial-fraction (0 on one thread, which has none)
}

// threadsBlock is the threads kind of a marker: the runs that
// bench/wasm_threads.sh run wrote into dir (node-threads.txt, cpu.txt and
// commit): one row per number of threads (images/s over the rounds, their
// median, its speedup over one thread's median, the serial fraction), and
// the speedups that Amdahl's law gives from the serial time on two
// threads. It returns the Markdown and the commit that the runs measured.
func threadsBlock(dir string) (string, []string, error) {
	runs, err := readThreadRuns(filepath.Join(dir, "node-threads.txt"))
	if err != nil {
		return "", nil, err
	}
	commit, err := os.ReadFile(filepath.Join(dir, "commit"))
	if err != nil {
		return "", nil, err
	}
	cpu, cores := "an unrecorded CPU", "?"
	if b, err := os.ReadFile(filepath.Join(dir, "cpu.txt")); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			k, v, ok := strings.Cut(line, ":")
			switch v = strings.TrimSpace(v); {
			case ok && k == "Model name":
				cpu = v
			case ok && k == "CPU(s)":
				cores = v
			}
		}
	}
	var order []int
	by := map[int][]threadRun{}
	for _, r := range runs {
		if _, ok := by[r.threads]; !ok {
			order = append(order, r.threads)
		}
		by[r.threads] = append(by[r.threads], r)
	}
	if len(by[1]) == 0 || len(by[2]) == 0 {
		return "", nil, fmt.Errorf("%s: no runs on one thread or on two", dir)
	}
	median := func(rs []threadRun) float64 {
		v := make([]float64, len(rs))
		for i, r := range rs {
			v[i] = r.images
		}
		slices.Sort(v)
		if n := len(v); n%2 == 0 {
			return (v[n/2-1] + v[n/2]) / 2
		}
		return v[len(v)/2]
	}
	span := func(rs []threadRun, f func(threadRun) float64) (lo, hi float64) {
		lo, hi = f(rs[0]), f(rs[0])
		for _, r := range rs {
			lo, hi = min(lo, f(r)), max(hi, f(r))
		}
		return lo, hi
	}
	images := func(r threadRun) float64 { return r.images }
	serial := func(r threadRun) float64 { return r.serial }
	one := median(by[1])
	var b strings.Builder
	fmt.Fprintf(&b, "ConvNet training step, batch 64, CPU backend in WebAssembly under Node.js on a shared memory, on %s (%s CPUs), %d round(s):\n\n", cpu, cores, len(by[1]))
	b.WriteString("| threads | images/s | median | speedup of the medians over 1 thread | serial fraction |\n| --- | --- | --- | --- | --- |\n")
	for _, t := range order {
		rs := by[t]
		lo, hi := span(rs, images)
		frac := "-"
		if t > 1 {
			slo, shi := span(rs, serial)
			frac = fmt.Sprintf("%.3f-%.3f", slo, shi)
		}
		fmt.Fprintf(&b, "| %d | %.1f-%.1f | %.1f | %.2fx | %s |\n", t, lo, hi, median(rs), median(rs)/one, frac)
	}
	// The serial time on two threads as a fraction of one thread's step:
	// the step times are as the inverse images/s.
	slo, shi := span(by[2], serial)
	flo, fhi := slo*one/median(by[2]), shi*one/median(by[2])
	amdahl := func(f float64, t int) float64 { return 1 / (f + (1-f)/float64(t)) }
	var est []string
	for _, t := range order {
		if t > 2 {
			est = append(est, fmt.Sprintf("%d threads %.2f-%.2fx (measured %.2fx)", t, amdahl(fhi, t), amdahl(flo, t), median(by[t])/one))
		}
	}
	if len(est) > 0 {
		fmt.Fprintf(&b, "\nAmdahl's law from the serial fraction on two threads (the serial time as %.3f-%.3f of one thread's step): %s.\n", flo, fhi, strings.Join(est, ", "))
	}
	return b.String(), []string{strings.TrimSpace(string(commit))}, nil
}

// readThreadRuns reads node-threads.txt: lines "round R threads T", each
// followed by the benchmark's line, whose images/s and serial-fraction it
// takes.
func readThreadRuns(path string) ([]threadRun, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var runs []threadRun
	threads := 0
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		fields := strings.Fields(sc.Text())
		switch {
		case len(fields) == 4 && fields[0] == "round" && fields[2] == "threads":
			if threads, err = strconv.Atoi(fields[3]); err != nil || threads < 1 {
				return nil, fmt.Errorf("%s:%d: %q is not a number of threads", path, n, fields[3])
			}
		case len(fields) > 0 && strings.HasPrefix(fields[0], "BenchmarkConvNetStep/batch64"):
			if threads == 0 {
				return nil, fmt.Errorf("%s:%d: a benchmark line before any line \"round R threads T\"", path, n)
			}
			r := threadRun{threads: threads}
			for i := 1; i+1 < len(fields); i++ {
				v, err := strconv.ParseFloat(fields[i], 64)
				if err != nil {
					continue
				}
				switch fields[i+1] {
				case "images/s":
					r.images = v
				case "serial-fraction":
					r.serial = v
				}
			}
			if r.images <= 0 || (threads > 1 && r.serial <= 0) {
				return nil, fmt.Errorf("%s:%d: no images/s, or no serial fraction on %d threads", path, n, threads)
			}
			runs = append(runs, r)
			threads = 0
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(runs) == 0 {
		return nil, fmt.Errorf("%s: no benchmark lines", path)
	}
	return runs, nil
}
