// Borůvka minimum spanning forest (gpu_backend/msf_steps.py). Templated over the index type I
// of the CSR arrays (int or long long); instantiated through RawModule name expressions.
//
// Edges are the upper triangle of the CSR, each once: edge id e = position in (u, v) order,
// u < v. An edge's key packs the rank of its weight above the id bits, so keys are distinct
// and key order is the strict order (weight, u, v): a component's lightest edge is one
// 64-bit atomicMin over keys.
//
// State of one call:
//   parent[v]  lock-free union-find (shared.cuh); a root is the smallest vertex of its set,
//              so roots are the component labels
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

// A candidate read from L2 (the fused kernel reads lists that other blocks wrote earlier in
// the same launch, which an SM's L1 would not see).
template <typename I>
__device__ __forceinline__ Candidate<I> load_cg(const Candidate<I>* p) {
    Candidate<I> c;
    const uint4* from = reinterpret_cast<const uint4*>(p);
    uint4* to = reinterpret_cast<uint4*>(&c);
    for (int k = 0; k < (int)(sizeof(Candidate<I>) / sizeof(uint4)); ++k) to[k] = __ldcg(from + k);
    return c;
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
__device__ __forceinline__ void init_phase(long long n, I* parent, u64* minkey) {
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
__device__ __forceinline__ void collect_phase(const I* __restrict__ ends,
                                              const u64* __restrict__ keys, long long lo,
                                              long long hi, int filter, I* parent,
                                              u64* minkey, Candidate<I>* out, u64* count,
                                              u64 cap) {
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
__device__ __forceinline__ void hook_phase(const Candidate<I>* list, const u64* count,
                                           I* parent, const u64* minkey, u64* forest,
                                           u64* forest_count, u64 cap, u64* other_count) {
    if (blockIdx.x == 0 && threadIdx.x == 0) *other_count = 0;
    const long long size = (long long)__ldcg(count);
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long base = (long long)blockIdx.x * blockDim.x; base < size; base += stride) {
        const long long i = base + threadIdx.x;
        bool keep = i < size;
        Candidate<I> c;
        if (keep) {
            c = load_cg(list + i);
            keep = __ldcg(minkey + c.a) == c.key || __ldcg(minkey + c.b) == c.key;
            if (keep) join(c.a, c.b, parent);
        }
        warp_append(keep, c.key, forest, forest_count, cap);
    }
}

// Shrink: the list relabelled by roots into `out`, edges inside a component dropped and the
// others offered to `minkey`; `read` (the minkey array the hook read) is cleared where this
// list's offers set it.
template <typename I>
__device__ __forceinline__ void shrink_phase(const Candidate<I>* list, const u64* count,
                                             I* parent, u64* read, u64* minkey,
                                             Candidate<I>* out, u64* out_count, u64 cap) {
    const long long size = (long long)__ldcg(count);
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long base = (long long)blockIdx.x * blockDim.x; base < size; base += stride) {
        const long long i = base + threadIdx.x;
        bool keep = i < size;
        Candidate<I> c;
        if (keep) {
            c = load_cg(list + i);
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
                            long long lo, long long hi, int filter, I* parent, u64* minkey,
                            Candidate<I>* out, u64* count, u64 cap) {
    collect_phase(ends, keys, lo, hi, filter, parent, minkey, out, count, cap);
}

template <typename I>
__global__ void msf_hook(const Candidate<I>* list, const u64* count, I* parent,
                         const u64* minkey, u64* forest, u64* forest_count, u64 cap,
                         u64* other_count) {
    hook_phase(list, count, parent, minkey, forest, forest_count, cap, other_count);
}

template <typename I>
__global__ void msf_shrink(const Candidate<I>* list, const u64* count, I* parent, u64* read,
                           u64* minkey, Candidate<I>* out, u64* out_count, u64 cap) {
    shrink_phase(list, count, parent, read, minkey, out, out_count, cap);
}

template <typename I>
__global__ void msf_flatten(long long n, I* parent, long long* label) {
    flatten_phase(n, parent, label);
}

// The whole of Borůvka in one launch (small graphs: every phase a grid barrier apart
// instead of a launch, and the rounds decided on the device). lists: the two candidate
// lists, minkey: both minkey arrays (2n words), cnt: the lists' lengths and the forest's,
// zero at launch. The light edges [0, nlight) run light_rounds rounds first (fewer if
// none is left); if heavy edges exist, they are filtered in then, and rounds go on until
// no candidate is left. label: every vertex's root. out[0]: rounds run; out[1]: 1 when
// max_rounds were not enough (no progress: a bug, which the host reports).
template <typename I>
__global__ void __launch_bounds__(256)
msf_fused(const I* __restrict__ ends, const u64* __restrict__ keys, long long nlight,
          long long m, int light_rounds, int max_rounds, long long n, I* parent, u64* minkey,
          Candidate<I>* list0, Candidate<I>* list1, u64* cnt, u64* forest, u64 forest_cap,
          long long* label, unsigned int* bar, u64* out) {
    unsigned int gen = 0;
    if (threadIdx.x == 0) gen = *(volatile unsigned int*)&bar[1];
    init_phase(n, parent, minkey);
    grid_sync(bar, gen);
    collect_phase(ends, keys, 0, nlight, 0, parent, minkey, list0, cnt, (u64)m);
    grid_sync(bar, gen);
    int i = 0, rounds = 0;
    bool heavy = nlight < m;
    while (true) {
        if (__ldcg(&cnt[i]) == 0 || (heavy && rounds == light_rounds)) {
            if (!heavy) break;
            heavy = false;                     // the heavy edges join the candidates
            flatten_phase(n, parent, (long long*)nullptr);
            grid_sync(bar, gen);
            collect_phase(ends, keys, nlight, m, 1, parent, minkey + i * n,
                          i ? list1 : list0, cnt + i, (u64)m);
            grid_sync(bar, gen);
            continue;
        }
        if (rounds == max_rounds) {
            if (blockIdx.x == 0 && threadIdx.x == 0) out[1] = 1;
            break;
        }
        const int o = 1 - i;
        Candidate<I>* const in = i ? list1 : list0;
        hook_phase(in, cnt + i, parent, minkey + i * n, forest, cnt + 2, forest_cap, cnt + o);
        grid_sync(bar, gen);
        shrink_phase(in, cnt + i, parent, minkey + i * n, minkey + o * n, o ? list1 : list0,
                     cnt + o, (u64)m);
        grid_sync(bar, gen);
        i = o;
        ++rounds;
    }
    flatten_phase(n, parent, label);
    if (blockIdx.x == 0 && threadIdx.x == 0) out[0] = rounds;
}
