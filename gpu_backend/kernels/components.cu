// Connected components of an undirected graph (gpu_backend/components_steps.py): a
// lock-free union-find whose roots are the smallest ids of their sets, so the roots are the
// labels, with the sampling and skipping of Afforest (Sutton, Ben-Nun and Barak, IPDPS
// 2018). Templated over the index type I of the CSR arrays (int or long long);
// instantiated through RawModule name expressions.
//
// One persistent kernel (cooperative launch, all blocks resident), four phases between
// software grid barriers:
//   1. parent[v] = the vertex INIT_HOPS steps up from v in the forest in which every
//      vertex's parent is its smallest neighbour if that is smaller (rows are sorted: the
//      row's first entry), or v where v is a root of it;
//   2. every edge to one of the first SAMPLED entries of a row is joined. With once
//      (components_steps.joins_once: sparse graphs and graphs with hubs, `heads` in
//      device memory), each such edge once: the larger end hooked it in phase 1 where it
//      is that row's first entry; else the larger end joins it where it is among the
//      first SAMPLED of its row, the smaller end where it is not (a read of the other
//      end's heads tells, in place of the search that a second join costs); without,
//      from both ends (the first entry where it is larger: else phase 1 did). The two
//      smallest neighbours of every vertex join all but about 1% of a road map, half a
//      Kronecker graph: the giant component, if there is one, is mostly one set now;
//   phases 1 and 2 read the rows' first SAMPLED entries from `heads` (cc_heads: SAMPLED
//   words a vertex, the vertex itself where its row is shorter), a contiguous array
//   instead of two row pointers and a scattered entry a vertex, and an array that stays in
//   device memory when the adjacency is out of core;
//   3. the rest of every row (entries SAMPLED on), except the rows of the vertices already
//      in the set of `hub` (a vertex of largest degree, in the giant component if any is),
//      whose edges are joined from their other end or lie within the set. By degree
//      bucket: the chunks of rows longer than LONG_ROW by whole blocks, rows longer than
//      THREAD_ROW by a warp each (the host lists them), the rest by one thread each;
//   4. label[v] = the root of v (int64).
// A join is order-independent, so the buckets need no barrier between them. Skipping is
// exact whatever the timing: a row is skipped only while its vertex shares a set with
// `hub`, and sets only merge, so every edge left out joins two vertices of that one set.
//
// The searches of phases 2 and 3 read through L1 (find): on the H100 that took a road
// map of 10^6 vertices from 415 to 132 us against searches that read L2 only (root_of).
// Skipping took a Kronecker graph of 2^20 vertices from 600 to 260 us, and 2 hops in
// phase 1 a peer-to-peer graph from 77 to 55 us.

#include "shared.cuh"

#define THREAD_ROW 16
// Entries of every row joined before phase 3 (phases 1 and 2).
#define SAMPLED 2
// Phase 1 sets parent[v] to the ancestor of v this many steps up the forest of smallest
// neighbours (an ancestor is as good a parent, and fewer steps are left to the searches).
#define INIT_HOPS 2

// The root of x's set, searched through L1 (root_of in shared.cuh): for the joins, which
// hook it by CAS.
template <typename I>
__device__ __forceinline__ I find(I x, I* parent) { return root_of<true>(x, parent); }

// Join v with the entries ind[p] for p = lo, lo + step, ... below hi, unless v is in the
// set of hub (c: hub's root as last seen by this thread, refreshed when v's root differs).
template <typename I>
__device__ __forceinline__ void join_row(const I* __restrict__ ind, long long lo,
                                         long long hi, I v, int step, I& c, I* parent) {
    if (lo >= hi) return;
    I r = find(v, parent);
    if (r != c) c = find(c, parent);
    if (r == c) return;
    for (long long p = lo; p < hi; p += step) r = link<true>(r, ind[p], parent);
}

// Whether v is among u's first SAMPLED entries (heads: cc_heads), so that u joins the
// edge: by phase 1 where v is u's smallest neighbour, else in phase 2 where v < u.
template <typename I>
__device__ __forceinline__ bool sampled(const I* __restrict__ heads, I u, I v) {
    bool found = false;
    for (int j = 0; j < SAMPLED; ++j) found |= heads[SAMPLED * (long long)u + j] == v;
    return found;
}

// Phase 2, from both ends: each vertex v joins its first SAMPLED entries (the first where
// it is larger: else phase 1 did).
template <typename I>
__device__ __forceinline__ void join_heads(const I* __restrict__ heads, long long n,
                                           long long tid, long long nthreads, I* parent) {
    for (long long v = tid; v < n; v += nthreads) {
        const I* h = heads + SAMPLED * v;
        bool join = h[0] > (I)v;
        for (int j = 1; j < SAMPLED; ++j) join |= h[j] != (I)v;
        if (!join) continue;
        I r = find((I)v, parent);
        if (h[0] > (I)v) r = link<true>(r, h[0], parent);
        for (int j = 1; j < SAMPLED; ++j)
            if (h[j] != (I)v) r = link<true>(r, h[j], parent);
    }
}

// Phase 2, once: v joins an entry u of its first SAMPLED where u < v (but the first:
// phase 1 did), or where u > v and v is not among u's first SAMPLED (else u joins it).
template <typename I>
__device__ __forceinline__ void join_heads_once(const I* __restrict__ heads, long long n,
                                                long long tid, long long nthreads,
                                                I* parent) {
    for (long long v = tid; v < n; v += nthreads) {
        I u[SAMPLED];
        bool take[SAMPLED];
#pragma unroll
        for (int j = 0; j < SAMPLED; ++j) u[j] = heads[SAMPLED * v + j];
#pragma unroll
        for (int j = 0; j < SAMPLED; ++j)       // (no entry, or phase 1 did, or u's turn)
            take[j] = u[j] != (I)v && !(j == 0 && u[j] < (I)v)
                      && !(u[j] > (I)v && sampled(heads, u[j], (I)v));
        I r = -1;                                               // (v's root, once found)
#pragma unroll
        for (int j = 0; j < SAMPLED; ++j)
            if (take[j]) r = link<true>(r < 0 ? find((I)v, parent) : r, u[j], parent);
    }
}

// The first SAMPLED entries of every row of the CSR (ptr, ind), SAMPLED words a vertex v
// from heads[SAMPLED * v], v itself in place of entries its row lacks.
template <typename I>
__global__ void cc_heads(const I* __restrict__ ptr, const I* __restrict__ ind, long long n,
                         I* heads) {
    for (long long v = (long long)blockIdx.x * blockDim.x + threadIdx.x; v < n;
         v += (long long)gridDim.x * blockDim.x) {
        const long long lo = ptr[v], hi = ptr[v + 1];
        for (int j = 0; j < SAMPLED; ++j)
            heads[SAMPLED * v + j] = lo + j < hi ? ind[lo + j] : (I)v;
    }
}

// heads: the rows' first entries (cc_heads);
// warp_rows[0..nwarp): the vertices whose rows hold THREAD_ROW < entries <= LONG_ROW;
// (cv, clo)[0..nchunks): the chunks of the longer rows; hub: a vertex of largest degree;
// once: join each sampled edge once (phase 2 reads the other end's heads), else from both
// ends.
// parent: n words of scratch; label: the n labels out. bar: the grid barrier's word (shared.cuh).
template <typename I>
__global__ void __launch_bounds__(512)
cc_union_find(const I* __restrict__ ptr, const I* __restrict__ ind, long long n,
              const I* __restrict__ heads, const I* __restrict__ warp_rows, long long nwarp,
              const I* __restrict__ cv, const long long* __restrict__ clo, long long nchunks,
              long long hub, int once, I* parent, long long* label, unsigned int* bar) {
    const long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const long long nthreads = (long long)gridDim.x * blockDim.x;

    for (long long v = tid; v < n; v += nthreads) {
        I p = (I)v;
        for (int hop = 0; hop < INIT_HOPS; ++hop) {
            const I first = heads[SAMPLED * (long long)p];
            if (first >= p) break;
            p = first;
        }
        parent[v] = p;
    }
    grid_sync(bar);

    if (once)
        join_heads_once(heads, n, tid, nthreads, parent);
    else
        join_heads(heads, n, tid, nthreads, parent);
    grid_sync(bar);

    I c = (I)hub;
    for (long long k = blockIdx.x; k < nchunks; k += gridDim.x) {
        long long lo, hi;
        const I v = chunk_of(ptr, cv, clo, k, lo, hi);
        lo = max(lo, (long long)ptr[v] + SAMPLED);
        join_row(ind, lo + threadIdx.x, hi, v, blockDim.x, c, parent);
    }
    const int lane = threadIdx.x & 31;
    for (long long w = tid >> 5; w < nwarp; w += nthreads >> 5) {
        const I v = warp_rows[w];
        join_row(ind, (long long)ptr[v] + SAMPLED + lane, (long long)ptr[v + 1], v, 32, c,
                 parent);
    }
    for (long long v = tid; v < n; v += nthreads) {
        const long long lo = ptr[v], hi = ptr[v + 1];
        if (hi - lo <= THREAD_ROW) join_row(ind, lo + SAMPLED, hi, (I)v, 1, c, parent);
    }
    grid_sync(bar);

    for (long long v = tid; v < n; v += nthreads) {
        I r = find((I)v, parent);
        for (I p; (p = __ldcg(parent + r)) != r;) r = find(p, parent);   // r is a root now
        label[v] = r;
    }
}
