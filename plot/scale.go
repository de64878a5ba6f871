package plot

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// finite reports whether v is neither NaN nor infinite.
func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// extent accumulates the range of the usable values of one axis; on a log
// axis non-positive values are ignored.
type extent struct {
	lo, hi float64
	n      int
	log    bool
}

func (e *extent) add(v float64) {
	if !finite(v) || (e.log && v <= 0) {
		return
	}
	if e.n == 0 || v < e.lo {
		e.lo = v
	}
	if e.n == 0 || v > e.hi {
		e.hi = v
	}
	e.n++
}

func (e *extent) merge(o extent) {
	if o.n > 0 {
		e.add(o.lo)
		e.add(o.hi)
	}
}

// padded returns the range widened by frac of its span on both sides (in
// log space for log axes), with sensible ranges for empty or single-valued
// data.
func (e extent) padded(frac float64) (lo, hi float64) {
	if e.log {
		if e.n == 0 {
			return 0.1, 10
		}
		a, b := math.Log10(e.lo), math.Log10(e.hi)
		if b-a < 1e-9 {
			return e.lo / 2, e.hi * 2
		}
		d := (b - a) * frac
		return math.Pow(10, a-d), math.Pow(10, b+d)
	}
	if e.n == 0 {
		return 0, 1
	}
	lo, hi = e.lo, e.hi
	span := hi - lo
	if span <= 1e-12*math.Max(math.Abs(lo), math.Abs(hi)) || span == 0 {
		d := math.Abs(lo) * 0.1
		if d == 0 {
			d = 0.5
		}
		return lo - d, hi + d
	}
	return lo - span*frac, hi + span*frac
}

// scale maps data values of one axis to pixels.
type scale struct {
	lo, hi float64 // data range
	log    bool
	p0, p1 float64 // pixels of lo and hi
}

// ok reports whether v can be placed on the axis.
func (s scale) ok(v float64) bool { return finite(v) && (!s.log || v > 0) }

// pos returns the pixel coordinate of v.
func (s scale) pos(v float64) float64 {
	a, b, x := s.lo, s.hi, v
	if s.log {
		a, b, x = math.Log10(a), math.Log10(b), math.Log10(x)
	}
	if b == a {
		return (s.p0 + s.p1) / 2
	}
	return s.p0 + (x-a)/(b-a)*(s.p1-s.p0)
}

// tick is one axis tick; minor ticks have no label.
type tick struct {
	v     float64
	label string
}

// niceStep returns a step of the form {1,2,5}×10^k near span/n.
func niceStep(span float64, n int) float64 {
	if n < 1 {
		n = 1
	}
	raw := span / float64(n)
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	f := raw / p
	switch {
	case f < 1.5:
		return p
	case f < 3.5:
		return 2 * p
	case f < 7.5:
		return 5 * p
	}
	return 10 * p
}

// linearTicks returns about target labelled ticks at round numbers in
// [lo, hi]; with integer, at whole numbers only.
func linearTicks(lo, hi float64, target int, integer bool) []tick {
	if !(hi > lo) || !finite(lo) || !finite(hi) {
		return nil
	}
	step := niceStep(hi-lo, target)
	if integer {
		step = math.Max(step, 1)
	}
	first := math.Ceil(lo/step - 1e-9)
	var ticks []tick
	for i := first; i*step <= hi+step*1e-9 && len(ticks) < 100; i++ {
		v := i * step
		ticks = append(ticks, tick{v, formatTick(v, step, math.Max(math.Abs(lo), math.Abs(hi)))})
	}
	return ticks
}

// formatTick formats v, a multiple of step, with just enough digits.
func formatTick(v, step, maxAbs float64) string {
	if math.Abs(v) < step*1e-6 {
		v = 0 // no "-0.0"
	}
	if maxAbs >= 1e6 || step < 1e-4 {
		if v == 0 {
			return "0"
		}
		sig := int(math.Floor(math.Log10(math.Abs(v)))-math.Floor(math.Log10(step)+1e-9)) + 1
		if sig < 1 {
			sig = 1
		}
		return compactExp(strconv.FormatFloat(v, 'g', sig, 64))
	}
	dec := int(-math.Floor(math.Log10(step) + 1e-9))
	if dec < 0 {
		dec = 0
	}
	return strconv.FormatFloat(v, 'f', dec, 64)
}

// pow10 returns m×10^k exactly as parsed from its decimal form, so that
// labels such as 0.001 print without rounding noise.
func pow10(m, k int) float64 {
	v, _ := strconv.ParseFloat(fmt.Sprintf("%de%d", m, k), 64)
	return v
}

// logLabel formats m×10^k for a log axis.
func logLabel(m, k int) string {
	if k < -4 || k > 5 {
		return fmt.Sprintf("%de%d", m, k)
	}
	return strconv.FormatFloat(pow10(m, k), 'f', -1, 64)
}

// logTicks returns ticks for a log axis over [lo, hi]: labelled powers of
// ten (every few decades for wide ranges) with unlabelled minor ticks, or
// labelled 1-2-5 ticks for ranges of up to about two decades, or round
// linear ticks when the range is under one decade.
func logTicks(lo, hi float64, target int) []tick {
	if !(hi > lo) || !(lo > 0) || !finite(hi) {
		return nil
	}
	a, b := math.Log10(lo), math.Log10(hi)
	k0, k1 := int(math.Floor(a)), int(math.Ceil(b))
	in := func(v float64) bool { return v >= lo*(1-1e-9) && v <= hi*(1+1e-9) }
	var ticks []tick
	add := func(m, k int, labelled bool) {
		v := pow10(m, k)
		if !in(v) {
			return
		}
		t := tick{v: v}
		if labelled {
			t.label = logLabel(m, k)
		}
		ticks = append(ticks, t)
	}
	decades := b - a
	switch {
	case decades < 1:
		var n int
		for k := k0; k <= k1; k++ {
			for _, m := range []int{1, 2, 5} {
				if in(pow10(m, k)) {
					n++
				}
			}
		}
		if n < 3 {
			return linearTicks(lo, hi, target, false)
		}
		fallthrough
	case decades <= 2.5:
		for k := k0; k <= k1; k++ {
			for m := 1; m <= 9; m++ {
				add(m, k, m == 1 || m == 2 || m == 5)
			}
		}
	default:
		stride := int(math.Ceil(decades / float64(max(target, 2))))
		for k := k0; k <= k1; k++ {
			major := ((k%stride)+stride)%stride == 0
			add(1, k, major)
			if stride == 1 {
				for m := 2; m <= 9; m++ {
					add(m, k, false)
				}
			}
		}
	}
	return ticks
}

// axisTicks returns the ticks for s with about target labels; with
// integer, a linear axis has them at whole numbers only.
func axisTicks(s scale, target int, integer bool) []tick {
	if s.log {
		return logTicks(s.lo, s.hi, target)
	}
	return linearTicks(s.lo, s.hi, target, integer)
}

// compactExp shortens exponents such as "1.2e+07" to "1.2e7".
func compactExp(s string) string {
	s = strings.Replace(s, "e+", "e", 1)
	s = strings.Replace(s, "e0", "e", 1)
	return strings.Replace(s, "e-0", "e-", 1)
}
