// The training losses over per-class scores[N,C] (the LDA discriminants or
// logits) for labels y[N], as kernels/ref.Loss computes them:
//   kind 0 NLL:  l = -s[y]
//   kind 1 CE:   l = logsumexp(s) - s[y]
//   kind 2 DNLL: l = -s[y] + lambda * sum_c exp(s[c])
// A row is correct when its first argmax is the label. Labels must lie in
// [0, C) (others are clamped into it).
//
// Bindings (group 0): 0 the uniform params, then the outputs (read_write),
// then the inputs (read).
//   loss:      2 stats, 3 scores, 4 y
//   loss_grad: 1 dscores, 2 stats, 3 scores, 4 y
//              also dscores[n,c] = d(mean loss)/d scores[n,c]
// Both add to stats (kernels.StatLoss etc.): [0] += sum of the row losses,
// [1] += correct rows, [2] += N, and [3] = step when the batch's loss sum is
// not finite and [3] < 0.
// Dispatch: one workgroup of 256; each invocation takes rows lid, lid+256,
// ..., then the workgroup reduces and invocation 0 updates stats.

const NLL = 0u;
const CE = 1u;
const DNLL = 2u;

struct Params {
  n: u32,
  c: u32,
  kind: u32,
  lambda: f32,
  step: f32,  // the step number, recorded in stats[3]
  nf: f32,    // N as a float: the gradient is of the mean loss
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read_write> dscores: array<f32>;
@group(0) @binding(2) var<storage, read_write> stats: array<f32>;
@group(0) @binding(3) var<storage, read> scores: array<f32>;
@group(0) @binding(4) var<storage, read> y: array<i32>;

var<workgroup> part_loss: array<f32, 256>;
var<workgroup> part_ok: array<u32, 256>;

struct Row {
  loss: f32,
  ok: u32,
  label: u32,
  lse: f32,   // log sum exp of the row (CE only)
}

fn row_loss(r: u32) -> Row {
  let c = p.c;
  let base = r * c;
  var out: Row;
  out.label = u32(clamp(y[r], 0, i32(c) - 1));
  var best = 0u;
  var bestv = scores[base];
  for (var k = 1u; k < c; k++) {
    let v = scores[base + k];
    if (v > bestv) {
      best = k;
      bestv = v;
    }
  }
  out.ok = select(0u, 1u, best == out.label);
  let sy = scores[base + out.label];
  if (p.kind == CE) {
    var mx = scores[base];
    for (var k = 1u; k < c; k++) {
      mx = max(mx, scores[base + k]);
    }
    var sum = 0.0;
    for (var k = 0u; k < c; k++) {
      sum += exp(scores[base + k] - mx);
    }
    out.lse = mx + log(sum);
    out.loss = -(sy - out.lse);
  } else if (p.kind == DNLL) {
    var sum = 0.0;
    for (var k = 0u; k < c; k++) {
      sum += exp(scores[base + k]);
    }
    out.loss = -sy + p.lambda * sum;
  } else {
    out.loss = -sy;
  }
  return out;
}

// finite reports whether v is neither infinite nor NaN (by its exponent
// bits, which no fast-math rewriting can fold away).
fn finite(v: f32) -> bool {
  return (bitcast<u32>(v) & 0x7f800000u) != 0x7f800000u;
}

// add_stats reduces the invocations' sums and adds them to stats.
fn add_stats(lid: u32, loss: f32, ok: u32) {
  part_loss[lid] = loss;
  part_ok[lid] = ok;
  workgroupBarrier();
  for (var h = 128u; h > 0u; h >>= 1u) {
    if (lid < h) {
      part_loss[lid] += part_loss[lid + h];
      part_ok[lid] += part_ok[lid + h];
    }
    workgroupBarrier();
  }
  if (lid == 0u) {
    let total = part_loss[0];
    stats[0] += total;
    stats[1] += f32(part_ok[0]);
    stats[2] += f32(p.n);
    if (!finite(total) && stats[3] < 0.0) {
      stats[3] = p.step;
    }
  }
}

@compute @workgroup_size(256)
fn loss(@builtin(local_invocation_index) lid: u32) {
  var sum = 0.0;
  var ok = 0u;
  for (var r = lid; r < p.n; r += 256u) {
    let row = row_loss(r);
    sum += row.loss;
    ok += row.ok;
  }
  add_stats(lid, sum, ok);
}

@compute @workgroup_size(256)
fn loss_grad(@builtin(local_invocation_index) lid: u32) {
  var sum = 0.0;
  var ok = 0u;
  let c = p.c;
  for (var r = lid; r < p.n; r += 256u) {
    let row = row_loss(r);
    sum += row.loss;
    ok += row.ok;
    let base = r * c;
    for (var k = 0u; k < c; k++) {
      var g = 0.0;
      if (p.kind == CE) {
        g = exp(scores[base + k] - row.lse);
      } else if (p.kind == DNLL) {
        g = p.lambda * exp(scores[base + k]);
      }
      if (k == row.label) {
        g -= 1.0;
      }
      dscores[base + k] = g / p.nf;
    }
  }
  add_stats(lid, sum, ok);
}
