// Connected components of an undirected graph (gpu_backend/components_steps.py): a
// lock-free union-find (shared.cuh) whose roots are the smallest ids of their sets, so the
// roots are the labels. Templated over the index type I of the CSR arrays (int or long
// long); instantiated through RawModule name expressions.
//
// One persistent kernel (cooperative launch, all blocks resident), three phases between
// software grid barriers:
//   1. parent[v] = the smallest neighbour of v if it is smaller than v, else v (rows are
//      sorted: the row's first entry), so most vertices start attached to a tree;
//   2. every edge {u, v} with u < v (the sorted row's prefix of smaller ids) joins the sets
//      of u and v, by degree bucket: the chunks of rows longer than LONG_ROW by whole
//      blocks, rows longer than THREAD_ROW by a warp each (the host lists them), the rest
//      by one thread each;
//   3. label[v] = the root of v (int64).
// A join is order-independent, so the buckets need no barrier between them.

#include "shared.cuh"

#define THREAD_ROW 16

// Join v with every neighbour ind[p] < v for p = lo, lo + step, ... below hi (a sorted row,
// or a chunk of one: the smaller neighbours come first, so the first larger one ends it).
template <typename I>
__device__ __forceinline__ void hook_row(const I* __restrict__ ind, long long lo, long long hi,
                                         I v, int step, I* parent) {
    for (long long p = lo; p < hi; p += step) {
        const I u = ind[p];
        if (u >= v) break;
        join(v, u, parent);
    }
}

// warp_rows[0..nwarp): the vertices whose rows hold THREAD_ROW < entries <= LONG_ROW;
// (cv, clo)[0..nchunks): the chunks of the longer rows. parent: n words of scratch;
// label: the n labels out. bar: the grid barrier's two words.
template <typename I>
__global__ void __launch_bounds__(512)
cc_union_find(const I* __restrict__ ptr, const I* __restrict__ ind, long long n,
              const I* __restrict__ warp_rows, long long nwarp,
              const I* __restrict__ cv, const long long* __restrict__ clo, long long nchunks,
              I* parent, long long* label, unsigned int* bar) {
    unsigned int gen = 0;
    if (threadIdx.x == 0) gen = *(volatile unsigned int*)&bar[1];
    const long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const long long nthreads = (long long)gridDim.x * blockDim.x;

    for (long long v = tid; v < n; v += nthreads) {
        const long long lo = ptr[v];
        const I first = lo < (long long)ptr[v + 1] ? ind[lo] : (I)v;
        parent[v] = first < (I)v ? first : (I)v;
    }
    grid_sync(bar, gen);

    for (long long c = blockIdx.x; c < nchunks; c += gridDim.x) {
        long long lo, hi;
        const I v = chunk_of(ptr, cv, clo, c, lo, hi);
        hook_row(ind, lo + threadIdx.x, hi, v, blockDim.x, parent);
    }
    const int lane = threadIdx.x & 31;
    for (long long w = tid >> 5; w < nwarp; w += nthreads >> 5) {
        const I v = warp_rows[w];                  // (the first entry is parent[v] already)
        hook_row(ind, (long long)ptr[v] + 1 + lane, (long long)ptr[v + 1], v, 32, parent);
    }
    for (long long v = tid; v < n; v += nthreads) {
        const long long lo = ptr[v], hi = ptr[v + 1];
        if (hi - lo <= THREAD_ROW) hook_row(ind, lo + 1, hi, (I)v, 1, parent);
    }
    grid_sync(bar, gen);

    for (long long v = tid; v < n; v += nthreads) label[v] = root_of((I)v, parent);
}
