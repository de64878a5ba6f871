// Batch normalisation over x[N,C,HW] (HW the product of the trailing
// dimensions, 1 for [N,C]), with the arithmetic of package ref, and the
// sum per channel of the bias gradient.
//
// Bindings (group 0): 0 the uniform params, then the outputs (read_write,
// bindings 1-9), then the inputs (read, bindings 10-20). Each entry point
// uses only the bindings listed for it.
//
// The per-channel reductions are cut into segs segments of seg_len of the
// channel's m = N*HW values (the last one shorter), one workgroup of 256
// per segment (C*segs workgroups, spread over x and y; row is the x
// extent), so that a GPU has enough workgroups when C is small and m
// large (64 channels of 200,704 values at batch 256 on 28x28). Each writes
// two partial results per segment to parts [C, segs, 2]; a finish entry
// point (one invocation per channel) combines them in segment order.
//   bn_stats:           9 parts, 10 x
//       Per segment: its mean, then its centred sum of squares (a second
//       pass over the segment, as package ref's two passes).
//   bn_stats_finish:    1 mean, 2 inv_std, 3 run_mean, 4 run_var, 20 parts
//       The batch mean from the segments' sums; the sum of squares about
//       it, each segment's plus its count times its mean's distance
//       squared; the biased variance,
//       invStd = 1/sqrt(var + eps), and run = (1-momentum) run + momentum
//       stat with the unbiased variance ss/(m-1) (the biased one when
//       m = 1) for run_var.
//   bn_apply:           5 y, 10 x, 11 gamma, 12 beta, 13 mean, 14 inv_std
//       y = x alpha + shift, alpha = inv_std gamma, shift = beta - mean alpha.
//   bn_eval:            5 y, 10 x, 11 gamma, 12 beta, 15 run_mean, 16 run_var
//       y = x alpha + shift, alpha = gamma / sqrt(run_var + eps),
//       shift = beta - run_mean alpha.
//   bn_backward_reduce: 9 parts, 17 dy, 10 x, 13 mean, 14 inv_std
//       Per segment: the sums of dy and of dy (x - mean) inv_std.
//   bn_backward_finish: 6 dgamma, 7 dbeta, 20 parts
//       dbeta = sum dy, dgamma = sum dy (x - mean) inv_std: the segments'
//       sums added in order.
//   channel_sum:        9 parts, 17 dy
//       Per segment: the sum of dy (one value per segment).
//   channel_sum_finish: 7 db, 20 parts
//       db = sum dy per channel (a bias gradient, as dbeta): the segments'
//       sums added in order.
//   bn_backward_dx:     8 dx, 17 dy, 10 x, 11 gamma, 13 mean, 14 inv_std,
//                       18 dgamma, 19 dbeta
//       dx = gamma inv_std / m (m dy - dbeta - xhat dgamma),
//       xhat = (x - mean) inv_std.
// bn_apply, bn_eval and bn_backward_dx are elementwise: ceil(total/256)
// workgroups of 256, spread over x and y (see index); the finish entry
// points are too, over C.

struct Params {
  n: u32,
  c: u32,
  hw: u32,
  total: u32,   // n * c * hw
  row: u32,     // workgroups per row of the dispatch grid (x extent)
  m: f32,       // n * hw, the number of values per channel
  momentum: f32,
  eps: f32,
  segs: u32,    // segments per channel of the reductions
  seg_len: u32, // values per segment (the last may have fewer)
}

@group(0) @binding(0) var<uniform> p: Params;

@group(0) @binding(1) var<storage, read_write> mean_out: array<f32>;
@group(0) @binding(2) var<storage, read_write> inv_std_out: array<f32>;
@group(0) @binding(3) var<storage, read_write> run_mean_io: array<f32>;
@group(0) @binding(4) var<storage, read_write> run_var_io: array<f32>;
@group(0) @binding(5) var<storage, read_write> y: array<f32>;
@group(0) @binding(6) var<storage, read_write> dgamma_out: array<f32>;
@group(0) @binding(7) var<storage, read_write> dbeta_out: array<f32>;
@group(0) @binding(8) var<storage, read_write> dx: array<f32>;
@group(0) @binding(9) var<storage, read_write> parts_out: array<f32>;

@group(0) @binding(10) var<storage, read> x: array<f32>;
@group(0) @binding(11) var<storage, read> gamma: array<f32>;
@group(0) @binding(12) var<storage, read> beta: array<f32>;
@group(0) @binding(13) var<storage, read> mean: array<f32>;
@group(0) @binding(14) var<storage, read> inv_std: array<f32>;
@group(0) @binding(15) var<storage, read> run_mean: array<f32>;
@group(0) @binding(16) var<storage, read> run_var: array<f32>;
@group(0) @binding(17) var<storage, read> dy: array<f32>;
@group(0) @binding(18) var<storage, read> dgamma: array<f32>;
@group(0) @binding(19) var<storage, read> dbeta: array<f32>;
@group(0) @binding(20) var<storage, read> parts: array<f32>;

const WG: u32 = 256u;

var<workgroup> red: array<f32, 256>;
var<workgroup> red2: array<f32, 256>;

// index is the element of an elementwise dispatch.
fn index(wg: vec3<u32>, lid: u32) -> u32 {
  return (wg.y * p.row + wg.x) * WG + lid;
}

// channel is the channel of element i.
fn channel(i: u32) -> u32 {
  return (i / p.hw) % p.c;
}

// Walk walks the values of one segment of a channel: invocation lid
// visits the flat indices e = start+lid, start+lid+256, ... (e < end) of
// [N, HW], i.e. x[(s*C + ch)*HW + j] with (s, j) = (e / HW, e % HW),
// without a division per step.
struct Walk {
  e: u32,
  s: u32,
  j: u32,
  ds: u32,   // 256 / HW
  dj: u32,   // 256 % HW
}

fn walk_start(e: u32) -> Walk {
  return Walk(e, e / p.hw, e % p.hw, WG / p.hw, WG % p.hw);
}

fn walk_next(w: Walk) -> Walk {
  var r = w;
  r.e += WG;
  r.s += w.ds;
  r.j += w.dj;
  if (r.j >= p.hw) {
    r.j -= p.hw;
    r.s += 1u;
  }
  return r;
}

// Segment is the channel and the range [start, end) of the flat indices
// of workgroup g's segment.
struct Segment {
  ch: u32,
  seg: u32,
  start: u32,
  end: u32,
}

// seg_count is the number of values of segment k of a channel.
fn seg_count(k: u32) -> f32 {
  let start = k * p.seg_len;
  return f32(min(start + p.seg_len, p.n * p.hw) - start);
}

fn segment(g: u32) -> Segment {
  let seg = g % p.segs;
  let start = seg * p.seg_len;
  return Segment(g / p.segs, seg, start, min(start + p.seg_len, p.n * p.hw));
}

fn walk_index(w: Walk, ch: u32) -> u32 {
  return (w.s * p.c + ch) * p.hw + w.j;
}

// reduce returns the sum of v over the workgroup (to every invocation).
fn reduce(lid: u32, v: f32) -> f32 {
  red[lid] = v;
  workgroupBarrier();
  for (var s = WG / 2u; s > 0u; s = s >> 1u) {
    if (lid < s) {
      red[lid] = red[lid] + red[lid + s];
    }
    workgroupBarrier();
  }
  let total = red[0];
  workgroupBarrier(); // every invocation has read red[0] before it is reused
  return total;
}

@compute @workgroup_size(256)
fn bn_stats(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let g = wg.y * p.row + wg.x;
  if (g >= p.c * p.segs) { return; }
  let sg = segment(g);
  var s = 0.0;
  for (var w = walk_start(sg.start + lid); w.e < sg.end; w = walk_next(w)) {
    s += x[walk_index(w, sg.ch)];
  }
  let mu = reduce(lid, s) / f32(sg.end - sg.start);
  var ss = 0.0;
  for (var w = walk_start(sg.start + lid); w.e < sg.end; w = walk_next(w)) {
    let d = x[walk_index(w, sg.ch)] - mu;
    ss += d * d;
  }
  let sum_sq = reduce(lid, ss);
  if (lid == 0u) {
    parts_out[2u * g] = mu;
    parts_out[2u * g + 1u] = sum_sq;
  }
}

@compute @workgroup_size(256)
fn bn_stats_finish(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let ch = index(wg, lid);
  if (ch >= p.c) { return; }
  // The mean from the segments' sums, then the sum of squares about it:
  // each segment's own plus its count times its mean's distance squared.
  var total = 0.0;
  for (var k = 0u; k < p.segs; k++) {
    total += parts[2u * (ch * p.segs + k)] * seg_count(k);
  }
  let mu = total / p.m;
  var sum_sq = 0.0;
  for (var k = 0u; k < p.segs; k++) {
    let d = parts[2u * (ch * p.segs + k)] - mu;
    sum_sq += parts[2u * (ch * p.segs + k) + 1u] + seg_count(k) * d * d;
  }
  let variance = sum_sq / p.m;
  mean_out[ch] = mu;
  inv_std_out[ch] = 1.0 / sqrt(variance + p.eps);
  var unbiased = variance;
  if (p.m > 1.0) {
    unbiased = sum_sq / (p.m - 1.0);
  }
  run_mean_io[ch] = (1.0 - p.momentum) * run_mean_io[ch] + p.momentum * mu;
  run_var_io[ch] = (1.0 - p.momentum) * run_var_io[ch] + p.momentum * unbiased;
}

@compute @workgroup_size(256)
fn bn_apply(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let i = index(wg, lid);
  if (i >= p.total) { return; }
  let ch = channel(i);
  let alpha = inv_std[ch] * gamma[ch];
  let shift = beta[ch] - mean[ch] * alpha;
  y[i] = x[i] * alpha + shift;
}

@compute @workgroup_size(256)
fn bn_eval(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let i = index(wg, lid);
  if (i >= p.total) { return; }
  let ch = channel(i);
  let alpha = gamma[ch] / sqrt(run_var[ch] + p.eps);
  let shift = beta[ch] - run_mean[ch] * alpha;
  y[i] = x[i] * alpha + shift;
}

@compute @workgroup_size(256)
fn bn_backward_reduce(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let g = wg.y * p.row + wg.x;
  if (g >= p.c * p.segs) { return; }
  let sg = segment(g);
  let mu = mean[sg.ch];
  let is = inv_std[sg.ch];
  var db = 0.0;
  var dg = 0.0;
  for (var w = walk_start(sg.start + lid); w.e < sg.end; w = walk_next(w)) {
    let k = walk_index(w, sg.ch);
    let gr = dy[k];
    db += gr;
    dg += gr * (x[k] - mu) * is;
  }
  red[lid] = db;
  red2[lid] = dg;
  workgroupBarrier();
  for (var s = WG / 2u; s > 0u; s = s >> 1u) {
    if (lid < s) {
      red[lid] = red[lid] + red[lid + s];
      red2[lid] = red2[lid] + red2[lid + s];
    }
    workgroupBarrier();
  }
  if (lid == 0u) {
    parts_out[2u * g] = red[0];
    parts_out[2u * g + 1u] = red2[0];
  }
}

@compute @workgroup_size(256)
fn bn_backward_finish(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let ch = index(wg, lid);
  if (ch >= p.c) { return; }
  var db = 0.0;
  var dg = 0.0;
  for (var k = 0u; k < p.segs; k++) {
    db += parts[2u * (ch * p.segs + k)];
    dg += parts[2u * (ch * p.segs + k) + 1u];
  }
  dbeta_out[ch] = db;
  dgamma_out[ch] = dg;
}

@compute @workgroup_size(256)
fn bn_backward_dx(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let i = index(wg, lid);
  if (i >= p.total) { return; }
  let ch = channel(i);
  let is = inv_std[ch];
  let k = gamma[ch] * is / p.m;
  let xhat = (x[i] - mean[ch]) * is;
  dx[i] = k * (p.m * dy[i] - dbeta[ch] - xhat * dgamma[ch]);
}

@compute @workgroup_size(256)
fn channel_sum(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let g = wg.y * p.row + wg.x;
  if (g >= p.c * p.segs) { return; }
  let sg = segment(g);
  var s = 0.0;
  for (var w = walk_start(sg.start + lid); w.e < sg.end; w = walk_next(w)) {
    s += dy[walk_index(w, sg.ch)];
  }
  let total = reduce(lid, s);
  if (lid == 0u) {
    parts_out[g] = total;
  }
}

@compute @workgroup_size(256)
fn channel_sum_finish(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let ch = index(wg, lid);
  if (ch >= p.c) { return; }
  var s = 0.0;
  for (var k = 0u; k < p.segs; k++) {
    s += parts[ch * p.segs + k];
  }
  dbeta_out[ch] = s;
}
