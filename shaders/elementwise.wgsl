// Elementwise ops over flat float32 arrays.
//
// Bindings (group 0), as in every shader of this folder: 0 the uniform
// params, then the outputs (read_write), then the inputs (read).
//   fill:                  1 y                       y[i] = value
//   relu:                  1 y, 2 x                  y = max(x, 0)
//   relu_inplace:          1 y (holds x on entry)
//   relu_backward:         1 dx, 2 dy, 3 y           dx = dy where y > 0
//   relu_backward_inplace: 1 dx (holds dy), 3 y
// Dispatch: ceil(n/256) workgroups of 256, spread over x and y (see index).

struct Params {
  n: u32,
  row: u32,   // workgroups per row of the dispatch grid (x extent)
  value: f32,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;
@group(0) @binding(2) var<storage, read> x: array<f32>;
@group(0) @binding(3) var<storage, read> ry: array<f32>;

fn index(wg: vec3<u32>, lid: u32) -> u32 {
  return (wg.y * p.row + wg.x) * 256u + lid;
}

@compute @workgroup_size(256)
fn fill(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let i = index(wg, lid);
  if (i >= p.n) { return; }
  y[i] = p.value;
}

@compute @workgroup_size(256)
fn relu(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let i = index(wg, lid);
  if (i >= p.n) { return; }
  y[i] = max(x[i], 0.0);
}

@compute @workgroup_size(256)
fn relu_inplace(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let i = index(wg, lid);
  if (i >= p.n) { return; }
  y[i] = max(y[i], 0.0);
}

@compute @workgroup_size(256)
fn relu_backward(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let i = index(wg, lid);
  if (i >= p.n) { return; }
  y[i] = select(0.0, x[i], ry[i] > 0.0);
}

@compute @workgroup_size(256)
fn relu_backward_inplace(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let i = index(wg, lid);
  if (i >= p.n) { return; }
  y[i] = select(0.0, y[i], ry[i] > 0.0);
}
