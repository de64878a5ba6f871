// The LDA head: discriminants delta[N,C] of z[N,D] and their gradients.
//
// The covariance is used in whitened form, as in kernels/ref/head.go: A with
// A^T A = Sigma^-1 (A = L^-1, lower triangular, for the full head; diagonal
// exp(-log_var/2) otherwise), w = A z, m_c = A mu_c and
//   delta[n,c] = log pi_c - 1/2 log det Sigma - 1/2 |w_n - m_c|^2.
// kind (a uniform) selects the parameterisation: 0 spherical (cov = [log_var]),
// 1 diagonal (cov = log_var[D]), 2 full (cov = raw_tril[D,D],
// L = strict_lower(raw) + diag(softplus(diag raw) + MinScale)).
// Only the nonzero part of A is ever read (the diagonal, or the lower
// triangle), so A's other entries need not be written.
//
// Every intermediate lives in one scratch array s (read_write, binding 1)
// owned by the backend, at the element offsets p.o_* (see head.go):
//   o_a  A[D,D]          o_t  T = dA A^T [D,D] (full head, lower triangle)
//   o_da dA[D,D]         o_lp log pi[C]     o_cs colSum_c = sum_n ddelta[n,c]
//   o_ld log det Sigma   o_m  m[C,D]        o_dm dm[C,D]
//   o_w  w[N,D]          o_dw dw[N,D]
//
// Bindings (group 0): 0 the uniform params, then the outputs (read_write),
// then the inputs (read). Entry points, their bindings and dispatch sizes
// (count = p.count invocations in workgroups of 256 spread over x and y, see
// index; prepare has one workgroup per column):
//   prepare:  1 s, 6 prior, 7 cov     A, log det Sigma, log pi (max(D,1)
//                                     workgroups, one per column of A; for
//                                     the full head a workgroup solves
//                                     L x = e_j by forward substitution)
//   apply_a:  1 s, 4 x                s[o_out + r*D + i] = (A x_r)_i
//                                     (count = rows*D; x is z or mu)
//   apply_at: 2 out, 1 s              out[r*D + j] = (A^T s[o_in + r*D ..])_j
//                                     (count = rows*D; out is dz or dmu)
//   delta:    2 delta, 1 s            delta[n,c]            (count = N*C)
//   bw_dw:    1 s, 4 ddelta           dw[n,i] = -sum_c g[n,c] (w[n,i]-m[c,i])
//                                     (count = N*D)
//   bw_dm:    1 s, 4 ddelta           dm[c,i] = sum_n g[n,c] (w[n,i]-m[c,i]),
//                                     colSum (count = C*D)
//   bw_da:    1 s, 4 z, 5 mu          dA = dw^T z + dm^T mu, lower triangle for
//                                     the full head (count = D*D), else the
//                                     diagonal (count = D)
//   bw_t:     1 s                     T = dA A^T, lower triangle (count = D*D;
//                                     full head only)
//   finish:   2 dprior, 3 dcov, 1 s, 7 cov
//                                     dprior = colSum - pi * total and the
//                                     covariance gradient, zero above the
//                                     diagonal (count = max(C, len(cov)))

const SPHERICAL = 0u;
const DIAGONAL = 1u;
const FULL = 2u;
const MIN_SCALE = 1e-4; // kernels.MinScale

struct Params {
  n: u32,
  c: u32,
  d: u32,
  kind: u32,
  count: u32,   // invocations that do work
  row: u32,     // workgroups per row of the dispatch grid (x extent)
  rows: u32,    // rows of apply_a / apply_at
  o_in: u32,    // scratch offset of apply_at's input rows
  o_out: u32,   // scratch offset of apply_a's output rows
  o_a: u32,
  o_t: u32,
  o_da: u32,
  o_lp: u32,
  o_cs: u32,
  o_ld: u32,
  o_m: u32,
  o_dm: u32,
  o_w: u32,
  o_dw: u32,
  cov_len: u32,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read_write> s: array<f32>;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;
@group(0) @binding(3) var<storage, read_write> out2: array<f32>;
@group(0) @binding(4) var<storage, read> x: array<f32>;
@group(0) @binding(5) var<storage, read> x2: array<f32>;
@group(0) @binding(6) var<storage, read> prior: array<f32>;
@group(0) @binding(7) var<storage, read> cov: array<f32>;

fn index(wg: vec3<u32>, lid: u32) -> u32 {
  return (wg.y * p.row + wg.x) * 256u + lid;
}

// log1p returns log(1+u) accurately for small u (Goldberg's trick).
fn log1p(u: f32) -> f32 {
  let v = 1.0 + u;
  if (v == 1.0) {
    return u;
  }
  return log(v) * u / (v - 1.0);
}

fn softplus(v: f32) -> f32 {
  if (v > 20.0) {
    return v;
  }
  return log1p(exp(v));
}

fn sigmoid(v: f32) -> f32 {
  return 1.0 / (1.0 + exp(-v));
}

// diag_l returns L[i,i] of the full head.
fn diag_l(i: u32) -> f32 {
  return softplus(cov[i * p.d + i]) + MIN_SCALE;
}

// a returns A[i,j] (only called where A may be nonzero).
fn a(i: u32, j: u32) -> f32 {
  return s[p.o_a + i * p.d + j];
}

var<workgroup> xk: f32;

@compute @workgroup_size(256)
fn prepare(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let d = p.d;
  let j = wg.y * p.row + wg.x; // the column of A of this workgroup
  if (j == 0u && lid == 0u) {
    log_det_and_prior();
  }
  if (j >= d) { return; }
  if (p.kind == DIAGONAL) {
    if (lid == 0u) {
      s[p.o_a + j * d + j] = exp(-cov[j] / 2.0);
    }
    return;
  }
  if (p.kind == SPHERICAL) {
    if (lid == 0u) {
      s[p.o_a + j * d + j] = exp(-cov[0] / 2.0);
    }
    return;
  }
  // Column j of L^-1: solve L x = e_j by column-oriented forward
  // substitution. A[i,j] holds the residual of row i until x_i is final;
  // invocation lid owns the rows j + lid + 256t.
  for (var i = j + lid; i < d; i += 256u) {
    s[p.o_a + i * d + j] = select(0.0, 1.0, i == j);
  }
  for (var k = j; k < d; k++) {
    if ((k - j) % 256u == lid) {
      let xv = s[p.o_a + k * d + j] / diag_l(k);
      s[p.o_a + k * d + j] = xv;
      xk = xv;
    }
    workgroupBarrier();
    let xv = xk;
    for (var i = j + lid; i < d; i += 256u) {
      if (i > k) {
        s[p.o_a + i * d + j] -= cov[i * d + k] * xv;
      }
    }
    workgroupBarrier();
  }
}

// log_det_and_prior writes log det Sigma and log pi = log_softmax(prior).
fn log_det_and_prior() {
  let d = p.d;
  var ld = 0.0;
  if (p.kind == FULL) {
    for (var i = 0u; i < d; i++) {
      ld += 2.0 * log(diag_l(i));
    }
  } else if (p.kind == DIAGONAL) {
    for (var i = 0u; i < d; i++) {
      ld += cov[i];
    }
  } else {
    ld = f32(d) * cov[0];
  }
  s[p.o_ld] = ld;
  let c = p.c;
  var mx = prior[0];
  for (var k = 1u; k < c; k++) {
    mx = max(mx, prior[k]);
  }
  var sum = 0.0;
  for (var k = 0u; k < c; k++) {
    sum += exp(prior[k] - mx);
  }
  let lse = mx + log(sum);
  for (var k = 0u; k < c; k++) {
    s[p.o_lp + k] = prior[k] - lse;
  }
}

@compute @workgroup_size(256)
fn apply_a(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let idx = index(wg, lid);
  if (idx >= p.count) { return; }
  let d = p.d;
  let r = idx / d;
  let i = idx % d;
  var lo = i;
  if (p.kind == FULL) {
    lo = 0u;
  }
  var acc = 0.0;
  for (var j = lo; j <= i; j++) {
    acc += a(i, j) * x[r * d + j];
  }
  s[p.o_out + idx] = acc;
}

@compute @workgroup_size(256)
fn apply_at(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let idx = index(wg, lid);
  if (idx >= p.count) { return; }
  let d = p.d;
  let r = idx / d;
  let j = idx % d;
  var hi = j + 1u;
  if (p.kind == FULL) {
    hi = d;
  }
  var acc = 0.0;
  for (var i = j; i < hi; i++) {
    acc += s[p.o_in + r * d + i] * a(i, j);
  }
  out[idx] = acc;
}

@compute @workgroup_size(256)
fn delta(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let idx = index(wg, lid);
  if (idx >= p.count) { return; }
  let d = p.d;
  let n = idx / p.c;
  let k = idx % p.c;
  var q = 0.0;
  for (var j = 0u; j < d; j++) {
    let e = s[p.o_w + n * d + j] - s[p.o_m + k * d + j];
    q += e * e;
  }
  out[idx] = s[p.o_lp + k] - s[p.o_ld] / 2.0 - q / 2.0;
}

@compute @workgroup_size(256)
fn bw_dw(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let idx = index(wg, lid);
  if (idx >= p.count) { return; }
  let d = p.d;
  let c = p.c;
  let n = idx / d;
  let i = idx % d;
  let w = s[p.o_w + idx];
  var acc = 0.0;
  for (var k = 0u; k < c; k++) {
    acc += x[n * c + k] * (w - s[p.o_m + k * d + i]);
  }
  s[p.o_dw + idx] = -acc;
}

@compute @workgroup_size(256)
fn bw_dm(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let idx = index(wg, lid);
  if (idx >= p.count) { return; }
  let d = p.d;
  let c = p.c;
  let k = idx / d;
  let i = idx % d;
  let m = s[p.o_m + idx];
  var acc = 0.0;
  var cs = 0.0;
  for (var n = 0u; n < p.n; n++) {
    let g = x[n * c + k];
    acc += g * (s[p.o_w + n * d + i] - m);
    cs += g;
  }
  s[p.o_dm + idx] = acc;
  if (i == 0u) {
    s[p.o_cs + k] = cs;
  }
}

@compute @workgroup_size(256)
fn bw_da(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let idx = index(wg, lid);
  if (idx >= p.count) { return; }
  let d = p.d;
  var i = idx;
  var j = idx;
  if (p.kind == FULL) {
    i = idx / d;
    j = idx % d;
    if (j > i) { return; }
  }
  var acc = 0.0;
  for (var n = 0u; n < p.n; n++) {
    acc += s[p.o_dw + n * d + i] * x[n * d + j];
  }
  for (var k = 0u; k < p.c; k++) {
    acc += s[p.o_dm + k * d + i] * x2[k * d + j];
  }
  s[p.o_da + i * d + j] = acc;
}

@compute @workgroup_size(256)
fn bw_t(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let idx = index(wg, lid);
  if (idx >= p.count) { return; }
  let d = p.d;
  let k = idx / d;
  let j = idx % d;
  if (j > k) { return; }
  // T[k,j] = sum_l dA[k,l] A[j,l], l <= min(k, j) = j (both lower).
  var acc = 0.0;
  for (var l = 0u; l <= j; l++) {
    acc += s[p.o_da + k * d + l] * a(j, l);
  }
  s[p.o_t + k * d + j] = acc;
}

@compute @workgroup_size(256)
fn finish(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let idx = index(wg, lid);
  if (idx >= p.count) { return; }
  let d = p.d;
  var total = 0.0;
  for (var k = 0u; k < p.c; k++) {
    total += s[p.o_cs + k];
  }
  let dlogdet = -total / 2.0;
  if (idx < p.c) {
    // d log_softmax: dprior_k = colSum_k - pi_k * total.
    out[idx] = s[p.o_cs + idx] - exp(s[p.o_lp + idx]) * total;
  }
  if (idx >= p.cov_len) { return; }
  if (p.kind == SPHERICAL) {
    // A = exp(-v/2) I, log det = D v.
    var tr = 0.0;
    for (var i = 0u; i < d; i++) {
      tr += s[p.o_da + i * d + i] * a(i, i);
    }
    out2[0] = -tr / 2.0 + f32(d) * dlogdet;
  } else if (p.kind == DIAGONAL) {
    out2[idx] = -s[p.o_da + idx * d + idx] * a(idx, idx) / 2.0 + dlogdet;
  } else {
    // A = L^-1: dL = -A^T dA A^T = -A^T T; log det = 2 sum log L_ii.
    let i = idx / d;
    let j = idx % d;
    if (j > i) {
      out2[idx] = 0.0;
      return;
    }
    var acc = 0.0; // (A^T T)[i,j] = sum_{k >= i} A[k,i] T[k,j] = -dL[i,j]
    for (var k = i; k < d; k++) {
      acc += a(k, i) * s[p.o_t + k * d + j];
    }
    if (j < i) {
      out2[idx] = -acc;
    } else {
      out2[idx] = (-acc + dlogdet * 2.0 / diag_l(i)) * sigmoid(cov[idx]);
    }
  }
}
