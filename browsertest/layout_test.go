package browsertest

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// viewport is a window size the page must read well at.
type viewport struct {
	name string
	w, h int64
}

// viewports are a phone's window, a laptop's and a wide screen's.
var viewports = []viewport{{"phone", 390, 844}, {"laptop", 1366, 900}, {"wide", 1920, 1080}}

// layoutDemos are the demos with small settings that finish in a short
// while on the CPU; their query leaves out autostart, so that the test
// sees the page before the run.
var layoutDemos = []struct{ demo, query string }{
	{"classical", "?demo=classical&backend=cpu&epochs=30"},
	{"deep", "?demo=deep&backend=cpu&compare=1&epochs=3&train=2000&test=1000"},
	{"images", "?demo=images&backend=cpu&limit-train=128&limit-test=128&epochs=1"},
	{"sweep", "?demo=sweep&backend=cpu&epochs=3&train=2000&test=1000&lambdas=0.01,1"},
}

// setViewport sizes the tab's window (CSS px, device scale 1).
func (b *browser) setViewport(v viewport) {
	b.t.Helper()
	if err := chromedp.Do(b.ctx, chromedp.EmulateViewport(v.w, v.h)); err != nil {
		b.t.Fatalf("viewport %dx%d: %v", v.w, v.h, err)
	}
}

// setDark has the tab prefer a dark colour scheme (or not).
func (b *browser) setDark(dark bool) {
	b.t.Helper()
	scheme := "light"
	if dark {
		scheme = "dark"
	}
	set := func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
		_, err := cdp.Call(ctx, tg, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
			Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}}})
		return chromedp.Void{}, err
	}
	if err := chromedp.Do(b.ctx, set); err != nil {
		b.t.Fatalf("prefers-color-scheme %s: %v", scheme, err)
	}
}

// layout is what checkLayout measures of the page.
type layout struct {
	ScrollWidth, Width, Height float64
	// Texts is the number of SVG texts drawn; Small lists those drawn
	// under 11 px (at most ten), Min the smallest size drawn.
	Texts int
	Small []string
	Min   float64
	// Train is the Train button's box in the window: top and bottom.
	TrainTop, TrainBottom float64
	// Unlabelled counts the figures without role="img" and a label.
	Unlabelled int
	// Cut lists the figure titles (at most ten) that begin in view in
	// their card but end beyond its edge.
	Cut []string
}

// layoutJS measures the page: its width against the window's, the size
// at which every SVG text is drawn (its font size times the scale of its
// screen transformation), where the Train button is, the figures without
// a text alternative and the figure titles that their card cuts.
const layoutJS = `(() => {
  const r = { scrollWidth: document.documentElement.scrollWidth, width: window.innerWidth, height: window.innerHeight,
    texts: 0, small: [], min: 1e9, unlabelled: 0, cut: [] };
  for (const t of document.querySelectorAll('svg text')) {
    if (!t.textContent.trim() || !t.getClientRects().length) continue;
    const m = t.getScreenCTM();
    if (!m) continue;
    const px = parseFloat(getComputedStyle(t).fontSize) * Math.sqrt(Math.abs(m.a * m.d - m.b * m.c));
    r.texts++;
    r.min = Math.min(r.min, px);
    if (px < 10.95 && r.small.length < 10) r.small.push(t.closest('figure') ? t.closest('figure').dataset.name + ': "' + t.textContent + '" at ' + px.toFixed(1) + ' px' : t.textContent);
  }
  for (const t of document.querySelectorAll('figure.card .plot svg text.title')) {
    if (!t.getClientRects().length) continue;
    const b = t.getBoundingClientRect(), box = t.closest('.plot').getBoundingClientRect();
    if (b.left < box.right && (b.right > box.right + 0.5 || b.left < box.left - 0.5) && r.cut.length < 10) {
      r.cut.push(t.closest('figure').dataset.name + ': "' + t.textContent + '" at ' + b.left.toFixed(0) + '-' + b.right.toFixed(0) + ' px in ' + box.left.toFixed(0) + '-' + box.right.toFixed(0));
    }
  }
  for (const s of document.querySelectorAll('figure.card .plot > svg')) {
    if (s.getAttribute('role') !== 'img' || !s.getAttribute('aria-label')) r.unlabelled++;
  }
  const b = document.getElementById('train').getBoundingClientRect();
  r.trainTop = b.top; r.trainBottom = b.bottom;
  return r;
})()`

// checkLayout checks the page as it is now (when names the moment): it
// is no wider than the window, its figures' texts are drawn at 11 px or
// more and have a label, their titles are not cut, and the Train button
// is in the window.
func (b *browser) checkLayout(when string) layout {
	b.t.Helper()
	l := eval[layout](b, layoutJS)
	b.t.Logf("%s: page %v px wide in a window of %v; %d SVG texts, the smallest drawn at %.1f px; Train at %.0f-%.0f px",
		when, l.ScrollWidth, l.Width, l.Texts, l.Min, l.TrainTop, l.TrainBottom)
	if l.ScrollWidth > l.Width {
		b.t.Errorf("%s: the page is %v px wide in a window of %v: it scrolls sideways (widest: %s)", when, l.ScrollWidth, l.Width, b.widest())
	}
	if len(l.Small) > 0 {
		b.t.Errorf("%s: SVG texts drawn under 11 px: %s", when, strings.Join(l.Small, "; "))
	}
	if l.Unlabelled > 0 {
		b.t.Errorf("%s: %d figures without role=img and a label", when, l.Unlabelled)
	}
	if len(l.Cut) > 0 {
		b.t.Errorf("%s: figure titles cut by their card: %s", when, strings.Join(l.Cut, "; "))
	}
	if l.TrainTop < 0 || l.TrainBottom > l.Height {
		b.t.Errorf("%s: the Train button is at %.0f-%.0f px, outside the window's %v px", when, l.TrainTop, l.TrainBottom, l.Height)
	}
	return l
}

// overviewRowsJS counts the cards of the figures side by side (#overview)
// and the rows they take.
const overviewRowsJS = `(() => {
  const tops = new Set();
  let n = 0;
  for (const c of document.querySelectorAll('#overview figure.card')) {
    if (!c.getClientRects().length) continue;
    n++;
    tops.add(Math.round(c.getBoundingClientRect().top));
  }
  return [n, tops.size];
})()`

// checkColumns checks the figures of runs side by side in window v: two
// or more share a row from a laptop's window up, and each has a row of
// its own in a phone's.
func (b *browser) checkColumns(v viewport) {
	b.t.Helper()
	got := eval[[]int](b, overviewRowsJS)
	n, rows := got[0], got[1]
	b.t.Logf("at %s: %d figures side by side in %d rows", v.name, n, rows)
	switch {
	case n < 2:
		b.t.Errorf("at %s: %d figures side by side, want several", v.name, n)
	case v.w >= 1366 && rows >= n:
		b.t.Errorf("at %s: the %d figures side by side take %d rows: no two share a row", v.name, n, rows)
	case v.w < 600 && rows != n:
		b.t.Errorf("at %s: the %d figures side by side take %d rows, want one each", v.name, n, rows)
	}
}

// widest names the element that reaches farthest right beyond the
// window, to say what widens the page.
func (b *browser) widest() string {
	return eval[string](b, `(() => {
  let best = null, right = window.innerWidth;
  for (const e of document.querySelectorAll('body *')) {
    const r = e.getBoundingClientRect();
    if (r.right > right + 0.5) { right = r.right; best = e; }
  }
  return best ? best.tagName.toLowerCase() + (best.id ? '#' + best.id : '') + '.' + best.className + ' to ' + right.toFixed(0) + ' px' : 'none';
})()`)
}

// TestLayout opens each demo in each of the viewports, before
// and after a finished run: the page never scrolls sideways, every figure
// text is drawn at 11 px or more, every figure has a text alternative and
// a title that its card does not cut, Train stays in the window, and the
// deep demo's figures of runs side by side share rows from a laptop's
// window up and take one each on a phone. It saves screenshots of the window before
// the run (layout-<demo>-<window>-before.png) and of its results after,
// light and dark (layout-<demo>-<window>[-dark].png).
func TestLayout(t *testing.T) {
	for _, v := range viewports {
		t.Run(v.name, func(t *testing.T) {
			b := newBrowser(t, options{noWebGPU: true})
			b.setViewport(v)
			for _, d := range layoutDemos {
				b.open(d.query)
				b.waitFor(`document.body.dataset.ready === '1' && !document.getElementById('train').disabled`, 2*time.Minute)
				b.checkLayout(fmt.Sprintf("%s at %s, before a run", d.demo, v.name))
				b.viewShot(fmt.Sprintf("layout-%s-%s-before.png", d.demo, v.name))
				b.click("#train")
				b.waitFor(`document.body.dataset.state !== 'idle'`, time.Minute)
				b.waitFinished("done", 5*time.Minute)
				b.checkLayout(fmt.Sprintf("%s at %s, after a run", d.demo, v.name))
				if d.demo == "deep" {
					b.checkColumns(v)
				}
				eval[bool](b, `(document.getElementById('results').scrollIntoView(), true)`)
				b.viewShot(fmt.Sprintf("layout-%s-%s.png", d.demo, v.name))
				b.setDark(true)
				b.viewShot(fmt.Sprintf("layout-%s-%s-dark.png", d.demo, v.name))
				b.setDark(false)
			}
			b.checkClean()
		})
	}
}

// TestFirstScreen opens the page with no query in a phone's window: it
// trains the deep demo's three losses side by side on the CPU at once,
// says how to go further, and a figure is drawn within 15 s, with Train
// and Stop in the window.
func TestFirstScreen(t *testing.T) {
	b := newBrowser(t, options{})
	b.setViewport(viewports[0])
	start := time.Now()
	b.open("")
	b.waitFor(`document.querySelector('#overview figure.card:not([hidden]) svg, #figures figure.card:not([hidden]) svg') !== null`, 15*time.Second)
	t.Logf("a figure after %v: %s", time.Since(start).Round(100*time.Millisecond), b.text("#progress-text"))
	if got := b.state(); got != "training" && got != "done" {
		t.Errorf("state %q, want training", got)
	}
	if got := eval[string](b, `document.getElementById('backend').dataset.backend`); got != "cpu" {
		t.Errorf("backend %q, want cpu", got)
	}
	if eval[bool](b, `document.getElementById('first-note').hidden`) {
		t.Error("the first screen does not say how to go further (#first-note)")
	}
	if n := eval[int](b, `document.querySelectorAll('#summary > table tbody tr').length`); n != 3 {
		t.Errorf("%d runs in the summary, want the three losses", n)
	}
	if stop := eval[[]float64](b, `(r => [r.top, r.bottom])(document.getElementById('stop').getBoundingClientRect())`); stop[0] < 0 || stop[1] > 844 {
		t.Errorf("Stop at %v px, outside the window", stop)
	}
	b.viewShot("first-screen-phone.png")
	b.click("#stop")
	b.waitFinished("idle", time.Minute)
	b.checkClean()
}
