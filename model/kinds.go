package model

import (
	"fmt"
	"strings"
)

// HeadKind selects the head of a model.
type HeadKind int

// Head kinds (the zero HeadKind is none of them).
const (
	HeadLDA HeadKind = iota + 1
	HeadSoftmax
)

// EncoderKind selects the encoder of a model.
type EncoderKind int

// Encoder kinds (the zero EncoderKind is none of them).
const (
	EncoderNone EncoderKind = iota + 1 // the identity: classical LDA
	EncoderMLP
	EncoderConvNet
)

var (
	headNames    = spelling[HeadKind]{"head", []string{HeadLDA: "lda", HeadSoftmax: "softmax"}}
	encoderNames = spelling[EncoderKind]{"encoder", []string{EncoderNone: "none", EncoderMLP: "mlp", EncoderConvNet: "convnet"}}
)

// String returns the flag spelling of the head ("lda" or "softmax").
func (h HeadKind) String() string { return headNames.format(h) }

// ParseHead parses "lda" and "softmax".
func ParseHead(s string) (HeadKind, error) { return headNames.parse(s) }

// MarshalText writes the head's String, as JSON does.
func (h HeadKind) MarshalText() ([]byte, error) { return headNames.marshal(h) }

// UnmarshalText reads what MarshalText writes.
func (h *HeadKind) UnmarshalText(b []byte) (err error) { *h, err = ParseHead(string(b)); return err }

// String returns the flag spelling of the encoder ("none", "mlp" or
// "convnet").
func (e EncoderKind) String() string { return encoderNames.format(e) }

// ParseEncoder parses "none", "mlp" and "convnet".
func ParseEncoder(s string) (EncoderKind, error) { return encoderNames.parse(s) }

// MarshalText writes the encoder's String, as JSON does.
func (e EncoderKind) MarshalText() ([]byte, error) { return encoderNames.marshal(e) }

// UnmarshalText reads what MarshalText writes.
func (e *EncoderKind) UnmarshalText(b []byte) (err error) {
	*e, err = ParseEncoder(string(b))
	return err
}

// spelling is the names of the values of a kind (index: the value; the
// empty name at 0 is no value).
type spelling[K ~int] struct {
	what  string
	names []string
}

func (s spelling[K]) valid(k K) bool { return k > 0 && int(k) < len(s.names) }

func (s spelling[K]) format(k K) string {
	if !s.valid(k) {
		return fmt.Sprintf("%s(%d)", s.what, int(k))
	}
	return s.names[k]
}

func (s spelling[K]) parse(v string) (K, error) {
	for k, n := range s.names {
		if k > 0 && strings.ToLower(v) == n {
			return K(k), nil
		}
	}
	return 0, fmt.Errorf("unknown %s %q (want %s)", s.what, v, s.list())
}

func (s spelling[K]) marshal(k K) ([]byte, error) {
	if !s.valid(k) {
		return nil, fmt.Errorf("no %s: %d is not a %s kind", s.what, int(k), s.what)
	}
	return []byte(s.names[k]), nil
}

// list writes the names as "a, b or c".
func (s spelling[K]) list() string {
	n := s.names[1:]
	if len(n) == 1 {
		return n[0]
	}
	return strings.Join(n[:len(n)-1], ", ") + " or " + n[len(n)-1]
}
