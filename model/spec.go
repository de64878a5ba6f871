package model

import (
	"fmt"
	"math"
	"slices"

	"github.com/deeplda/deeplda/kernels"
)

// The range rules of a Spec's fields, which Validate applies to every spec:
// one built from settings, and one read from a checkpoint's metadata.

// CheckLambda checks the DNLL weight lambda: a finite number >= 0.
func CheckLambda(v float64) error {
	if !(v >= 0) || math.IsInf(v, 0) {
		return fmt.Errorf("lambda must be a finite number >= 0, got %v", v)
	}
	return nil
}

// CheckLR checks Adam's learning rate: a finite number > 0.
func CheckLR(v float64) error {
	if !(v > 0) || math.IsInf(v, 0) {
		return fmt.Errorf("learning rate must be a finite number > 0, got %v", v)
	}
	return nil
}

// checkKinds checks that the encoder, head, covariance and loss of s are
// each one of their kinds (a spec read from JSON may hold any number).
func (s Spec) checkKinds() error {
	if err := checkKind("encoder", s.Encoder, EncoderNone, EncoderMLP, EncoderConvNet); err != nil {
		return err
	}
	if err := checkKind("head", s.Head, HeadLDA, HeadSoftmax); err != nil {
		return err
	}
	if err := checkKind("covariance", s.Cov, kernels.Spherical, kernels.Diagonal, kernels.Full); err != nil {
		return err
	}
	return checkKind("loss", s.Loss, kernels.NLL, kernels.CE, kernels.DNLL)
}

// checkKind checks that k is one of kinds; the error names the field what
// and lists the kinds by value and name ("loss is 7, want 0 (nll), 1 (ce)
// or 2 (dnll)").
func checkKind[K interface {
	~int
	fmt.Stringer
}](what string, k K, kinds ...K) error {
	if slices.Contains(kinds, k) {
		return nil
	}
	want := spelling[K]{what: what, names: []string{""}} // list skips the empty name at 0
	for _, v := range kinds {
		want.names = append(want.names, fmt.Sprintf("%d (%s)", int(v), v))
	}
	return fmt.Errorf("%s is %d, want %s", what, int(k), want.list())
}
