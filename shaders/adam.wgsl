// One Adam step (PyTorch's formulation, as kernels/ref.Adam) fused over a
// whole parameter arena:
//   m = beta1 m + (1-beta1) g
//   v = beta2 v + (1-beta2) g g
//   param -= step_size * (m / (sqrt(v) / sqrt_bc2 + eps))
// with step_size = lr / (1 - beta1^t) and sqrt_bc2 = sqrt(1 - beta2^t)
// computed on the host in float64 and passed as float32, as are beta1,
// 1-beta1, beta2 and 1-beta2 (PyTorch's Python scalars, converted to the
// tensors' float32).
//
// Bindings (group 0): 0 the uniform params, then the outputs (read_write),
// then the inputs (read).
//   adam: 1 param, 2 m, 3 v, 4 grad
// Dispatch: ceil(n/256) workgroups of 256, spread over x and y (see index).

struct Params {
  n: u32,
  row: u32,   // workgroups per row of the dispatch grid (x extent)
  beta1: f32,
  omb1: f32,  // 1 - beta1
  beta2: f32,
  omb2: f32,  // 1 - beta2
  step_size: f32,
  sqrt_bc2: f32,
  eps: f32,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read_write> param: array<f32>;
@group(0) @binding(2) var<storage, read_write> m: array<f32>;
@group(0) @binding(3) var<storage, read_write> v: array<f32>;
@group(0) @binding(4) var<storage, read> grad: array<f32>;

fn index(wg: vec3<u32>, lid: u32) -> u32 {
  return (wg.y * p.row + wg.x) * 256u + lid;
}

@compute @workgroup_size(256)
fn adam(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let i = index(wg, lid);
  if (i >= p.n) { return; }
  let g = grad[i];
  let mi = p.beta1 * m[i] + p.omb1 * g;
  let vi = p.beta2 * v[i] + p.omb2 * g * g;
  m[i] = mi;
  v[i] = vi;
  let denom = sqrt(vi) / p.sqrt_bc2 + p.eps;
  param[i] = param[i] - p.step_size * (mi / denom);
}
