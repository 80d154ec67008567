// Borůvka minimum spanning forest (gpu_backend/msf_steps.py). Templated over the index type I
// of the CSR arrays (int or long long); instantiated through RawModule name expressions.
//
// Edges are the upper triangle of the CSR, each once: edge id e = position in (u, v) order,
// u < v. An edge's key packs the rank of its weight above the id bits, so keys are distinct
// and key order is the strict order (weight, u, v): a component's lightest edge is one
// 64-bit atomicMin over keys.
//
// State of one call:
//   parent[v]  lock-free union-find; a root is the smallest vertex of its set (a join hooks
//              the larger root under the smaller one), so roots are the component labels
//   minkey[c]  key of the lightest candidate edge offered to root c this round, NO_EDGE;
//              two arrays that alternate by round (a round's shrink offers into one and
//              clears the other where its hook read it)
//   lists      candidate edges (a, b, key): a, b the roots of the endpoints when the list
//              was written, a != b; two lists, read one and write the other
//   counts     device words: the lists' lengths and the forest's, read by the kernels (the
//              host launches fixed grids and reads them back only between batches of rounds)
//   forest     keys of the forest edges, in any order (the host sorts them)
//
// A round: hook (an edge that is the lightest of either endpoint's component joins them and
// enters the forest), then shrink (the list relabelled by roots, edges inside a component
// dropped, the lightest edge of each component offered anew).

#include "shared.cuh"

typedef unsigned long long u64;
#define NO_EDGE 0xffffffffffffffffULL

template <typename I>
struct __align__(16) Candidate {
    I a, b;
    u64 key;
};

__device__ __forceinline__ int cas(int* p, int expected, int value) {
    return atomicCAS(p, expected, value);
}

__device__ __forceinline__ long long cas(long long* p, long long expected, long long value) {
    return (long long)atomicCAS((u64*)p, (u64)expected, (u64)value);
}

// The root of x's set. Path halving: each vertex passed is pointed at its grandparent, an
// ancestor, with a plain store (only roots change by CAS, and x is no root). Loads bypass
// L1, which does not see other blocks' joins.
template <typename I>
__device__ __forceinline__ I root_of(I x, I* parent) {
    while (true) {
        const I p = __ldcg(parent + x);
        if (p == x) return x;
        const I g = __ldcg(parent + p);
        if (g == p) return p;
        parent[x] = g;
        x = g;
    }
}

// Join the sets of a and b: the larger root is hooked under the smaller one.
template <typename I>
__device__ __forceinline__ void join(I a, I b, I* parent) {
    while (true) {
        a = root_of(a, parent);
        b = root_of(b, parent);
        if (a == b) return;
        if (a > b) { const I t = a; a = b; b = t; }
        if (cas(parent + b, b, a) == b) return;
    }
}

// Append item at out[*count...] for each lane that keeps one (one atomicAdd per warp:
// slot); items past cap are dropped (never written).
template <typename T>
__device__ __forceinline__ void warp_append(bool keep, const T& item, T* out, u64* count,
                                            u64 cap) {
    if (!keep) return;
    const u64 at = slot(count);
    if (at < cap) out[at] = item;
}

// Offer edge `key` as the lightest of component c (a read first: most offers lose).
__device__ __forceinline__ void offer(u64* minkey, long long c, u64 key) {
    if (__ldcg(minkey + c) > key) atomicMin(minkey + c, key);
}

// Keep a candidate whose endpoints lie in two components, and offer it to both.
template <typename I>
__device__ __forceinline__ void keep_crossing(bool keep, const Candidate<I>& c, u64* minkey,
                                              Candidate<I>* out, u64* count, u64 cap) {
    warp_append(keep, c, out, count, cap);
    if (keep) {
        offer(minkey, c.a, c.key);
        offer(minkey, c.b, c.key);
    }
}

// count[v] = entries of row v above the diagonal (columns are sorted: a suffix of the row).
template <typename I>
__global__ void msf_upper_count(const I* __restrict__ indptr, const I* __restrict__ indices,
                                long long n, long long* count) {
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long v = (long long)blockIdx.x * blockDim.x + threadIdx.x; v < n; v += stride) {
        long long lo = indptr[v], hi = indptr[v + 1];
        const long long end = hi;
        while (lo < hi) {
            const long long mid = (lo + hi) / 2;
            if (indices[mid] <= v) lo = mid + 1; else hi = mid;
        }
        count[v] = end - lo;
    }
}

// The upper-triangle edge list (a warp per row): ends[2e], ends[2e + 1] = u, v and csr[e] =
// the edge's CSR position, for e in [uoff[u], uoff[u + 1]).
template <typename I>
__global__ void msf_upper_edges(const I* __restrict__ indptr, const I* __restrict__ indices,
                                long long n, const long long* __restrict__ uoff, I* ends,
                                long long* csr) {
    const int lane = threadIdx.x & 31;
    const long long warps = ((long long)gridDim.x * blockDim.x) >> 5;
    for (long long u = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5; u < n;
         u += warps) {
        const long long first = uoff[u], end = indptr[u + 1];
        const long long start = end - (uoff[u + 1] - first);
        for (long long j = start + lane; j < end; j += 32) {
            const long long e = first + (j - start);
            ends[2 * e] = (I)u;
            ends[2 * e + 1] = indices[j];
            csr[e] = j;
        }
    }
}

// parent = identity; both minkey arrays (2n words from minkey) NO_EDGE.
template <typename I>
__global__ void msf_init(long long n, I* parent, u64* minkey) {
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long v = (long long)blockIdx.x * blockDim.x + threadIdx.x; v < n; v += stride) {
        parent[v] = (I)v;
        minkey[v] = NO_EDGE;
        minkey[n + v] = NO_EDGE;
    }
}

// Edges lo..hi-1 of the edge list become candidates. With `filter`, their endpoints are
// replaced by their roots and edges inside a component dropped (the heavy edges, after the
// light ones joined components); without, parent must still be the identity.
template <typename I>
__global__ void msf_collect(const I* __restrict__ ends, const u64* __restrict__ keys,
                            long long lo, long long hi, int filter, I* parent, u64* minkey,
                            Candidate<I>* out, u64* count, u64 cap) {
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long base = lo + (long long)blockIdx.x * blockDim.x; base < hi; base += stride) {
        const long long e = base + threadIdx.x;
        bool keep = e < hi;
        Candidate<I> c;
        if (keep) {
            c.a = ends[2 * e];
            c.b = ends[2 * e + 1];
            c.key = keys[e];
            if (filter) {
                c.a = root_of(c.a, parent);
                c.b = root_of(c.b, parent);
                keep = c.a != c.b;
            }
        }
        keep_crossing(keep, c, minkey, out, count, cap);
    }
}

// Hook: a candidate that is the lightest edge of either endpoint's component joins the two
// and enters the forest (once: each edge is one candidate). Zeroes the other list's count
// (the shrink after it appends there).
template <typename I>
__global__ void msf_hook(const Candidate<I>* __restrict__ list, const u64* __restrict__ count,
                         I* parent, const u64* __restrict__ minkey, u64* forest,
                         u64* forest_count, u64 cap, u64* other_count) {
    if (blockIdx.x == 0 && threadIdx.x == 0) *other_count = 0;
    const long long size = (long long)*count;
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long base = (long long)blockIdx.x * blockDim.x; base < size; base += stride) {
        const long long i = base + threadIdx.x;
        bool keep = i < size;
        Candidate<I> c;
        if (keep) {
            c = list[i];
            keep = minkey[c.a] == c.key || minkey[c.b] == c.key;
            if (keep) join(c.a, c.b, parent);
        }
        warp_append(keep, c.key, forest, forest_count, cap);
    }
}

// Shrink: the list relabelled by roots into `out`, edges inside a component dropped and the
// others offered to `minkey`; `read` (the minkey array the hook read) is cleared where this
// list's offers set it.
template <typename I>
__global__ void msf_shrink(const Candidate<I>* __restrict__ list, const u64* __restrict__ count,
                           I* parent, u64* read, u64* minkey, Candidate<I>* out,
                           u64* out_count, u64 cap) {
    const long long size = (long long)*count;
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long base = (long long)blockIdx.x * blockDim.x; base < size; base += stride) {
        const long long i = base + threadIdx.x;
        bool keep = i < size;
        Candidate<I> c;
        if (keep) {
            c = list[i];
            read[c.a] = NO_EDGE;
            read[c.b] = NO_EDGE;
            c.a = root_of(c.a, parent);
            c.b = root_of(c.b, parent);
            keep = c.a != c.b;
        }
        keep_crossing(keep, c, minkey, out, out_count, cap);
    }
}

// Point every vertex at its root; with `label` (not null), also write the root there.
template <typename I>
__global__ void msf_flatten(long long n, I* parent, long long* label) {
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long v = (long long)blockIdx.x * blockDim.x + threadIdx.x; v < n; v += stride) {
        const I r = root_of((I)v, parent);
        parent[v] = r;
        if (label) label[v] = r;
    }
}

// Forest rows from sorted keys: edge id e (the low `idbits` bits), its row u (the last u with
// uoff[u] <= e) and column, from the CSR: src, dst and the edge id.
template <typename I>
__global__ void msf_forest_rows(const u64* __restrict__ keys, long long k, int idbits,
                                const long long* __restrict__ uoff, long long n,
                                const I* __restrict__ indptr, const I* __restrict__ indices,
                                long long* src, long long* dst, long long* edge) {
    const long long stride = (long long)gridDim.x * blockDim.x;
    const u64 mask = (1ULL << idbits) - 1ULL;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < k; i += stride) {
        const long long e = (long long)(keys[i] & mask);
        long long lo = 0, hi = n;
        while (lo < hi) {
            const long long mid = (lo + hi + 1) / 2;
            if (uoff[mid] <= e) lo = mid; else hi = mid - 1;
        }
        src[i] = lo;
        dst[i] = indices[(long long)indptr[lo + 1] - uoff[lo + 1] + e];
        edge[i] = e;
    }
}
