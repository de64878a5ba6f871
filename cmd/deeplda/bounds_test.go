package main

import (
	"strings"
	"testing"
)

// TestOversizedRequests checks that sizes beyond the settings' bounds, or
// beyond any machine's memory, are refused with one line before anything
// is allocated (the Go runtime's out-of-memory crash printed a trace of
// over a hundred lines).
func TestOversizedRequests(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"bench", "-model", "matmul", "-size", "100000"}, "deeplda bench: -size must be at most 32768, got 100000"},
		{[]string{"bench", "-model", "convnet", "-batch", "1000000"}, "deeplda bench: -batch 1000000 needs about 3285.8 GiB for the ConvNet's step, more than the "},
		{[]string{"bench", "-suite", "-batches", "1,1000000"}, "deeplda bench: -batch 1000000 needs about 3285.8 GiB for the ConvNet's step, more than the "},
		{[]string{"bench", "-suite", "-sizes", "1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17"}, "deeplda bench: -sizes must list at most 16 numbers, got 17"},
		{[]string{"bench", "-steps", "2000000000"}, "deeplda bench: -steps must be at most 1000000, got 2000000000"},
		{[]string{"synth", "-train", "2000000000"}, "deeplda synth: -train must be at most 100000000, got 2000000000"},
		{[]string{"synth", "-epochs", "1000000"}, "deeplda synth: -epochs must be at most 100000, got 1000000"},
		{[]string{"train", "-batch", "1000000", "-out", t.TempDir()}, "deeplda train: -batch 1000000 needs about 3285.8 GiB for the ConvNet's step on fashion-mnist, more than the "},
		{[]string{"train", "-eval-batch", "1000000", "-out", t.TempDir()}, "deeplda train: -eval-batch 1000000 needs about 3285.8 GiB"},
		{[]string{"eval", "-checkpoint", "x.safetensors", "-eval-batch", "1000000"}, "deeplda eval: -eval-batch 1000000 needs about 3285.8 GiB"},
		{[]string{"sweep", "-seeds", "5000"}, "deeplda sweep: -seeds must be at most 1000, got 5000"},
	} {
		code, _, stderr := runCmd(t, tc.args...)
		if code != 2 || !strings.HasPrefix(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and %q", tc.args, code, stderr, tc.want)
		}
		if strings.Count(stderr, "\n") != 1 {
			t.Errorf("%v: stderr is not one line: %q", tc.args, stderr)
		}
	}
}
