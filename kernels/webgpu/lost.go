package webgpu

import (
	"errors"
	"fmt"
	"os"
	"strconv"

	"github.com/cogentcore/webgpu/wgpu"

	"github.com/deeplda/deeplda/kernels"
)

// ErrDeviceLost is kernels.ErrDeviceLost, the error (wrapped) of the
// operations after the backend's device was lost: the browser destroyed
// it, a driver reset, or wgpu-native reported the device lost. The data on
// the GPU is gone with it.
var ErrDeviceLost = kernels.ErrDeviceLost

// LoseDeviceEnv names the environment variable with which tests make a
// backend opened by New act as if its device were lost after that many
// training steps (Adam updates): every Sync and Read after it fails with
// ErrDeviceLost, as on a real loss. Natively nothing else can lose a
// device on purpose: v0.23 has no Device.Destroy, and its device-lost
// callback cannot be registered (see requestDevice).
const LoseDeviceEnv = "DEEPLDA_TEST_LOSE_DEVICE_AFTER"

// deviceLoss is the loss LoseDeviceEnv asks for.
type deviceLoss struct {
	after int // steps before the loss; 0: none
	steps int // steps recorded so far
}

// fromEnv reads LoseDeviceEnv.
func (l *deviceLoss) fromEnv() error {
	v := os.Getenv(LoseDeviceEnv)
	if v == "" {
		return nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		return fmt.Errorf("webgpu: %s=%q: want a positive number of steps", LoseDeviceEnv, v)
	}
	l.after = n
	return nil
}

// stepDone counts a recorded training step (Adam calls it) and loses the
// device after the step LoseDeviceEnv names.
func (b *Backend) stepDone() {
	if b.loss.after == 0 {
		return
	}
	b.loss.steps++
	if b.loss.steps == b.loss.after {
		b.mu.Lock()
		b.lost = fmt.Errorf("%w (%s=%d: lost on purpose after step %d)", ErrDeviceLost, LoseDeviceEnv, b.loss.after, b.loss.steps)
		b.mu.Unlock()
	}
}

// deviceError types an error of the device: ErrDeviceLost when wgpu
// reports the device lost, kernels.ErrDeviceFailed otherwise.
func deviceError(err error) error {
	var we *wgpu.Error
	switch {
	case err == nil || errors.Is(err, ErrDeviceLost) || errors.Is(err, kernels.ErrDeviceFailed):
		return err
	case errors.As(err, &we) && we.Type == wgpu.ErrorTypeDeviceLost:
		return fmt.Errorf("%w: %w", ErrDeviceLost, err)
	}
	return fmt.Errorf("%w: %w", kernels.ErrDeviceFailed, err)
}
