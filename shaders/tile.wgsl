// The tile of the GEMM kernels of matmul.wgsl and conv.wgsl, which Source
// puts before each of them (WGSL has no include); not a shader by itself.
//
// A workgroup of 16x16 invocations computes a TM x TN tile of C, the
// workgroups flattened over x and y (see group_index). TM is 64 or 128
// (RM = TM/16 rows an invocation), TN is 128: invocation (tx, ty) owns the
// RM x 8 block at rows 64q+4ty..64q+4ty+3 for q < TM/64 and columns
// 8tx..8tx+7, held in acc. K is walked in slices of TK (8 or 16, with
// TM*TK a multiple of 1024): the including shader gathers the TM x TK
// slice of A and the TK x TN slice of B as vec4s along M and N (zero
// outside the matrices), SA_STAGES vec4s of A and SB_STAGES of B an
// invocation, into ga and gb; step_slices stages them in sa and sb and does
// the TK rank-1 updates of each block, each from TM/64 vec4s of sa and two
// of sb, a slice behind the gathers. (vec4 accesses to workgroup
// memory also matter on CPU implementations such as lavapipe, which pay per
// access rather than per float.)
//
// The backend picks TM and TK for each dispatch and sets them in the text
// (shaders.Specialize); the values here are those of the file itself.
//
// The including shader declares the uniform block p with the u32 fields
// tiles_n (tiles per row of tiles of C) and row (workgroups per row of the
// dispatch grid).

const TM = 64u;  // tile rows
const TK = 16u;  // slice depth
const TN = 128u; // tile columns
const RQ = TM / 64u;  // blocks of 4 rows an invocation
const PA = TM / 4u + 1u; // vec4s per k in sa, padded against bank conflicts
const PB = TN / 4u + 1u; // vec4s per k in sb, padded
const SA_STAGES = TM * TK / 1024u; // vec4s of A an invocation stages
const SB_STAGES = TK / 8u;         // vec4s of B an invocation stages
const SA_ROWS = 1024u / TK; // rows of A between an invocation's staged vec4s
const SA_LEN = TK * PA; // vec4s of sa
const SB_LEN = TK * PB; // vec4s of sb
const ACC = 8u * RQ;    // vec4s of acc

// sa[k*PA + i/4][i%4] = A[m0+i, k0+k]; sb[k*PB + j/4][j%4] = B[k0+k, n0+j].
var<workgroup> sa: array<vec4<f32>, SA_LEN>;
var<workgroup> sb: array<vec4<f32>, SB_LEN>;

// acc[8q+2r+h][e] is the output at row 64q+4ty+r, column 8tx+4h+e.
var<private> acc: array<vec4<f32>, ACC>;

// ga and gb hold the vec4s of A and B that the invocation gathered for the
// next slice (see step_slices).
var<private> ga: array<vec4<f32>, SA_STAGES>;
var<private> gb: array<vec4<f32>, SB_STAGES>;

// group_index is the linear workgroup index of a dispatch flattened by grid().
fn group_index(wg: vec3<u32>) -> u32 {
  return wg.y * p.row + wg.x;
}

// tiles is the number of tiles of C with rows rows: the workgroups at or
// past it have nothing to do.
fn tiles(rows: u32) -> u32 {
  return ((rows + TM - 1u) / TM) * p.tiles_n;
}

// Stager says where an invocation's gathered vec4s go: stage s of A to
// sa[a0 + s*SA_ROWS/4], stage s of B to sb[b0 + s*b_step].
struct Stager {
  a0: u32,
  b0: u32,
  b_step: u32,
}

// step_slices ends a pass of the including shader's loop over the slices
// of K, which gathers each slice into ga and gb at the top of its pass, so
// that the slice's loads are in flight while the multiply-adds of the slice
// before run: it does the TK rank-1 updates of each block from the slice
// staged in the pass before, if multiply, then stages the slice just
// gathered, if stage, waiting for the workgroup after each. After the loop
// one more call, with multiply alone, adds the last slice. (Both flags are
// the same in the whole workgroup.)
fn step_slices(st: Stager, multiply: bool, stage: bool, tx: u32, ty: u32) {
  if (multiply) {
    for (var k = 0u; k < TK; k++) {
      let b0 = sb[k * PB + 2u * tx];
      let b1 = sb[k * PB + 2u * tx + 1u];
      for (var q = 0u; q < RQ; q++) {
        let av = sa[k * PA + ty + 16u * q];
        acc[8u * q] += av.x * b0;
        acc[8u * q + 1u] += av.x * b1;
        acc[8u * q + 2u] += av.y * b0;
        acc[8u * q + 3u] += av.y * b1;
        acc[8u * q + 4u] += av.z * b0;
        acc[8u * q + 5u] += av.z * b1;
        acc[8u * q + 6u] += av.w * b0;
        acc[8u * q + 7u] += av.w * b1;
      }
    }
    workgroupBarrier();
  }
  if (stage) {
    for (var s = 0u; s < SA_STAGES; s++) {
      sa[st.a0 + s * (SA_ROWS / 4u)] = ga[s];
    }
    for (var s = 0u; s < SB_STAGES; s++) {
      sb[st.b0 + s * st.b_step] = gb[s];
    }
    workgroupBarrier();
  }
}
