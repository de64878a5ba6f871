// Dense matrix products (the bias gradient, a sum per channel, is
// batchnorm.wgsl's channel_sum).
//
// Entry points and bindings (group 0): 0 the uniform params, then the output
// (read_write), then the inputs (read).
//   matmul:       1 c, 2 a, 3 b, 4 bias   c[M,N] = op(a) op(b) (+ bias[N])
//   matmul_naive: the same bindings and params: one output per invocation,
//                 kept only as the baseline of the matmul benchmark.
// op(a) is a[M,K], or the transpose of a[K,M] when trans_a is set; op(b) is
// b[K,N], or the transpose of b[N,K] when trans_b. When has_bias is 0 the
// bias binding holds some other read-only tensor and is not read.
//
// Dispatch: workgroups flattened over x and y, `row` per grid row (see
// group_index); the ones past the end return at once.
//   matmul:       ceil(M/TM)*ceil(N/128) workgroups of 16x16 invocations,
//                 tiles_n = ceil(N/128) (TM: tile.wgsl's, 64 or 128);
//   matmul_naive: ceil(M/16)*ceil(N/16) workgroups of 16x16, tiles_n =
//                 ceil(N/16).
//
// The tiled GEMM is tile.wgsl's (Source puts it before this file), with
// A = op(a) and B = op(b): a workgroup computes a TM x 128 tile of c,
// walking K in slices of TK staged in workgroup memory, each gathered a
// slice ahead of its multiply-adds (step_slices). Staging assigns the elements
// so that neighbouring invocations read neighbouring addresses whatever the
// transposes.

struct Params {
  m: u32,
  n: u32,
  k: u32,
  trans_a: u32,
  trans_b: u32,
  has_bias: u32,
  tiles_n: u32, // output tiles per row of tiles (matmul, matmul_naive)
  row: u32,     // workgroups per row of the dispatch grid (x extent)
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read_write> c: array<f32>;
@group(0) @binding(2) var<storage, read> a: array<f32>;
@group(0) @binding(3) var<storage, read> b: array<f32>;
@group(0) @binding(4) var<storage, read> bias: array<f32>;

// a_at is op(a)[m, k], zero outside; (ams, aks) are its strides.
fn a_at(m: u32, k: u32, ams: u32, aks: u32) -> f32 {
  let ok = m < p.m && k < p.k;
  return select(0.0, a[select(0u, m * ams + k * aks, ok)], ok);
}

// b_at is op(b)[k, n], zero outside; (bks, bns) are its strides.
fn b_at(k: u32, n: u32, bks: u32, bns: u32) -> f32 {
  let ok = k < p.k && n < p.n;
  return select(0.0, b[select(0u, k * bks + n * bns, ok)], ok);
}

// store_row writes row m of the invocation's block (columns n0+8tx...).
fn store_row(m: u32, n0: u32, v0: vec4<f32>, v1: vec4<f32>) {
  if (m >= p.m) { return; }
  for (var e = 0u; e < 8u; e++) {
    let n = n0 + e;
    if (n < p.n) {
      var s = select(v1, v0, e < 4u)[e % 4u];
      if (p.has_bias != 0u) { s += bias[n]; }
      c[m * p.n + n] = s;
    }
  }
}

@compute @workgroup_size(16, 16)
fn matmul(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) l: vec3<u32>,
          @builtin(local_invocation_index) lid: u32) {
  let t = group_index(wg);
  if (t >= tiles(p.m)) { return; }
  let m0 = (t / p.tiles_n) * TM;
  let n0 = (t % p.tiles_n) * TN;
  // op(a)[m, k] = a[m*ams + k*aks]; op(b)[k, n] = b[k*bks + n*bns].
  let ta = p.trans_a != 0u;
  let tb = p.trans_b != 0u;
  let ams = select(p.k, 1u, ta);
  let aks = select(1u, p.m, ta);
  let bks = select(p.n, 1u, tb);
  let bns = select(1u, p.k, tb);
  // Staging slots: vec4s of 4 rows of op(a) at one k, and of 4 columns of
  // op(b) at one k, chosen so that neighbouring invocations step along the
  // contiguous dimension of a and b; stage s of A is SA_ROWS rows further,
  // stage s of B (bdk, bdj) further in k and in the columns.
  let ai = select(lid / TK, lid % (SA_ROWS / 4u), ta) * 4u;
  let ak = select(lid % TK, lid / (SA_ROWS / 4u), ta);
  let bj = select(lid % 32u, lid / TK, tb) * 4u;
  let bk = select(lid / 32u, lid % TK, tb);
  let bdk = select(8u, 0u, tb);
  let bdj = select(0u, 1024u / TK, tb);
  let st = Stager(ak * PA + ai / 4u, bk * PB + bj / 4u, bdk * PB + bdj / 4u);
  acc = array<vec4<f32>, ACC>();
  for (var k0 = 0u; k0 < p.k; k0 += TK) {
    let k = k0 + ak;
    for (var s = 0u; s < SA_STAGES; s++) {
      let m = m0 + ai + SA_ROWS * s;
      ga[s] = vec4<f32>(a_at(m, k, ams, aks), a_at(m + 1u, k, ams, aks),
                        a_at(m + 2u, k, ams, aks), a_at(m + 3u, k, ams, aks));
    }
    for (var s = 0u; s < SB_STAGES; s++) {
      let n = n0 + bj + bdj * s;
      let kb = k0 + bk + bdk * s;
      gb[s] = vec4<f32>(b_at(kb, n, bks, bns), b_at(kb, n + 1u, bks, bns),
                        b_at(kb, n + 2u, bks, bns), b_at(kb, n + 3u, bks, bns));
    }
    step_slices(st, k0 > 0u, true, l.x, l.y);
  }
  step_slices(st, p.k > 0u, false, l.x, l.y);
  let nc = n0 + 8u * l.x;
  for (var q = 0u; q < RQ; q++) {
    let mr = m0 + 64u * q + 4u * l.y;
    store_row(mr, nc, acc[8u * q], acc[8u * q + 1u]);
    store_row(mr + 1u, nc, acc[8u * q + 2u], acc[8u * q + 3u]);
    store_row(mr + 2u, nc, acc[8u * q + 4u], acc[8u * q + 5u]);
    store_row(mr + 3u, nc, acc[8u * q + 6u], acc[8u * q + 7u]);
  }
}

@compute @workgroup_size(16, 16)
fn matmul_naive(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) l: vec3<u32>) {
  let t = group_index(wg);
  let m = (t / p.tiles_n) * 16u + l.y;
  let n = (t % p.tiles_n) * 16u + l.x;
  if (m >= p.m || n >= p.n) { return; }
  let ta = p.trans_a != 0u;
  let tb = p.trans_b != 0u;
  let ams = select(p.k, 1u, ta);
  let aks = select(1u, p.m, ta);
  let bks = select(p.n, 1u, tb);
  let bns = select(1u, p.k, tb);
  var s = 0.0;
  for (var k = 0u; k < p.k; k++) {
    s += a[m * ams + k * aks] * b[k * bks + n * bns];
  }
  if (p.has_bias != 0u) { s += bias[n]; }
  c[m * p.n + n] = s;
}
