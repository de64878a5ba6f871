package model

import (
	"errors"
	"fmt"

	"github.com/deeplda/deeplda/kernels"
	"github.com/deeplda/deeplda/safetensors"
)

// Checkpoints written by PyTorch (with the reference model's parameter
// names) or by this project.

// ConvNetSpec infers the model of a ConvNet checkpoint from its tensor
// names and shapes: the input channels from enc.conv1.weight [64, C_in, 3,
// 3], d from enc.proj.weight [d, 256], the head from head.mu [C, d] with
// head.log_var (a scalar: spherical; [d]: diagonal) or head.raw_tril [d,
// d] (full), or from head.linear.weight [C, d] (softmax). The input's height
// and width are not recorded in a checkpoint and come from hw. The loss and
// lambda (and learning rate) come from the spec in the metadata (see
// SavedSpec) when this project wrote the file, else DNLL with lambda 0.01
// for LDA heads (they only matter for the loss statistics, not for
// evaluation). Both specs are checked with Validate, and the saved one
// must describe the model that the tensors hold.
func ConvNetSpec(f *safetensors.File, hw [2]int) (Spec, error) {
	shape := func(name string, rank int) ([]int, error) {
		t, ok := f.Tensors[name]
		if !ok {
			return nil, fmt.Errorf("no tensor %s: not a checkpoint of the paper's ConvNet", name)
		}
		if t.DType != safetensors.F32 {
			return nil, fmt.Errorf("tensor %s is %s, want F32", name, t.DType)
		}
		if len(t.Shape) != rank {
			return nil, fmt.Errorf("tensor %s has shape %v, want %d dimensions", name, t.Shape, rank)
		}
		return t.Shape, nil
	}
	has := func(name string) bool { _, ok := f.Tensors[name]; return ok }
	s := Spec{Encoder: EncoderConvNet, LR: 1e-3, Loss: kernels.DNLL, Lambda: 0.01}
	conv1, err := shape("enc.conv1.weight", 4)
	if err != nil {
		return s, err
	}
	if conv1[0] != 64 || conv1[2] != 3 || conv1[3] != 3 || conv1[1] < 1 {
		return s, fmt.Errorf("enc.conv1.weight has shape %v, want [64 C_in 3 3]", conv1)
	}
	proj, err := shape("enc.proj.weight", 2)
	if err != nil {
		return s, err
	}
	if proj[1] != 256 || proj[0] < 1 {
		return s, fmt.Errorf("enc.proj.weight has shape %v, want [d 256]", proj)
	}
	s.Input, s.Dim = []int{conv1[1], hw[0], hw[1]}, proj[0]
	var classDim []int
	switch {
	case has("head.linear.weight"):
		s.Head, s.Loss, s.Lambda = HeadSoftmax, kernels.CE, 0
		if classDim, err = shape("head.linear.weight", 2); err != nil {
			return s, err
		}
	case has("head.mu"):
		s.Head = HeadLDA
		if classDim, err = shape("head.mu", 2); err != nil {
			return s, err
		}
		if lv, ok := f.Tensors["head.log_var"]; ok {
			switch {
			case len(lv.Shape) == 0:
				s.Cov = kernels.Spherical
			case len(lv.Shape) == 1:
				s.Cov = kernels.Diagonal
			default:
				return s, fmt.Errorf("head.log_var has shape %v, want a scalar (spherical) or [d] (diagonal)", lv.Shape)
			}
		} else if _, ok := f.Tensors["head.raw_tril"]; ok {
			s.Cov = kernels.Full
		} else {
			return s, errors.New("the LDA head has neither head.log_var nor head.raw_tril")
		}
	default:
		return s, errors.New("no head.mu (LDA head) or head.linear.weight (softmax head) in the checkpoint")
	}
	if classDim[1] != s.Dim || classDim[0] < 2 {
		return s, fmt.Errorf("the head has shape %v, want [C %d] with C >= 2 (d from enc.proj.weight)", classDim, s.Dim)
	}
	s.Classes = classDim[0]
	if err := s.Validate(); err != nil {
		return s, err
	}
	saved, ok, err := SavedSpec(f)
	if !ok || err != nil {
		return s, err
	}
	if err := s.describedBy(saved); err != nil {
		return s, err
	}
	if s.Head == HeadLDA {
		s.Loss, s.Lambda, s.LR = saved.Loss, saved.Lambda, saved.LR
	}
	return s, nil
}

// describedBy checks that saved, the spec in a checkpoint's metadata,
// describes the model s that its tensors hold: the same encoder, input
// channels, classes, embedding dimension, head and (LDA) covariance.
func (s Spec) describedBy(saved Spec) error {
	if len(saved.Input) != 3 || saved.Input[0] != s.Input[0] {
		return fmt.Errorf("spec: input is %v but enc.conv1.weight takes %d-channel images", saved.Input, s.Input[0])
	}
	type field struct {
		name        string
		saved, held any
	}
	fields := []field{
		{"encoder", saved.Encoder, s.Encoder},
		{"classes", saved.Classes, s.Classes},
		{"dim", saved.Dim, s.Dim},
		{"head", saved.Head, s.Head},
	}
	if s.Head == HeadLDA {
		fields = append(fields, field{"covariance", saved.Cov, s.Cov})
	}
	for _, c := range fields {
		if c.saved != c.held {
			return fmt.Errorf("spec: %s is %v but the tensors hold %v", c.name, c.saved, c.held)
		}
	}
	return nil
}

// ReadConvNet reads a ConvNet checkpoint and infers its model (see
// ConvNetSpec); hw is the input's height and width.
func ReadConvNet(path string, hw [2]int) (*safetensors.File, Spec, error) {
	f, err := safetensors.ReadFile(path)
	if err != nil {
		return nil, Spec{}, fmt.Errorf("reading the checkpoint: %w", err)
	}
	spec, err := ConvNetSpec(f, hw)
	if err != nil {
		return nil, spec, fmt.Errorf("%s: %w", path, err)
	}
	return f, spec, nil
}

// LoadConvNet builds the model a ConvNet checkpoint describes (see
// ConvNetSpec) on be and loads its parameters and BatchNorm statistics.
// hw is the input's height and width.
func LoadConvNet(be kernels.Backend, path string, hw [2]int) (*Model, error) {
	f, spec, err := ReadConvNet(path, hw)
	if err != nil {
		return nil, err
	}
	return NewFromState(be, f, spec, path)
}

// NewFromState builds the model of spec on be and loads the state of
// f (read from path, which names it in errors).
func NewFromState(be kernels.Backend, f *safetensors.File, spec Spec, path string) (*Model, error) {
	m, err := New(be, spec)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if err := m.LoadState(f, ""); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}
