package browsertest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/deeplda/deeplda/experiment"
	"github.com/deeplda/deeplda/internal/fmapeak"
	"github.com/deeplda/deeplda/kernels/cpu"
)

// cpuStepBatch is the batch of the CPU backends' benchmark: the page's
// default for demo 3.
const cpuStepBatch = 64

// cpuStepSteps is how many training steps each timing averages (after one
// untimed warm-up step).
const cpuStepSteps = 3

// cpuRun is a row of BenchmarkCPUStepBrowserNodeNative: its name, and
// what times one round of it in images/s.
type cpuRun struct {
	name    string
	threads int    // the threads it computes on
	metric  string // the benchmark metric of its mean, or ""
	time    func() float64
}

// BenchmarkCPUStepBrowserNodeNative times the paper's ConvNet training step
// at batch 64 (28x28 inputs, spherical LDA head, DNLL) on the CPU backend
// in three places in one run, and prints them side by side as images/s and
// as a share of the native figure on one core:
//
//   - natively, on one core (GOMAXPROCS 1) and on all of them;
//   - compiled to WebAssembly under Node.js, one thread
//     (experiment's BenchmarkConvNetStep, as bench/wasm_simd.sh runs it);
//   - in Chromium, in the trainer page's benchmark (?bench=1&backend=cpu,
//     the ConvNet row, which the engine times in its Worker as it trains
//     without WebGPU): served as
//     GitHub Pages serves it on a first visit (one thread) and with the
//     cross-origin isolation headers (a shared memory, as once the service
//     worker controls the page) with threads= the number of cores (the
//     page's default leaves one core to the browser);
//   - in Chromium, the page training demo 3 itself (512 Fashion-MNIST
//     images, one epoch at batch 64: the images over report.json's
//     training seconds, the first step's warm-up and the page's yields to
//     the browser included), one thread and isolated.
//
// Each figure is also given as a share of the 128-bit FMA peak of the
// threads it computes on (internal/fmapeak measures one core's), the
// ceiling of the WebAssembly SIMD module's relaxed multiply-adds, at the
// direct convolutions' count of operations (so that the rows compare,
// though the WebAssembly build's F(2x2, 3x3) needs about half of them);
// the table names the commit.
//
// With DEEPLDA_SITE_BEFORE set to another commit's built site, the page
// training demo 3 from that site adds two rows, to compare. With
// DEEPLDA_BENCH_ROWS set to a regular expression, only the rows whose names
// it matches run, and the native one-core row.
//
// The three kinds of run alternate b.N times (-benchtime Nx), so that a
// shared machine's load hits them alike; each figure is reported as the
// range over the rounds. It is not part of "./build.sh test"; one round
// takes about two minutes on two cores:
//
//	go test -run '^$' -bench CPUStepBrowserNodeNative -benchtime 2x -v ./browsertest
func BenchmarkCPUStepBrowserNodeNative(b *testing.B) {
	if noBrowser != "" {
		b.Skip("SKIPPED: " + noBrowser)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		b.Fatalf("Node.js (node) is needed: %v", err)
	}
	peak, hasPeak := fmapeak.PerCore() // first, while the machine is quiet
	commit := treeCommit()             // the tree that the Node.js row is built from
	nodeTest := buildWasmTest(b, "../experiment")
	nodeShared := sharedWasm(b, nodeTest)
	isolated := httptest.NewServer(NewIsolatedHandler(siteDir, prefix))
	defer isolated.Close()
	cores := runtime.NumCPU()
	var serial []float64 // the threads row's serial fraction, by round
	runs := []cpuRun{
		{"native CPU backend, 1 core", 1, "native1-images/s", func() float64 { return nativeStep(b, 1) }},
		{fmt.Sprintf("native CPU backend, %d cores", cores), cores, "", func() float64 { return nativeStep(b, cores) }},
		{"WebAssembly under Node.js " + nodeVersion(node) + ", 1 thread", 1, "node-images/s", func() float64 { v, _ := nodeStep(b, node, nodeTest, 1); return v }},
		{fmt.Sprintf("WebAssembly under Node.js %s, a shared memory, threads=%d", nodeVersion(node), cores), cores, "node-threads-images/s", func() float64 {
			v, s := nodeStep(b, node, nodeShared, cores)
			serial = append(serial, s)
			return v
		}},
		{"WebAssembly in Chromium, the page on 1 thread", 1, "chromium-images/s", func() float64 { return chromiumStep(b, baseURL, false) }},
		{fmt.Sprintf("WebAssembly in Chromium, the page cross-origin isolated, threads=%d", cores), cores, "chromium-isolated-images/s", func() float64 { return chromiumStep(b, isolated.URL+prefix, true) }},
		{"Chromium, the page training demo 3, 1 thread", 1, "page-images/s", func() float64 { return chromiumTraining(b, baseURL, false) }},
		{fmt.Sprintf("Chromium, the page training demo 3, cross-origin isolated, threads=%d", cores), cores, "page-isolated-images/s", func() float64 { return chromiumTraining(b, isolated.URL+prefix, true) }},
	}
	if d := os.Getenv("DEEPLDA_SITE_BEFORE"); d != "" {
		// Another commit's build, trained in the same rounds.
		plain := httptest.NewServer(NewHandler(d, prefix))
		defer plain.Close()
		iso := httptest.NewServer(NewIsolatedHandler(d, prefix))
		defer iso.Close()
		before := " (the site of " + filepath.Base(d) + ")"
		runs = append(runs,
			cpuRun{"Chromium, the page training demo 3, 1 thread" + before, 1, "", func() float64 { return chromiumTraining(b, plain.URL+prefix, false) }},
			cpuRun{fmt.Sprintf("Chromium, the page training demo 3, cross-origin isolated, threads=%d", cores) + before, cores, "", func() float64 { return chromiumTraining(b, iso.URL+prefix, true) }})
	}

	if expr := os.Getenv("DEEPLDA_BENCH_ROWS"); expr != "" {
		re, err := regexp.Compile(expr)
		if err != nil {
			b.Fatalf("DEEPLDA_BENCH_ROWS: %v", err)
		}
		// The native one-core row, the others' reference, always runs.
		runs = append(runs[:1], slices.DeleteFunc(runs[1:], func(r cpuRun) bool { return !re.MatchString(r.name) })...)
	}
	ips := make([][]float64, len(runs))
	for i := 0; i < b.N; i++ {
		for j, r := range runs {
			v := r.time()
			b.Logf("round %d: %s: %.1f images/s", i+1, r.name, v)
			ips[j] = append(ips[j], v)
		}
	}
	b.ReportMetric(0, "ns/op")
	var tab strings.Builder
	fmt.Fprintf(&tab, "ConvNet training step, batch %d, CPU backend, %s (%d round(s)):\n", cpuStepBatch, commit, b.N)
	if hasPeak {
		fmt.Fprintf(&tab, "128-bit FMA peak of one core (internal/fmapeak): %.1f GFLOP/s; the step is %.1f MFLOP an image as direct convolutions (WebAssembly's F(2x2, 3x3) multiplies about half as many).\n", peak/1e9, experiment.ConvNetFLOPs/1e6)
	}
	fmt.Fprintf(&tab, "| where | images/s | of native, 1 core | of the 128-bit FMA peak of its threads (native code has wider vectors) |\n| --- | --- | --- | --- |\n")
	for j, r := range runs {
		var share, ofPeak []float64
		for i, v := range ips[j] {
			share = append(share, 100*v/ips[0][i])
			ofPeak = append(ofPeak, 100*v*experiment.ConvNetFLOPs/(float64(r.threads)*peak))
		}
		p := "-"
		if hasPeak {
			p = span(ofPeak, "%.0f") + "%"
		}
		fmt.Fprintf(&tab, "| %s | %s | %s%% | %s |\n", r.name, span(ips[j], "%.1f"), span(share, "%.0f"), p)
	}
	for j, r := range runs {
		if r.metric != "" {
			b.ReportMetric(mean(ips[j]), r.metric)
		}
	}
	amdahl(&tab, runs, ips, serial, cores)
	fmt.Fprint(os.Stdout, tab.String())
}

// amdahl adds to tab, where the rounds timed Node.js on one thread and on
// threads, the serial fraction of the step that the threads row measured
// (the time outside the calls shared out between the threads, by
// experiment's BenchmarkConvNetStep), as a share of the threads' step and
// of one thread's (the other row of the same round), and Amdahl's bounds
// from the latter for threads and for eight threads.
func amdahl(tab *strings.Builder, runs []cpuRun, ips [][]float64, serial []float64, threads int) {
	one := slices.IndexFunc(runs, func(r cpuRun) bool { return r.metric == "node-images/s" })
	many := slices.IndexFunc(runs, func(r cpuRun) bool { return r.metric == "node-threads-images/s" })
	if one < 0 || many < 0 || len(serial) == 0 {
		return
	}
	var ofOne, bound, measured, eight []float64
	for i, s := range serial {
		s1 := s * ips[one][i] / ips[many][i] // the same serial seconds over one thread's step
		ofOne = append(ofOne, s1)
		bound = append(bound, 1/(s1+(1-s1)/float64(threads)))
		measured = append(measured, ips[many][i]/ips[one][i])
		eight = append(eight, 1/(s1+(1-s1)/8))
	}
	fmt.Fprintf(tab, "\nSerial fraction of the step under Node.js (the time outside the calls shared out between the threads): %s of a step on %d threads, %s of a step on one. Amdahl's law bounds %d threads at %sx (measured: %sx) and estimates 8 threads at %sx.\n",
		span(serial, "%.3f"), threads, span(ofOne, "%.3f"), threads, span(bound, "%.2f"), span(measured, "%.2f"), span(eight, "%.1f"))
}

// span formats the range of vs with format: "lo-hi", or one value.
func span(vs []float64, format string) string {
	lo, hi := vs[0], vs[0]
	for _, v := range vs {
		lo, hi = min(lo, v), max(hi, v)
	}
	if fmt.Sprintf(format, lo) == fmt.Sprintf(format, hi) {
		return fmt.Sprintf(format, lo)
	}
	return fmt.Sprintf(format+"-"+format, lo, hi)
}

// nativeStep returns the images/s of the ConvNet step on the native CPU
// backend with procs threads (experiment.Bench, as "deeplda bench" runs it).
func nativeStep(b *testing.B, procs int) float64 {
	b.Helper()
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
	be := cpu.New()
	defer be.Close()
	bench, err := experiment.NewBench(be, experiment.BenchConfig{Model: "convnet", Batch: cpuStepBatch, Size: 1, Steps: cpuStepSteps})
	if err != nil {
		b.Fatal(err)
	}
	if err := bench.WarmUp(); err != nil {
		b.Fatal(err)
	}
	r, err := bench.Time(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	return float64(cpuStepBatch) / r.SecondsPerStep
}

// buildWasmTest compiles the tests of the package in dir to WebAssembly
// and returns the binary's path.
func buildWasmTest(b *testing.B, dir string) string {
	b.Helper()
	out := filepath.Join(b.TempDir(), "test.wasm")
	cmd := exec.Command("go", "test", "-c", "-o", out, ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	if msg, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("building the WebAssembly tests of %s: %v\n%s", dir, err, msg)
	}
	return out
}

// nodeVersion returns what node --version prints.
func nodeVersion(node string) string {
	v, err := exec.Command(node, "--version").Output()
	if err != nil {
		return "?"
	}
	return strings.TrimSpace(string(v))
}

// sharedWasm returns the WebAssembly program test rewritten by
// tools/sharedwasm to run on a shared memory.
func sharedWasm(b *testing.B, test string) string {
	b.Helper()
	out := strings.TrimSuffix(test, ".wasm") + "-shared.wasm"
	cmd := exec.Command("go", "run", "./tools/sharedwasm", test, out)
	cmd.Dir = ".."
	if msg, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("sharedwasm: %v\n%s", err, msg)
	}
	return out
}

// nodeStep returns the images/s of experiment's BenchmarkConvNetStep at
// batch 64, compiled to WebAssembly (test) and run under Node.js: on one
// thread, or with threads > 1 on that many (test then runs on a shared
// memory, started by testdata/wasm_exec_threads.js as a cross-origin
// isolated page starts it), and then its serial fraction too.
func nodeStep(b *testing.B, node, test string, threads int) (ips, serial float64) {
	b.Helper()
	root, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		b.Fatal(err)
	}
	wasmDir := filepath.Join(strings.TrimSpace(string(root)), "lib", "wasm")
	args := []string{"--stack-size=8192"}
	if exec.Command(node, "--experimental-wasm-relaxed-simd", "-e", "0").Run() == nil {
		args = append(args, "--experimental-wasm-relaxed-simd") // on by default in later Node.js
	}
	if threads > 1 {
		launcher, err := filepath.Abs("testdata/wasm_exec_threads.js")
		if err != nil {
			b.Fatal(err)
		}
		args = append(args, launcher, wasmDir, strconv.Itoa(threads), test)
	} else {
		args = append(args, filepath.Join(wasmDir, "wasm_exec_node.js"), test)
	}
	args = append(args, "-test.run", "^$", "-test.bench", fmt.Sprintf("ConvNetStep/batch%d$", cpuStepBatch), "-test.benchtime", fmt.Sprintf("%dx", cpuStepSteps))
	cmd := exec.Command(node, args...)
	cmd.Dir = "../experiment"
	out, err := cmd.CombinedOutput()
	if err != nil {
		b.Fatalf("the benchmark under Node.js: %v\n%s", err, out)
	}
	metric := func(unit string) (float64, bool) {
		for _, line := range strings.Split(string(out), "\n") {
			f := strings.Fields(line)
			for i := 1; i < len(f) && strings.HasPrefix(line, "BenchmarkConvNetStep"); i++ {
				if f[i] == unit {
					v, err := strconv.ParseFloat(f[i-1], 64)
					return v, err == nil
				}
			}
		}
		return 0, false
	}
	if n, ok := metric("module-threads"); !ok || int(n) != threads {
		b.Fatalf("the benchmark under Node.js ran on %v threads (found: %v), want %d:\n%s", n, ok, threads, out)
	}
	v, ok := metric("images/s")
	if !ok {
		b.Fatalf("no images/s in the output under Node.js:\n%s", out)
	}
	if threads > 1 {
		if serial, ok = metric("serial-fraction"); !ok {
			b.Fatalf("no serial-fraction in the output under Node.js on %d threads:\n%s", threads, out)
		}
	}
	return v, serial
}

// chromiumTraining returns the images/s of the page at page training demo
// 3 on the CPU backend: 512 Fashion-MNIST images for one epoch at batch
// 64, over report.json's seconds; shared as for chromiumStep.
func chromiumTraining(b *testing.B, page string, shared bool) float64 {
	b.Helper()
	const images = 512
	br := newBrowser(b, options{noWebGPU: true, noProbes: true})
	br.openURL(fmt.Sprintf("%s?demo=images&data=fashion-mnist&backend=cpu&limit-train=%d&limit-test=64&epochs=1&batch=%d&threads=%d&autostart=1", page, images, cpuStepBatch, runtime.NumCPU()))
	want := map[bool]string{false: "plain", true: "shared"}[shared]
	if m := eval[string](br, `document.body.dataset.memory || ''`); m != want {
		b.Fatalf("the page runs on a %q memory, want %s", m, want)
	}
	br.waitFinished("done", 30*time.Minute)
	var r struct {
		Seconds float64 `json:"seconds"`
		Train   split   `json:"train"`
	}
	if err := json.Unmarshal([]byte(br.text("#report")), &r); err != nil || r.Seconds <= 0 || r.Train.Examples != images {
		b.Fatalf("the page's report: %v, %.1f s, %d training images", err, r.Seconds, r.Train.Examples)
	}
	return images / r.Seconds
}

// chromiumStep returns the images/s of the ConvNet step on the CPU backend
// in the trainer page at page (the site's URL) in Chromium, from its
// benchmark (bench=1, the ConvNet at batch 64 only besides a tiny matmul),
// one page load; shared says whether the page must run on a shared
// memory (cross-origin isolated) or must not.
func chromiumStep(b *testing.B, page string, shared bool) float64 {
	b.Helper()
	br := newBrowser(b, options{noWebGPU: true, noProbes: true})
	br.openURL(fmt.Sprintf("%s?bench=1&autostart=1&backend=cpu&sizes=64&batches=%d&steps=%d&threads=%d", page, cpuStepBatch, cpuStepSteps, runtime.NumCPU()))
	want := map[bool]string{false: "plain", true: "shared"}[shared]
	if m := eval[string](br, `document.body.dataset.memory || ''`); m != want {
		b.Fatalf("the page runs on a %q memory, want %s", m, want)
	}
	br.waitFor(`document.body.dataset.state === 'done' || document.body.dataset.state === 'error'`, 30*time.Minute)
	var r benchResult
	if err := json.Unmarshal([]byte(br.text("#report")), &r); err != nil || r.Error != "" {
		b.Fatalf("the page's benchmark: %v %s; notice %q", err, r.Error, br.text("#notice"))
	}
	for _, x := range r.Results {
		if x.Model == "convnet" && x.Batch == cpuStepBatch {
			if x.Backend.Name != "cpu" {
				b.Fatalf("timed on %q, want cpu", x.Backend.Name)
			}
			b.Logf("%s: %s", page, x.Backend.Adapter)
			return float64(cpuStepBatch) / x.SecondsPerStep
		}
	}
	b.Fatalf("no ConvNet row in the page's benchmark: %+v", r.Results)
	return 0
}
