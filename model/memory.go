package model

import "github.com/deeplda/deeplda/kernels"

// The memory of a training step, in bytes, as measured on the CPU backend
// (memory_test.go holds StepBytes between the heap that a model and its
// training step take and twice that): 16 bytes a parameter (its value,
// gradient and Adam's two moments), the ConvNet's scratch and the
// activations with their gradients. The ConvNet keeps about 1,890 bytes of
// activations per input pixel (H x W) of an example for its backward pass
// (its channels widen as it pools), and its gradients take turns in two
// buffers as large as its largest activation (64 channels at full
// resolution, 512 bytes per pixel): about 2,400 bytes per pixel on 28x28
// and 32x32x3 inputs alike. The toy encoders keep some 100 float32 per
// example.
const (
	convNetParams   = 1_200_000      // the ConvNet's convolutions and BatchNorms
	convNetScratch  = 96 << 20       // the CPU backend's unfolded patches or transformed tiles, partial sums and packed panels (on two threads)
	convNetPerPixel = 2_600          // activations and gradients per input pixel (H x W) of one example
	toyPerValue     = 14             // activations per value of an example's layers (MLP, none)
	mlpHidden       = 32             // the toy MLP's hidden width
	stepOverhead    = 16 << 10       // the backend's and the model's small tensors
	bytesPerParam   = 4 * 4          // value, gradient, Adam's m and v
	maxSpecBytes    = int64(1) << 62 // a sum that would overflow: more than any machine has
)

// StepBytes estimates the memory that a model of spec s takes while it
// trains on batches of batch examples and evaluates them, on the host for
// the CPU backend or on the device for WebGPU: its parameters with their
// gradients and Adam's moments, and its activations and their gradients.
// A front end compares it with the memory it has before allocating
// anything (experiment's CheckMemory).
func StepBytes(s Spec, batch int) int64 {
	d, c := int64(s.Dim), int64(s.Classes)
	head := d * (c + d + 1)
	values := int64(kernels.Numel(s.Input))
	var params, perExample int64
	switch s.Encoder {
	case EncoderConvNet:
		hw := int64(1)
		if len(s.Input) == 3 {
			hw = int64(s.Input[1]) * int64(s.Input[2])
		}
		params = convNetParams + 257*d
		perExample = convNetPerPixel * hw
		head += convNetScratch / bytesPerParam
	case EncoderMLP:
		params = (mlpHidden + 1) * (values + d)
		perExample = toyPerValue * (values + mlpHidden + d + c)
	default:
		perExample = toyPerValue * (values + d + c)
	}
	n := stepOverhead + bytesPerParam*(params+head)
	if b := int64(batch); b > 0 && perExample > (maxSpecBytes-n)/b {
		return maxSpecBytes
	}
	return n + perExample*int64(batch)
}
