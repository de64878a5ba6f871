// The tile of the GEMM kernels of matmul.wgsl and conv.wgsl, which Source
// puts before each of them (WGSL has no include); not a shader by itself.
//
// A workgroup of 16x16 invocations computes a TM x TN (64x128) tile of C,
// the workgroups flattened over x and y (see group_index); invocation
// (tx, ty) owns the 4x8 block at rows 4ty..4ty+3 and columns 8tx..8tx+7,
// held in acc. K is walked in slices of TK (16): the including shader stages
// the TM x TK slice of A in sa and the TK x TN slice of B in sb as vec4s
// along M and N (zero outside the matrices), then rank_updates does the 16
// rank-1 updates of each block, each from one vec4 of sa and two of sb.
// (vec4 accesses to workgroup memory also matter on CPU implementations such
// as lavapipe, which pay per access rather than per float.)
//
// The including shader declares the uniform block p with the u32 fields
// tiles_n (tiles per row of tiles of C) and row (workgroups per row of the
// dispatch grid).

// TM, TN and TK are gemmTileM, gemmTileN and gemmDepth in matmul.go.
const TM = 64u;  // tile rows
const TN = 128u; // tile columns
const TK = 16u;  // slice depth
const PA = 17u;  // vec4s per k in sa: TM/4, padded against bank conflicts
const PB = 33u;  // vec4s per k in sb: TN/4, padded
const SA = 272u; // TK*PA
const SB = 528u; // TK*PB

// sa[k*PA + i/4][i%4] = A[m0+i, k0+k]; sb[k*PB + j/4][j%4] = B[k0+k, n0+j].
var<workgroup> sa: array<vec4<f32>, SA>;
var<workgroup> sb: array<vec4<f32>, SB>;

// acc[2r+h][e] is the output at row 4ty+r, column 8tx+4h+e.
var<private> acc: array<vec4<f32>, 8>;

// group_index is the linear workgroup index of a dispatch flattened by grid().
fn group_index(wg: vec3<u32>) -> u32 {
  return wg.y * p.row + wg.x;
}

// tiles is the number of tiles of C with rows rows: the workgroups at or
// past it have nothing to do.
fn tiles(rows: u32) -> u32 {
  return ((rows + TM - 1u) / TM) * p.tiles_n;
}

// rank_updates waits for the workgroup to stage the slices, adds their
// product to acc, and waits again so that the next slices may be staged.
fn rank_updates(tx: u32, ty: u32) {
  workgroupBarrier();
  for (var k = 0u; k < TK; k++) {
    let av = sa[k * PA + ty];
    let b0 = sb[k * PB + 2u * tx];
    let b1 = sb[k * PB + 2u * tx + 1u];
    acc[0] += av.x * b0;
    acc[1] += av.x * b1;
    acc[2] += av.y * b0;
    acc[3] += av.y * b1;
    acc[4] += av.z * b0;
    acc[5] += av.z * b1;
    acc[6] += av.w * b0;
    acc[7] += av.w * b1;
  }
  workgroupBarrier();
}
