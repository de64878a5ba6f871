package model

import (
	"fmt"
	"iter"

	"github.com/deeplda/deeplda/kernels"
)

// BatchNorms returns the model's BatchNorm layers in encoder order (none for
// the identity and MLP encoders).
func (m *Model) BatchNorms() []*BatchNorm2d {
	var out []*BatchNorm2d
	for _, l := range m.Encoder.Layers {
		if bn, ok := l.(*BatchNorm2d); ok {
			out = append(out, bn)
		}
	}
	return out
}

// BNStats is a host copy of the BatchNorm running statistics of a model (in
// the order of BatchNorms), to compare or restore them.
type BNStats struct {
	Mean, Var [][]float32
	Tracked   []int
}

// BatchNormStats reads the running statistics back from the backend.
func (m *Model) BatchNormStats() (BNStats, error) {
	var s BNStats
	for _, bn := range m.BatchNorms() {
		mean, err := m.Backend.Read(bn.RunMean.T)
		if err != nil {
			return BNStats{}, fmt.Errorf("reading %s: %w", bn.RunMean.Name, err)
		}
		v, err := m.Backend.Read(bn.RunVar.T)
		if err != nil {
			return BNStats{}, fmt.Errorf("reading %s: %w", bn.RunVar.Name, err)
		}
		s.Mean, s.Var, s.Tracked = append(s.Mean, mean), append(s.Var, v), append(s.Tracked, *bn.Tracked)
	}
	return s, nil
}

// SetBatchNormStats writes running statistics taken from this model (or a
// model of the same spec) back. It panics if s does not fit the model.
func (m *Model) SetBatchNormStats(s BNStats) {
	bns := m.BatchNorms()
	if len(s.Mean) != len(bns) || len(s.Var) != len(bns) || len(s.Tracked) != len(bns) {
		panic(fmt.Sprintf("model: SetBatchNormStats: statistics of %d layers for a model with %d", len(s.Mean), len(bns)))
	}
	for i, bn := range bns {
		m.Backend.Write(bn.RunMean.T, s.Mean[i])
		m.Backend.Write(bn.RunVar.T, s.Var[i])
		*bn.Tracked = s.Tracked[i]
	}
}

// RecalibrateBatchNorm recomputes the running statistics of every BatchNorm
// layer from the input batches that batches yields, as PyTorch does with
// momentum=None after reset_running_stats(): the running mean and variance
// are reset (to 0 and 1) and num_batches_tracked to 0, then each batch is
// passed through the encoder in training mode and batch k (1-based) enters
// the estimate with weight 1/k, so that the result is the plain average of
// the batch means and of the unbiased batch variances. The layers' momentum
// is restored afterwards. Parameters, gradients and Adam's state are not
// touched; the head is not run.
//
// The estimates describe the model's current weights, whereas the running
// estimates kept during training (momentum 0.1) average over the last ~10
// steps' weights: early in training, when the weights move fast, they trail
// the weights and evaluation-mode accuracy lags training-mode accuracy.
//
// It returns the number of batches used. With no batch, or a model without
// BatchNorm, it changes nothing and returns 0. A device error leaves the
// statistics undefined; restore them with SetBatchNormStats.
func (m *Model) RecalibrateBatchNorm(batches iter.Seq[kernels.Tensor]) (int, error) {
	bns := m.BatchNorms()
	if len(bns) == 0 {
		return 0, nil
	}
	saved := make([]float32, len(bns))
	for i, bn := range bns {
		saved[i] = bn.Momentum
	}
	defer func() {
		for i, bn := range bns {
			bn.Momentum = saved[i]
		}
	}()
	k := 0
	for x := range batches {
		if k == 0 {
			for _, bn := range bns {
				m.Backend.Fill(bn.RunMean.T, 0)
				m.Backend.Fill(bn.RunVar.T, 1)
				*bn.Tracked = 0
			}
		}
		k++
		for _, bn := range bns {
			bn.Momentum = 1 / float32(k)
		}
		m.Encoder.Forward(x, true)
	}
	if k == 0 {
		return 0, nil
	}
	return k, m.Backend.Sync()
}
