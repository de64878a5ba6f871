// 2-D convolution (NCHW, square kernels, any size, stride and padding) and
// its gradients, as implicit GEMMs: the patches are gathered on the fly into
// the workgroup's tiles, never materialised as an im2col matrix.
//
// Entry points and bindings (group 0): 0 the uniform params, then the output
// (read_write), then the inputs (read); each entry point uses a subset.
//   conv_forward:         1 y, 3 x, 4 w, 5 bias   y = conv(x, w) (+ bias)
//   conv_backward_data:   1 dx, 2 dy, 4 w         dx from dy and w
//   conv_backward_filter: 1 dw, 2 dy, 3 x         dw from dy and x, or
//                                                 splits partial sums of it
//   conv_split_sum:       1 dw, 6 parts           dw = the sum of the parts
// with x [batch, ci, h, w], w [co, ci, k, k], y and dy [batch, co, ho, wo].
// When has_bias is 0 the bias binding holds some other read-only tensor and
// is not read.
//
// The GEMMs (rows x columns, reduction), and how their operands are indexed:
//   conv_forward:         M = co, N = batch*ho*wo, K = ci*k*k
//     A[co, r] = w[co*K + r]; B[r, j] = x[img, ci, oh*stride-pad+kh,
//     ow*stride-pad+kw] (zero in the padding) for r = (ci, kh, kw) and
//     j = (img, oh, ow); C[co, j] goes to y[img, co, oh, ow].
//   conv_backward_data:   M = ci, N = batch*h*w, K = co*k*k
//     A[ci, r] = w[oc, ci, kh, kw] for r = (oc, kh, kw); B[r, j] =
//     dy[img, oc, oh, ow] where ih+pad-kh = oh*stride and iw+pad-kw =
//     ow*stride (zero for the taps that are not multiples of the stride or
//     fall outside dy) for j = (img, ih, iw); C[ci, j] goes to dx.
//   conv_backward_filter: M = co, N = ci*k*k, K = batch*ho*wo
//     A[co, j] = dy[img, co, oh, ow] for j = (img, oh, ow); B[j, r] = the
//     x element of conv_forward's B[r, j]; C[co, r] goes to dw[co*N + r].
// The host passes the GEMM sizes (gm, gn, gk) and the decomposition of the
// slice depth TK in the mixed radix of the reduction index ((ci or oc, kh,
// kw) with radices k, k; or (img, oh, ow) with radices ho, wo) as
// (step_hi, step_mid, step_lo), so that the invocations advance their
// reduction indices from slice to slice without dividing.
//
// Dispatch: ceil(gm/TM)*ceil(gn/128) workgroups of 16x16 invocations,
// flattened over x and y with `row` workgroups per grid row (tiles_n =
// ceil(gn/128)); the ones past the end return at once.
//
// Split reduction (conv_backward_filter): the filter gradient reduces over
// the batch and the output pixels (200,704 terms at batch 256 on 28x28)
// into few tiles (one for a 64x9 filter), which would leave all but a few
// of a GPU's cores idle. With splits > 1 its reduction is cut into splits
// chunks of `chunk` terms (a multiple of 16): splits times as many
// workgroups, workgroup g computing tile g % tiles over chunk g / tiles
// into parts [splits, gm, gn] (bound as dst), and conv_split_sum (one
// invocation per element of dw, ceil(gm*gn/256) workgroups of 256) adds
// the chunks in order: the same sums on any device, and shorter float32
// sums than one pass over the whole reduction.
//
// The tiling is tile.wgsl's (Source puts it before this file), as in
// matmul.wgsl: a workgroup computes a TM x 128 tile of C (TM 64 or 128, as
// the backend sets it); invocation (tx, ty) owns the TM/16 x 8 block at
// rows 64q+4ty.., columns 8tx.. in acc. K is walked in slices of TK, staged
// in workgroup memory as vec4s along M (sa) and N (sb), each invocation
// gathering SA_STAGES vec4s of A (4 rows at reduction index ak, SA_ROWS rows
// apart) and SB_STAGES of B (4 columns at reduction indices bk, bk+8, ...)
// into registers a slice ahead of the TK rank-1 updates of its block
// (step_slices). The three entry points differ only in their gathers and in
// where the outputs go.

struct Params {
  batch: u32,
  ci: u32,
  h: u32,
  w: u32,
  co: u32,
  k: u32,
  stride: u32,
  pad: u32,
  ho: u32,
  wo: u32,
  has_bias: u32,
  tiles_n: u32, // ceil(gn/128)
  row: u32,     // workgroups per row of the dispatch grid (x extent)
  gm: u32,      // GEMM rows
  gn: u32,      // GEMM columns
  gk: u32,      // GEMM reduction length
  step_hi: u32, // TK in the mixed radix of the reduction index
  step_mid: u32,
  step_lo: u32,
  splits: u32,  // conv_backward_filter: chunks of the reduction (1: none)
  chunk: u32,   // their length, a multiple of 16
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read_write> dst: array<f32>;
@group(0) @binding(2) var<storage, read> dy: array<f32>;
@group(0) @binding(3) var<storage, read> x: array<f32>;
@group(0) @binding(4) var<storage, read> wt: array<f32>;
@group(0) @binding(5) var<storage, read> bias: array<f32>;
@group(0) @binding(6) var<storage, read> parts: array<f32>;

const FAR = -1073741824; // an offset that keeps any index it is added to out of range

// Tile is where an invocation works: the first row and column of its
// workgroup's tile of C, and its staging slots (see the header).
struct Tile {
  m0: u32,
  n0: u32,
  ai: u32, // first of the 4 rows of A staged (and SA_ROWS further a stage)
  ak: u32, // their reduction index within the slice
  bj: u32, // first of the 4 columns of B staged
  bk: u32, // their reduction index within the slice (and 8 further a stage)
}

// tile returns the tile of invocation lid of workgroup g.
fn tile(g: u32, lid: u32) -> Tile {
  return Tile((g / p.tiles_n) * TM, (g % p.tiles_n) * TN, (lid / TK) * 4u, lid % TK, (lid % 32u) * 4u, lid / 32u);
}

// a_rows are the rows of A that stage s of invocation t gathers.
fn a_rows(t: Tile, s: u32) -> vec4<u32> {
  return vec4<u32>(0u, 1u, 2u, 3u) + t.m0 + t.ai + SA_ROWS * s;
}

// stager is where t's gathered vec4s go in sa and sb.
fn stager(t: Tile) -> Stager {
  return Stager(t.ak * PA + t.ai / 4u, t.bk * PB + t.bj / 4u, 8u * PB);
}

// decompose splits v into mixed-radix digits (hi, mid, lo), radices r1, r2.
fn decompose(v: u32, r1: u32, r2: u32) -> vec3<u32> {
  let q = v / r2;
  return vec3<u32>(q / r1, q % r1, v % r2);
}

// advance adds the slice depth (p.step_*) to a reduction index in the mixed
// radix of decompose.
fn advance(s: vec3<u32>, r1: u32, r2: u32) -> vec3<u32> {
  var lo = s.z + p.step_lo;
  var mid = s.y + p.step_mid;
  var hi = s.x + p.step_hi;
  if (lo >= r2) {
    lo -= r2;
    mid += 1u;
  }
  if (mid >= r1) {
    mid -= r1;
    hi += 1u;
  }
  return vec3<u32>(hi, mid, lo);
}

// gather_x, gather_dy and gather_w load four elements of x, dy or w, zero
// where not ok (three functions: each entry point may only use its own
// bindings).
fn gather_x(idx: vec4<i32>, ok: vec4<bool>) -> vec4<f32> {
  let i = vec4<u32>(select(vec4<i32>(0), idx, ok));
  return select(vec4<f32>(0.0), vec4<f32>(x[i.x], x[i.y], x[i.z], x[i.w]), ok);
}

fn gather_dy(idx: vec4<i32>, ok: vec4<bool>) -> vec4<f32> {
  let i = vec4<u32>(select(vec4<i32>(0), idx, ok));
  return select(vec4<f32>(0.0), vec4<f32>(dy[i.x], dy[i.y], dy[i.z], dy[i.w]), ok);
}

fn gather_w(idx: vec4<i32>, ok: vec4<bool>) -> vec4<f32> {
  let i = vec4<u32>(select(vec4<i32>(0), idx, ok));
  return select(vec4<f32>(0.0), vec4<f32>(wt[i.x], wt[i.y], wt[i.z], wt[i.w]), ok);
}

// store_row writes row m of the invocation's block (v0: columns 8tx..8tx+3,
// v1: the next four) plus add, to dst[m*row_step + cols] for the columns'
// offsets cols0 and cols1 (negative for the columns past the end).
fn store_row(m: u32, row_step: u32, cols0: vec4<i32>, cols1: vec4<i32>, v0: vec4<f32>, v1: vec4<f32>, add: f32) {
  if (m >= p.gm) { return; }
  for (var e = 0u; e < 4u; e++) {
    if (cols0[e] >= 0) { dst[m * row_step + u32(cols0[e])] = v0[e] + add; }
    if (cols1[e] >= 0) { dst[m * row_step + u32(cols1[e])] = v1[e] + add; }
  }
}

// image_cols returns the offsets in an NCHW tensor of chans channels of
// plane pixels of the columns j = (img, pix) n..n+3 of C at channel 0
// (-1 past the end).
fn image_cols(n: u32, plane: u32, chans: u32) -> vec4<i32> {
  var r: vec4<i32>;
  for (var e = 0u; e < 4u; e++) {
    let j = n + e;
    let img = j / plane;
    r[e] = select(-1, i32(img * chans * plane + (j - img * plane)), j < p.gn);
  }
  return r;
}

// store_block writes the invocation's block to dst, row m of C going to
// dst[m*row_step + cols], adding add[q][r] to row 64q+4ty+r.
fn store_block(t: Tile, tx: u32, ty: u32, row_step: u32, cols0: vec4<i32>, cols1: vec4<i32>, adds: array<vec4<f32>, RQ>) {
  var rows_add = adds; // a variable: a value array may only be indexed by constants
  for (var q = 0u; q < RQ; q++) {
    let m = t.m0 + 64u * q + 4u * ty;
    let add = rows_add[q];
    store_row(m, row_step, cols0, cols1, acc[8u * q], acc[8u * q + 1u], add.x);
    store_row(m + 1u, row_step, cols0, cols1, acc[8u * q + 2u], acc[8u * q + 3u], add.y);
    store_row(m + 2u, row_step, cols0, cols1, acc[8u * q + 4u], acc[8u * q + 5u], add.z);
    store_row(m + 3u, row_step, cols0, cols1, acc[8u * q + 6u], acc[8u * q + 7u], add.w);
  }
}

@compute @workgroup_size(16, 16)
fn conv_forward(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) l: vec3<u32>,
                @builtin(local_invocation_index) lid: u32) {
  let g = group_index(wg);
  if (g >= tiles(p.gm)) { return; }
  let t = tile(g, lid);
  let hi = i32(p.h);
  let wi = i32(p.w);
  // The 4 staged columns j = (img, oh, ow) of B: the offset of image img in
  // x, and the input position of tap (0, 0) (far outside past the end).
  var xb: vec4<i32>;
  var ih0: vec4<i32>;
  var iw0: vec4<i32>;
  for (var e = 0u; e < 4u; e++) {
    let j = t.n0 + t.bj + e;
    let d = decompose(j, p.ho, p.wo);
    xb[e] = i32(d.x * p.ci * p.h * p.w);
    ih0[e] = select(FAR, i32(d.y * p.stride) - i32(p.pad), j < p.gn);
    iw0[e] = i32(d.z * p.stride) - i32(p.pad);
  }
  // The reduction indices r = (ci, kh, kw) of the staged rows of B.
  var rb: array<vec3<u32>, SB_STAGES>;
  for (var s = 0u; s < SB_STAGES; s++) {
    rb[s] = decompose(t.bk + 8u * s, p.k, p.k);
  }
  acc = array<vec4<f32>, ACC>();
  for (var k0 = 0u; k0 < p.gk; k0 += TK) {
    let ka = k0 + t.ak;
    for (var s = 0u; s < SA_STAGES; s++) {
      let rows = a_rows(t, s);
      ga[s] = gather_w(vec4<i32>(rows * p.gk + ka), (rows < vec4<u32>(p.gm)) & vec4<bool>(ka < p.gk));
    }
    for (var s = 0u; s < SB_STAGES; s++) {
      let r = rb[s];
      let ih = ih0 + i32(r.y);
      let iw = iw0 + i32(r.z);
      let ok = (vec4<u32>(ih) < vec4<u32>(p.h)) & (vec4<u32>(iw) < vec4<u32>(p.w)) & vec4<bool>(r.x < p.ci);
      gb[s] = gather_x(xb + (i32(r.x) * hi + ih) * wi + iw, ok);
      rb[s] = advance(r, p.k, p.k);
    }
    step_slices(stager(t), k0 > 0u, true, l.x, l.y);
  }
  step_slices(stager(t), true, false, l.x, l.y);
  var add = array<vec4<f32>, RQ>();
  if (p.has_bias != 0u) {
    for (var q = 0u; q < RQ; q++) {
      for (var r = 0u; r < 4u; r++) {
        let m = t.m0 + 64u * q + 4u * l.y + r;
        if (m < p.gm) { add[q][r] = bias[m]; }
      }
    }
  }
  let n = t.n0 + 8u * l.x;
  let plane = p.ho * p.wo;
  store_block(t, l.x, l.y, plane, image_cols(n, plane, p.co), image_cols(n + 4u, plane, p.co), add);
}

@compute @workgroup_size(16, 16)
fn conv_backward_data(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) l: vec3<u32>,
                      @builtin(local_invocation_index) lid: u32) {
  let g = group_index(wg);
  if (g >= tiles(p.gm)) { return; }
  let t = tile(g, lid);
  let kk = p.k * p.k;
  // The 4 staged columns j = (img, ih, iw) of B: the offset of image img in
  // dy, and ih+pad, iw+pad (far outside past the end).
  var yb: vec4<i32>;
  var th0: vec4<i32>;
  var tw0: vec4<i32>;
  for (var e = 0u; e < 4u; e++) {
    let j = t.n0 + t.bj + e;
    let d = decompose(j, p.h, p.w);
    yb[e] = i32(d.x * p.co * p.ho * p.wo);
    th0[e] = select(FAR, i32(d.y + p.pad), j < p.gn);
    tw0[e] = i32(d.z + p.pad);
  }
  // The reduction indices r = (oc, kh, kw) of the staged column of A and
  // of the staged rows of B.
  var ra = decompose(t.ak, p.k, p.k);
  var rb: array<vec3<u32>, SB_STAGES>;
  for (var s = 0u; s < SB_STAGES; s++) {
    rb[s] = decompose(t.bk + 8u * s, p.k, p.k);
  }
  acc = array<vec4<f32>, ACC>();
  for (var k0 = 0u; k0 < p.gk; k0 += TK) {
    for (var s = 0u; s < SA_STAGES; s++) {
      let rows = a_rows(t, s);
      let wa = (ra.x * p.ci + rows) * kk + ra.y * p.k + ra.z;
      ga[s] = gather_w(vec4<i32>(wa), (rows < vec4<u32>(p.gm)) & vec4<bool>(ra.x < p.co));
    }
    ra = advance(ra, p.k, p.k);
    for (var s = 0u; s < SB_STAGES; s++) {
      let r = rb[s];
      // Tap (kh, kw) of output (oh, ow) reads input (oh*stride+kh-pad, ...).
      let th = th0 - i32(r.y);
      let tw = tw0 - i32(r.z);
      var oh = vec4<u32>(th);
      var ow = vec4<u32>(tw);
      var ok = vec4<bool>(r.x < p.co);
      if (p.stride != 1u) {
        ok = ok & (th >= vec4<i32>(0)) & (tw >= vec4<i32>(0)) &
             (oh % p.stride == vec4<u32>(0u)) & (ow % p.stride == vec4<u32>(0u));
        oh = oh / p.stride;
        ow = ow / p.stride;
      }
      ok = ok & (oh < vec4<u32>(p.ho)) & (ow < vec4<u32>(p.wo));
      let idx = yb + vec4<i32>((r.x * p.ho + oh) * p.wo + ow);
      gb[s] = gather_dy(idx, ok);
      rb[s] = advance(r, p.k, p.k);
    }
    step_slices(stager(t), k0 > 0u, true, l.x, l.y);
  }
  step_slices(stager(t), true, false, l.x, l.y);
  let n = t.n0 + 8u * l.x;
  let plane = p.h * p.w;
  store_block(t, l.x, l.y, plane, image_cols(n, plane, p.ci), image_cols(n + 4u, plane, p.ci), array<vec4<f32>, RQ>());
}

@compute @workgroup_size(16, 16)
fn conv_backward_filter(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) l: vec3<u32>,
                        @builtin(local_invocation_index) lid: u32) {
  let all = tiles(p.gm);
  let g = group_index(wg);
  if (g >= all * p.splits) { return; }
  let t = tile(g % all, lid);
  // The chunk [kb, ke) of the reduction, and where its sums go.
  let kb = (g / all) * p.chunk;
  let ke = min(kb + p.chunk, p.gk);
  let base = (g / all) * p.gm * p.gn;
  let wi = i32(p.w);
  let howo = p.ho * p.wo;
  // The 4 staged columns r = (ci, kh, kw) of B: the offset of channel ci in
  // an image of x, and the tap (kh far outside past the end).
  var xo: vec4<i32>;
  var kh: vec4<i32>;
  var kw: vec4<i32>;
  for (var e = 0u; e < 4u; e++) {
    let r = t.n0 + t.bj + e;
    let d = decompose(r, p.k, p.k);
    xo[e] = i32(d.x * p.h * p.w);
    kh[e] = select(FAR, i32(d.y), r < p.gn);
    kw[e] = i32(d.z);
  }
  let chw = i32(p.ci * p.h * p.w);
  // The reduction indices j = (img, oh, ow) of the staged column of A and of
  // the staged rows of B.
  var ja = decompose(kb + t.ak, p.ho, p.wo);
  var jb: array<vec3<u32>, SB_STAGES>;
  for (var s = 0u; s < SB_STAGES; s++) {
    jb[s] = decompose(kb + t.bk + 8u * s, p.ho, p.wo);
  }
  acc = array<vec4<f32>, ACC>();
  for (var k0 = kb; k0 < ke; k0 += TK) {
    for (var s = 0u; s < SA_STAGES; s++) {
      let rows = a_rows(t, s);
      let ya = (ja.x * p.co + rows) * howo + ja.y * p.wo + ja.z;
      ga[s] = gather_dy(vec4<i32>(ya), (rows < vec4<u32>(p.gm)) & vec4<bool>(ja.x < p.batch));
    }
    ja = advance(ja, p.ho, p.wo);
    for (var s = 0u; s < SB_STAGES; s++) {
      let j = jb[s];
      let ih = kh + (i32(j.y * p.stride) - i32(p.pad));
      let iw = kw + (i32(j.z * p.stride) - i32(p.pad));
      let ok = (vec4<u32>(ih) < vec4<u32>(p.h)) & (vec4<u32>(iw) < vec4<u32>(p.w)) & vec4<bool>(j.x < p.batch);
      gb[s] = gather_x(i32(j.x) * chw + xo + ih * wi + iw, ok);
      jb[s] = advance(j, p.ho, p.wo);
    }
    step_slices(stager(t), k0 > kb, true, l.x, l.y);
  }
  step_slices(stager(t), true, false, l.x, l.y);
  let n = vec4<u32>(0u, 1u, 2u, 3u) + t.n0 + 8u * l.x;
  let cols0 = select(vec4<i32>(-1), vec4<i32>(base + n), n < vec4<u32>(p.gn));
  let cols1 = select(vec4<i32>(-1), vec4<i32>(base + n + 4u), n + 4u < vec4<u32>(p.gn));
  store_block(t, l.x, l.y, p.gn, cols0, cols1, array<vec4<f32>, RQ>());
}

@compute @workgroup_size(256)
fn conv_split_sum(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let i = group_index(wg) * 256u + lid;
  let n = p.gm * p.gn;
  if (i >= n) { return; }
  var s = 0.0;
  for (var c = 0u; c < p.splits; c++) {
    s += parts[c * n + i];
  }
  dst[i] = s;
}
