// Pooling over images x[NC,H,W] (NC = N*C planes), with the arithmetic of
// package ref.
//
// Bindings (group 0): 0 the uniform params, then the outputs (read_write,
// bindings 1-2), then the inputs (read, bindings 10-11). Each entry point
// uses only the bindings listed for it.
//   max_pool2:                1 y, 10 x
//       y[NC,H/2,W/2] = max of each 2x2 stride-2 window (floor mode), the
//       first maximum in window order (0,0),(0,1),(1,0),(1,1) by strict '>'.
//       One invocation per output: ceil(NC*Ho*Wo/256) workgroups.
//   max_pool2_backward:       2 dx, 11 dy, 10 x
//       dx = dy at the first maximum of each window, 0 elsewhere (including
//       the last row and column that floor mode drops). One invocation per
//       window of the ceil(H/2) x ceil(W/2) grid, writing its (up to) four
//       dx cells: ceil(NC*ceil(H/2)*ceil(W/2)/256) workgroups.
//   global_avg_pool:          1 y, 10 x
//       y[NC] = sum of x[p, 0:HW] (in order) / HW. One invocation per
//       plane: ceil(NC/256) workgroups.
//   global_avg_pool_wg:       1 y, 10 x
//       The same with one workgroup of 256 per plane (NC workgroups) and a
//       tree reduction, for large HW.
//   global_avg_pool_backward: 2 dx, 11 dy
//       dx[p, i] = dy[p] / HW. One invocation per element of dx:
//       ceil(NC*HW/256) workgroups.
// Workgroups have 256 invocations and are spread over x and y (row is the x
// extent of the grid; see index).

struct Params {
  total: u32,   // invocations (or planes for global_avg_pool_wg) that work
  row: u32,     // workgroups per row of the dispatch grid (x extent)
  h: u32,
  w: u32,
  ho: u32,      // H/2
  wo: u32,      // W/2
  hw: u32,      // H*W
  fhw: f32,     // H*W as a float
}

@group(0) @binding(0) var<uniform> p: Params;

@group(0) @binding(1) var<storage, read_write> y: array<f32>;
@group(0) @binding(2) var<storage, read_write> dx: array<f32>;

@group(0) @binding(10) var<storage, read> x: array<f32>;
@group(0) @binding(11) var<storage, read> dy: array<f32>;

const WG: u32 = 256u;

var<workgroup> red: array<f32, 256>;

fn index(wg: vec3<u32>, lid: u32) -> u32 {
  return (wg.y * p.row + wg.x) * WG + lid;
}

@compute @workgroup_size(256)
fn max_pool2(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let i = index(wg, lid);
  if (i >= p.total) { return; }
  let per = p.ho * p.wo;
  let plane = i / per;
  let r = i - plane * per;
  let oi = r / p.wo;
  let oj = r - oi * p.wo;
  let base = (plane * p.h + 2u * oi) * p.w + 2u * oj;
  var best = x[base];
  let v1 = x[base + 1u];
  if (v1 > best) { best = v1; }
  let v2 = x[base + p.w];
  if (v2 > best) { best = v2; }
  let v3 = x[base + p.w + 1u];
  if (v3 > best) { best = v3; }
  y[i] = best;
}

@compute @workgroup_size(256)
fn max_pool2_backward(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let i = index(wg, lid);
  if (i >= p.total) { return; }
  let wh = (p.h + 1u) / 2u; // windows per column, counting a partial one
  let ww = (p.w + 1u) / 2u;
  let per = wh * ww;
  let plane = i / per;
  let r = i - plane * per;
  let oi = r / ww;
  let oj = r - oi * ww;
  let base = (plane * p.h + 2u * oi) * p.w + 2u * oj;
  if (oi < p.ho && oj < p.wo) {
    // A full window: route dy to its first maximum.
    var k = 0u;
    var best = x[base];
    if (x[base + 1u] > best) { k = 1u; best = x[base + 1u]; }
    if (x[base + p.w] > best) { k = 2u; best = x[base + p.w]; }
    if (x[base + p.w + 1u] > best) { k = 3u; }
    let g = dy[(plane * p.ho + oi) * p.wo + oj];
    dx[base] = select(0.0, g, k == 0u);
    dx[base + 1u] = select(0.0, g, k == 1u);
    dx[base + p.w] = select(0.0, g, k == 2u);
    dx[base + p.w + 1u] = select(0.0, g, k == 3u);
    return;
  }
  // A window cut by the last row or column: floor mode drops it.
  let right = 2u * oj + 1u < p.w;
  let below = 2u * oi + 1u < p.h;
  dx[base] = 0.0;
  if (right) { dx[base + 1u] = 0.0; }
  if (below) { dx[base + p.w] = 0.0; }
  if (right && below) { dx[base + p.w + 1u] = 0.0; }
}

@compute @workgroup_size(256)
fn global_avg_pool(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let i = index(wg, lid);
  if (i >= p.total) { return; }
  var s = 0.0;
  let start = i * p.hw;
  for (var k = 0u; k < p.hw; k++) {
    s += x[start + k];
  }
  y[i] = s / p.fhw;
}

@compute @workgroup_size(256)
fn global_avg_pool_wg(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let plane = wg.y * p.row + wg.x;
  if (plane >= p.total) { return; }
  var s = 0.0;
  let start = plane * p.hw;
  for (var k = lid; k < p.hw; k += WG) {
    s += x[start + k];
  }
  red[lid] = s;
  workgroupBarrier();
  for (var t = WG / 2u; t > 0u; t = t >> 1u) {
    if (lid < t) {
      red[lid] = red[lid] + red[lid + t];
    }
    workgroupBarrier();
  }
  if (lid == 0u) {
    y[plane] = red[0] / p.fhw;
  }
}

@compute @workgroup_size(256)
fn global_avg_pool_backward(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let i = index(wg, lid);
  if (i >= p.total) { return; }
  dx[i] = dy[i / p.hw] / p.fhw;
}
