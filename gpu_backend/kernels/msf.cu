// Borůvka minimum spanning forest (gpu_backend/msf_steps.py). Templated over the index type I
// of the CSR arrays (int or long long); instantiated through RawModule name expressions.
//
// Edges are the upper triangle of the CSR, each once: edge id e = position in (u, v) order,
// u < v, its ends at ends[2e], ends[2e + 1]. An edge's key packs the rank of its weight above
// the id bits (the low `idbits`: mask = 2^idbits - 1), so keys are distinct and key order is
// the strict order (weight, u, v): a component's lightest edge is one 64-bit atomicMin over
// keys, and a key names its edge.
//
// State of one call:
//   parent[v]  lock-free union-find (shared.cuh); a root is the smallest vertex of its set,
//              so roots are the component labels
//   minkey[c]  key of the lightest candidate edge offered to root c this round, NO_EDGE;
//              two arrays that alternate by round (a round's shrink offers into one; the
//              join after the next decision clears the one it was read from)
//   lists      candidate edges, as keys (8 bytes an edge: their ends are looked up and
//              their roots found again where needed); two lists, read one and write the other
//   counts     device words: the lists' lengths, the forest's, and how much of the forest
//              is joined, read by the kernels (the host launches fixed grids and reads them
//              back only between batches of rounds)
//   forest     keys of the forest edges, in any order (the host sorts them)
//
// A round: decide (a candidate that is the lightest edge of either endpoint's component
// enters the forest; no set changes meanwhile, so the roots it finds are those its offer
// went to), join (the new forest edges join their components; the minkey array just read
// is cleared), then shrink (candidates inside a component dropped, the lightest edge of each
// component offered anew).

#include "shared.cuh"

typedef unsigned long long u64;
#define NO_EDGE 0xffffffffffffffffULL

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

// The roots of the ends of the edge that `key` names.
template <typename I>
__device__ __forceinline__ void edge_roots(const I* __restrict__ ends, u64 key, u64 mask,
                                           I* parent, I& a, I& b) {
    const long long e = (long long)(key & mask);
    a = root_of(ends[2 * e], parent);
    b = root_of(ends[2 * e + 1], parent);
}

// Keep a candidate whose ends lie in two components (roots a != b) and offer it to both.
template <typename I>
__device__ __forceinline__ void keep_crossing(bool keep, u64 key, I a, I b, u64* minkey,
                                              u64* out, u64* count, u64 cap) {
    warp_append(keep, key, out, count, cap);
    if (keep) {
        offer(minkey, a, key);
        offer(minkey, b, key);
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

// The upper-triangle edge list (a warp per row): ends[2e], ends[2e + 1] = u, v and, where
// csr is not null, csr[e] = the edge's CSR position, for e in [uoff[u], uoff[u + 1]).
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
            if (csr) csr[e] = j;
        }
    }
}

// parent = identity; both minkey arrays (2n words from minkey) NO_EDGE.
template <typename I>
__device__ __forceinline__ void init_phase(long long n, I* parent, u64* minkey) {
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long v = (long long)blockIdx.x * blockDim.x + threadIdx.x; v < n; v += stride) {
        parent[v] = (I)v;
        minkey[v] = NO_EDGE;
        minkey[n + v] = NO_EDGE;
    }
}

// The edges of the edge list whose keys are at most `light` (heavy = 0: the light edges;
// parent must still be the identity) or above it (heavy = 1: the heavy edges, after the
// light ones joined components; those inside a component are dropped) become candidates.
template <typename I>
__device__ __forceinline__ void collect_phase(const I* __restrict__ ends,
                                              const u64* __restrict__ keys, long long m,
                                              u64 light, int heavy, u64 mask, I* parent,
                                              u64* minkey, u64* out, u64* count, u64 cap) {
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long base = (long long)blockIdx.x * blockDim.x; base < m; base += stride) {
        const long long e = base + threadIdx.x;
        u64 key = 0;
        bool keep = e < m;
        if (keep) {
            key = keys[e];
            keep = heavy ? key > light : key <= light;
        }
        I a = 0, b = 0;
        if (keep) {
            edge_roots(ends, key, mask, parent, a, b);
            keep = a != b;
        }
        keep_crossing(keep, key, a, b, minkey, out, count, cap);
    }
}

// Decide: a candidate that is the lightest edge of either endpoint's component enters the
// forest (once: each edge is one candidate). Reads the sets only. Zeroes the other list's
// count (the shrink of this round appends there).
template <typename I>
__device__ __forceinline__ void decide_phase(const u64* list, const u64* count,
                                             const I* __restrict__ ends, u64 mask, I* parent,
                                             const u64* minkey, u64* forest, u64* forest_count,
                                             u64 cap, u64* other_count) {
    if (blockIdx.x == 0 && threadIdx.x == 0) *other_count = 0;
    const long long size = (long long)__ldcg(count);
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long base = (long long)blockIdx.x * blockDim.x; base < size; base += stride) {
        const long long i = base + threadIdx.x;
        bool keep = i < size;
        u64 key = 0;
        if (keep) {
            key = __ldcg(list + i);
            I a, b;
            edge_roots(ends, key, mask, parent, a, b);
            keep = __ldcg(minkey + a) == key || __ldcg(minkey + b) == key;
        }
        warp_append(keep, key, forest, forest_count, cap);
    }
}

// Join: the forest edges the last decision added (from forest[*joined] to the forest's
// count) join their ends' sets; `read`, the n keys it read, are cleared.
template <typename I>
__device__ __forceinline__ void join_phase(const u64* forest, const u64* joined,
                                           const u64* forest_count, const I* __restrict__ ends,
                                           u64 mask, I* parent, u64* read, long long n) {
    const long long stride = (long long)gridDim.x * blockDim.x;
    const long long first = (long long)(blockIdx.x * blockDim.x + threadIdx.x);
    const long long lo = (long long)__ldcg(joined), hi = (long long)__ldcg(forest_count);
    for (long long i = lo + first; i < hi; i += stride) {
        const long long e = (long long)(__ldcg(forest + i) & mask);
        join(ends[2 * e], ends[2 * e + 1], parent);
    }
    for (long long v = first; v < n; v += stride) read[v] = NO_EDGE;
}

// Shrink: candidates inside a component dropped, the others kept in `out` and offered to
// `minkey`. Marks the forest joined (its count holds still in this phase).
template <typename I>
__device__ __forceinline__ void shrink_phase(const u64* list, const u64* count,
                                             const I* __restrict__ ends, u64 mask, I* parent,
                                             u64* minkey, u64* out, u64* out_count, u64 cap,
                                             u64* joined, const u64* forest_count) {
    if (blockIdx.x == 0 && threadIdx.x == 0) *joined = __ldcg(forest_count);
    const long long size = (long long)__ldcg(count);
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long base = (long long)blockIdx.x * blockDim.x; base < size; base += stride) {
        const long long i = base + threadIdx.x;
        bool keep = i < size;
        u64 key = 0;
        I a = 0, b = 0;
        if (keep) {
            key = __ldcg(list + i);
            edge_roots(ends, key, mask, parent, a, b);
            keep = a != b;
        }
        keep_crossing(keep, key, a, b, minkey, out, out_count, cap);
    }
}

// Point every vertex at its root; with `label` (not null), also write the root there.
template <typename I>
__device__ __forceinline__ void flatten_phase(long long n, I* parent, long long* label) {
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

// The phases as kernels of their own, launched one by one by the host (large graphs; the
// host reads the list lengths between batches of rounds).

template <typename I>
__global__ void msf_init(long long n, I* parent, u64* minkey) {
    init_phase(n, parent, minkey);
}

template <typename I>
__global__ void msf_collect(const I* __restrict__ ends, const u64* __restrict__ keys,
                            long long m, u64 light, int heavy, u64 mask, I* parent,
                            u64* minkey, u64* out, u64* count, u64 cap) {
    collect_phase(ends, keys, m, light, heavy, mask, parent, minkey, out, count, cap);
}

template <typename I>
__global__ void msf_decide(const u64* list, const u64* count, const I* __restrict__ ends,
                           u64 mask, I* parent, const u64* minkey, u64* forest,
                           u64* forest_count, u64 cap, u64* other_count) {
    decide_phase(list, count, ends, mask, parent, minkey, forest, forest_count, cap,
                 other_count);
}

template <typename I>
__global__ void msf_join(const u64* forest, const u64* joined, const u64* forest_count,
                         const I* __restrict__ ends, u64 mask, I* parent, u64* read,
                         long long n) {
    join_phase(forest, joined, forest_count, ends, mask, parent, read, n);
}

template <typename I>
__global__ void msf_shrink(const u64* list, const u64* count, const I* __restrict__ ends,
                           u64 mask, I* parent, u64* minkey, u64* out, u64* out_count,
                           u64 cap, u64* joined, const u64* forest_count) {
    shrink_phase(list, count, ends, mask, parent, minkey, out, out_count, cap, joined,
                 forest_count);
}

template <typename I>
__global__ void msf_flatten(long long n, I* parent, long long* label) {
    flatten_phase(n, parent, label);
}

// The whole of Borůvka in one launch (small graphs: every phase a grid barrier apart
// instead of a launch, and the rounds decided on the device). lists: the two candidate
// lists, minkey: both minkey arrays (2n words), cnt: the lists' lengths, the forest's and
// its joined part (cnt[0..2], cnt[5]), zero at launch. The light edges (keys <= light) run
// light_rounds rounds first (fewer if none is left); if heavy edges exist (`heavy`), they
// are filtered in then, and rounds go on until no candidate is left. label: every vertex's
// root. cnt[3]: rounds run; cnt[4]: 1 when max_rounds were not enough (no progress: a bug,
// which the host reports).
template <typename I>
__global__ void __launch_bounds__(256)
msf_fused(const I* __restrict__ ends, const u64* __restrict__ keys, long long m, u64 light,
          int heavy, u64 mask, int light_rounds, int max_rounds, long long n, I* parent,
          u64* minkey, u64* list0, u64* list1, u64* cnt, u64* forest, u64 forest_cap,
          long long* label, unsigned int* bar) {
    unsigned int gen = 0;
    if (threadIdx.x == 0) gen = *(volatile unsigned int*)&bar[1];
    init_phase(n, parent, minkey);
    grid_sync(bar, gen);
    collect_phase(ends, keys, m, light, 0, mask, parent, minkey, list0, cnt, (u64)m);
    grid_sync(bar, gen);
    int i = 0, rounds = 0;
    bool pending = heavy != 0;
    while (true) {
        if (__ldcg(&cnt[i]) == 0 || (pending && rounds == light_rounds)) {
            if (!pending) break;
            pending = false;                   // the heavy edges join the candidates
            flatten_phase(n, parent, (long long*)nullptr);
            grid_sync(bar, gen);
            collect_phase(ends, keys, m, light, 1, mask, parent, minkey + i * n,
                          i ? list1 : list0, cnt + i, (u64)m);
            grid_sync(bar, gen);
            continue;
        }
        if (rounds == max_rounds) {
            if (blockIdx.x == 0 && threadIdx.x == 0) cnt[4] = 1;
            break;
        }
        const int o = 1 - i;
        u64* const in = i ? list1 : list0;
        decide_phase(in, cnt + i, ends, mask, parent, minkey + i * n, forest, cnt + 2,
                     forest_cap, cnt + o);
        grid_sync(bar, gen);
        join_phase(forest, cnt + 5, cnt + 2, ends, mask, parent, minkey + i * n, n);
        grid_sync(bar, gen);
        shrink_phase(in, cnt + i, ends, mask, parent, minkey + o * n, o ? list1 : list0,
                     cnt + o, (u64)m, cnt + 5, cnt + 2);
        grid_sync(bar, gen);
        i = o;
        ++rounds;
    }
    flatten_phase(n, parent, label);
    if (blockIdx.x == 0 && threadIdx.x == 0) cnt[3] = rounds;
}
