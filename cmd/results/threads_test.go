package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeThreads writes a folder as bench/wasm_threads.sh run writes one,
// with node-threads.txt's text.
func writeThreads(t *testing.T, text string) string {
	t.Helper()
	dir := t.TempDir()
	for name, s := range map[string]string{
		"node-threads.txt": text,
		"commit":           "abc1234\n",
		"cpu.txt":          "CPU(s):   16\nModel name:   Test CPU\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// bench is a benchmark line of BenchmarkConvNetStep/batch64.
func bench(images, serial string) string {
	s := "BenchmarkConvNetStep/batch64   \t8\t 900000000 ns/op\t 48.5 GFLOP/s\t " + images + " images/s\t 1.000 module-threads"
	if serial != "" {
		s += "\t 335.0 rounds/step\t " + serial + " serial-fraction"
	}
	return s + "\n"
}

// TestThreadsBlock: the rows by threads in the order run, the medians'
// speedups, the serial fractions' ranges and Amdahl's law from the serial
// time on two threads; malformed runs are refused with their line.
func TestThreadsBlock(t *testing.T) {
	text := "round 1 threads 1\n" + bench("60", "") + "round 1 threads 2\n" + bench("100", "0.05") + "round 1 threads 8\n" + bench("300", "0.15") +
		"round 2 threads 1\n" + bench("80", "") + "round 2 threads 2\n" + bench("120", "0.04") + "round 2 threads 8\n" + bench("340", "0.16") +
		"round 3 threads 1\n" + bench("70", "") + "round 3 threads 2\n" + bench("140", "0.06") + "round 3 threads 8\n" + bench("320", "0.14")
	dir := writeThreads(t, text)
	got, n, _, err := Regenerate([]byte("<!-- results: threads "+dir+" -->\n<!-- end results -->\n"), "def")
	if err != nil {
		t.Fatal(err)
	}
	s := string(got)
	// One thread's median 70, two threads' 120: the serial time is
	// 0.04-0.06 of a two-thread step, 0.04*70/120-0.06*70/120 of one
	// thread's (0.023-0.035), so 8 threads 1/(0.035+0.965/8) = 6.43x to
	// 1/(0.023+0.977/8) = 6.88x.
	for _, want := range []string{
		"on Test CPU (16 CPUs), 3 round(s):",
		"| 1 | 60.0-80.0 | 70.0 | 1.00x | - |",
		"| 2 | 100.0-140.0 | 120.0 | 1.71x | 0.040-0.060 |",
		"| 8 | 300.0-340.0 | 320.0 | 4.57x | 0.140-0.160 |",
		"(the serial time as 0.023-0.035 of one thread's step): 8 threads 6.43-6.88x (measured 4.57x).",
		"from bench/wasm_threads.sh's runs measured at abc1234._",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("the threads block lacks %q:\n%s", want, s)
		}
	}
	if n != 1 {
		t.Errorf("%d blocks, want 1", n)
	}
	for _, bad := range []struct{ text, want string }{
		{bench("60", ""), "node-threads.txt:1: a benchmark line before"},
		{"round 1 threads 2\n" + bench("100", ""), "node-threads.txt:2: no images/s, or no serial fraction on 2 threads"},
		{"round 1 threads x\n", `node-threads.txt:1: "x" is not a number of threads`},
		{"round 1 threads 1\n" + bench("60", ""), "no runs on one thread or on two"},
		{"", "no benchmark lines"},
	} {
		_, _, _, err := Regenerate([]byte("<!-- results: threads "+writeThreads(t, bad.text)+" -->\n<!-- end results -->\n"), "def")
		if err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("node-threads.txt %q: %v, want an error with %q", bad.text, err, bad.want)
		}
	}
}
