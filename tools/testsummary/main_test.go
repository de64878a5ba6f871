package main

import (
	"os"
	"strings"
	"testing"
)

// lastLine returns the last line of out, which must end in a newline.
func lastLine(t *testing.T, out string) string {
	t.Helper()
	if !strings.HasSuffix(out, "\n") {
		t.Fatalf("output does not end in a newline: %q", out)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	return lines[len(lines)-1]
}

func run(t *testing.T, in string) (string, bool) {
	t.Helper()
	var out strings.Builder
	ok := summarize(strings.NewReader(in), &out)
	return out.String(), ok
}

// TestMixed runs the events of a real go test -json run over a package with
// a passing, a skipped, a failing test and subtests, a package whose tests
// do not build and one without tests (testdata/mixed.jsonl).
func TestMixed(t *testing.T) {
	in, err := os.ReadFile("testdata/mixed.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	out, ok := run(t, string(in)+`{"Action":"exit","Label":"native","Exit":1}`+"\n")
	if ok {
		t.Error("a run with failures reported success")
	}
	if got, want := lastLine(t, out), "3 passed, 2 failed, 2 skipped"; got != want {
		t.Errorf("last line %q, want %q\n%s", got, want, out)
	}
	for _, want := range []string{
		// streamed: the failing test's whole output, the compiler's error,
		// the packages' result lines
		"    a_test.go:7: some context\n    a_test.go:7: got 1, want 2\n--- FAIL: TestFail",
		`b/b_test.go:5:45: cannot use "s"`,
		"FAIL\texample.com/ts/a\t",
		"?   \texample.com/ts/c\t[no test files]",
		// the summary
		"  example.com/ts/a       3       1       2\n",
		"  example.com/ts/b       0       1       0\n",
		"example.com/ts/a TestSkip (native): SKIPPED: no ../shared beside the clone\n",
		"example.com/ts/a TestSub/two (native): not here\n",
		"example.com/ts/a TestFail (native)\n",
		"example.com/ts/b (native): the tests did not build",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	for _, unwanted := range []string{"a_test.go:5: fine", "=== RUN   TestPass", "example.com/ts/c  "} {
		if strings.Contains(out, unwanted) {
			t.Errorf("output has %q:\n%s", unwanted, out)
		}
	}
}

// TestRuns checks that every run counts toward the last line, that rows
// are grouped by label, and that a run that exits non-zero without a
// failed test (a crash, or go test failing before any test) fails.
func TestRuns(t *testing.T) {
	pass := func(pkg, test string) string {
		return `{"Action":"run","Package":"` + pkg + `","Test":"` + test + `"}
{"Action":"output","Package":"` + pkg + `","Test":"` + test + `","Output":"=== RUN   ` + test + `\n"}
{"Action":"pass","Package":"` + pkg + `","Test":"` + test + `"}
{"Action":"output","Package":"` + pkg + `","Output":"ok  \t` + pkg + `\t0.1s\n"}
{"Action":"pass","Package":"` + pkg + `"}
`
	}
	for _, tc := range []struct {
		name, in, last string
		ok             bool
	}{
		{"two runs pass", pass("m/a", "TestA") + `{"Action":"exit","Label":"native","Exit":0}` + "\n" +
			pass("m/a", "TestA") + pass("m/b", "TestB") + `{"Action":"exit","Label":"js/wasm","Exit":0}` + "\n",
			"3 passed, 0 failed, 0 skipped", true},
		{"without exit lines", pass("m/a", "TestA"), "1 passed, 0 failed, 0 skipped", true},
		{"go test fails before any test", pass("m/a", "TestA") + "go: cannot find main module\n" + `{"Action":"exit","Label":"browser","Exit":1}` + "\n",
			"1 passed, 1 failed, 0 skipped", false},
		{"a package crashes outside its tests", pass("m/a", "TestA") + `{"Action":"output","Package":"m/a","Output":"panic: boom\n"}
{"Action":"fail","Package":"m/a"}
{"Action":"exit","Exit":1}
`, "1 passed, 1 failed, 0 skipped", false},
		{"a test times out", `{"Action":"run","Package":"m/a","Test":"TestSlow"}
{"Action":"output","Package":"m/a","Test":"TestSlow","Output":"    slow_test.go:9: step 3 of 10\n"}
{"Action":"output","Package":"m/a","Output":"panic: test timed out after 10m0s\n"}
{"Action":"fail","Package":"m/a"}
{"Action":"exit","Exit":1}
`, "0 passed, 1 failed, 0 skipped", false},
	} {
		out, ok := run(t, tc.in)
		if got := lastLine(t, out); got != tc.last || ok != tc.ok {
			t.Errorf("%s: last line %q, ok %v; want %q, %v\n%s", tc.name, got, ok, tc.last, tc.ok, out)
		}
	}
	out, _ := run(t, `{"Action":"run","Package":"m/a","Test":"TestSlow"}
{"Action":"output","Package":"m/a","Test":"TestSlow","Output":"    slow_test.go:9: step 3 of 10\n"}
{"Action":"fail","Package":"m/a"}
`)
	if !strings.Contains(out, "m/a TestSlow did not finish; its output:)\n    slow_test.go:9: step 3 of 10\n") {
		t.Errorf("the output of a test that never ended is lost:\n%s", out)
	}
	out, _ = run(t, pass("m/a", "TestA")+`{"Action":"exit","Label":"native","Exit":0}`+"\n"+pass("m/a", "TestA")+`{"Action":"exit","Label":"js/wasm","Exit":0}`+"\n")
	if !strings.Contains(out, "native:\n  m/a ") || !strings.Contains(out, "js/wasm:\n  m/a ") {
		t.Errorf("the runs' rows are not grouped by label:\n%s", out)
	}
	if !strings.Contains(out, "ok  \tm/a\t0.1s\n") || strings.Contains(out, "=== RUN") {
		t.Errorf("the stream should show the ok lines only:\n%s", out)
	}
	out, _ = run(t, "go: downloading example.com/x v1.0.0\n")
	if !strings.HasPrefix(out, "go: downloading example.com/x v1.0.0\n") {
		t.Errorf("a line that is not an event is not passed on:\n%s", out)
	}
}
