// Borůvka minimum spanning forest (gpu_backend/msf_steps.py). Templated over the index type I
// of the CSR arrays (int or long long); instantiated through RawModule name expressions.
//
// Edges are the upper triangle of the CSR, each once, numbered in the strict order
// (weight, u, v) (the host sorts them once per graph): edge e has ends ends[2e] < ends[2e + 1],
// and e is its rank, so a component's lightest edge is one atomicMin over edge ids, and an
// edge id fits the index type I (fewer edges than stored entries).
//
// State of one call:
//   parent[v]  lock-free union-find (shared.cuh); a root is the smallest vertex of its set,
//              so roots are the component labels
//   minkey[c]  id of the lightest candidate edge offered to root c this round, or no_edge;
//              two arrays that alternate by round (a round's shrink offers into one; the
//              join after the next decision clears the one it was read from)
//   lists      candidate edges, as ids (their ends are looked up and their roots found
//              again where needed); two lists, read one and write the other
//   counts     device words: the lists' lengths, the forest's, and how much of the forest
//              is joined, read by the kernels (the host launches fixed grids and reads them
//              back only between batches of rounds)
//   forest     ids of the forest edges, in any order (the last phase writes their rows in
//              rank order)
//
// A round: decide (a candidate that is the lightest edge of either endpoint's component
// enters the forest; no set changes meanwhile, so the roots it finds are those its offer
// went to), join (the new forest edges join their components; the minkey array just read
// is cleared), then shrink (candidates inside a component dropped, the lightest edge of each
// component offered anew).

#include "shared.cuh"

typedef unsigned long long u64;

// The id that no edge has, above every edge id: minkey's "no offer".
template <typename I>
__device__ __forceinline__ I no_edge() {
    return sizeof(I) == 4 ? (I)0x7fffffff : (I)0x7fffffffffffffffLL;
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

// Offer edge e as the lightest of component c (a read first: most offers lose).
template <typename I>
__device__ __forceinline__ void offer(I* minkey, I c, I e) {
    if (__ldcg(minkey + c) > e) atomicMin(minkey + c, e);
}

// The roots of the ends of edge e.
template <typename I>
__device__ __forceinline__ void edge_roots(const I* __restrict__ ends, I e, I* parent, I& a,
                                           I& b) {
    a = root_of(ends[2 * (long long)e], parent);
    b = root_of(ends[2 * (long long)e + 1], parent);
}

// Keep a candidate whose ends lie in two components (roots a != b) and offer it to both.
template <typename I>
__device__ __forceinline__ void keep_crossing(bool keep, I e, I a, I b, I* minkey, I* out,
                                              u64* count, u64 cap) {
    warp_append(keep, e, out, count, cap);
    if (keep) {
        offer(minkey, a, e);
        offer(minkey, b, e);
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

// The upper-triangle edges in (u, v) order (a warp per row): ends[2e], ends[2e + 1] = u, v
// and, where csr is not null, csr[e] = the edge's CSR position, for e in
// [uoff[u], uoff[u + 1]).
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

// parent = identity; both minkey arrays (2n words from minkey) no_edge; the CNT count
// words zero.
#define CNT 6
template <typename I>
__device__ __forceinline__ void init_phase(long long n, I* parent, I* minkey, u64* cnt) {
    if (blockIdx.x == 0 && threadIdx.x < CNT) cnt[threadIdx.x] = 0;
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long v = (long long)blockIdx.x * blockDim.x + threadIdx.x; v < n; v += stride) {
        parent[v] = (I)v;
        minkey[v] = no_edge<I>();
        minkey[n + v] = no_edge<I>();
    }
}

// Edges lo..hi - 1 whose ends lie in two components become candidates: the light edges
// (lo = 0) first, the heavy ones after the light ones joined components (those inside a
// component are dropped: each is the heaviest edge of a cycle).
template <typename I>
__device__ __forceinline__ void collect_phase(const I* __restrict__ ends, long long lo,
                                              long long hi, I* parent, I* minkey, I* out,
                                              u64* count, u64 cap) {
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long base = lo + (long long)blockIdx.x * blockDim.x; base < hi; base += stride) {
        const I e = (I)(base + threadIdx.x);
        bool keep = base + threadIdx.x < hi;
        I a = 0, b = 0;
        if (keep) {
            edge_roots(ends, e, parent, a, b);
            keep = a != b;
        }
        keep_crossing(keep, e, a, b, minkey, out, count, cap);
    }
}

// Decide: a candidate that is the lightest edge of either endpoint's component enters the
// forest (once: each edge is one candidate). Reads the sets only. Zeroes the other list's
// count (the shrink of this round appends there).
template <typename I>
__device__ __forceinline__ void decide_phase(const I* list, const u64* count,
                                             const I* __restrict__ ends, I* parent,
                                             const I* minkey, I* forest, u64* forest_count,
                                             u64 cap, u64* other_count) {
    if (blockIdx.x == 0 && threadIdx.x == 0) *other_count = 0;
    const long long size = (long long)__ldcg(count);
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long base = (long long)blockIdx.x * blockDim.x; base < size; base += stride) {
        const long long i = base + threadIdx.x;
        bool keep = i < size;
        I e = 0;
        if (keep) {
            e = __ldcg(list + i);
            I a, b;
            edge_roots(ends, e, parent, a, b);
            keep = __ldcg(minkey + a) == e || __ldcg(minkey + b) == e;
        }
        warp_append(keep, e, forest, forest_count, cap);
    }
}

// Join: the forest edges the last decision added (from forest[*joined] to the forest's
// count) join their ends' sets; `read`, the n ids it read, are cleared.
template <typename I>
__device__ __forceinline__ void join_phase(const I* forest, const u64* joined,
                                           const u64* forest_count, const I* __restrict__ ends,
                                           I* parent, I* read, long long n) {
    const long long stride = (long long)gridDim.x * blockDim.x;
    const long long first = (long long)(blockIdx.x * blockDim.x + threadIdx.x);
    const long long lo = (long long)__ldcg(joined), hi = (long long)__ldcg(forest_count);
    for (long long i = lo + first; i < hi; i += stride) {
        const long long e = __ldcg(forest + i);
        join(ends[2 * e], ends[2 * e + 1], parent);
    }
    for (long long v = first; v < n; v += stride) read[v] = no_edge<I>();
}

// Shrink: candidates inside a component dropped, the others kept in `out` and offered to
// `minkey`. Marks the forest joined (its count holds still in this phase).
template <typename I>
__device__ __forceinline__ void shrink_phase(const I* list, const u64* count,
                                             const I* __restrict__ ends, I* parent, I* minkey,
                                             I* out, u64* out_count, u64 cap, u64* joined,
                                             const u64* forest_count) {
    if (blockIdx.x == 0 && threadIdx.x == 0) *joined = __ldcg(forest_count);
    const long long size = (long long)__ldcg(count);
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long base = (long long)blockIdx.x * blockDim.x; base < size; base += stride) {
        const long long i = base + threadIdx.x;
        bool keep = i < size;
        I e = 0, a = 0, b = 0;
        if (keep) {
            e = __ldcg(list + i);
            edge_roots(ends, e, parent, a, b);
            keep = a != b;
        }
        keep_crossing(keep, e, a, b, minkey, out, out_count, cap);
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

// Bit e of the bitmap flag.
__device__ __forceinline__ bool flagged(const unsigned* flag, long long e) {
    return (__ldcg(flag + (e >> 5)) >> (e & 31)) & 1u;
}

// The forest in rank order, with its rows, without a sort: the forest's k = *forest_count
// (at most cap) edges are flagged among the m (flag: a bitmap, bit e of word e / 32, zeroed
// by the caller before a barrier: a thirty-second of a list of m ids, so that out of core
// it stays in device memory where the lists do not), each block counts the flags of its
// share of the ids (part: a word per block), and each block writes the rows of its flagged
// ids in order from the sum of the counts before it: src[i], dst[i] = the ends of the i-th
// forest edge by rank, weight[i] = its weight, copied bit for bit from weights (by edge id)
// of wsize bytes (4 or 8; 0: an unweighted graph, weight[i] = 1 as int64). Every thread of
// the grid calls it.
template <typename I>
__device__ __forceinline__ void order_phase(const I* forest, const u64* forest_count, u64 cap,
                                            long long m, const I* __restrict__ ends,
                                            unsigned* flag, I* part, long long* src,
                                            long long* dst,
                                            const void* weights, int wsize, void* weight,
                                            unsigned int* bar) {
    const long long k = (long long)min(__ldcg(forest_count), cap);   // more: the host reports
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < k; i += stride) {
        const long long e = (long long)__ldcg(forest + i);
        atomicOr(flag + (e >> 5), 1u << (e & 31));
    }
    grid_sync(bar);
    const long long share = (m + stride - 1) / stride * blockDim.x;     // whole tiles a block
    const long long lo = blockIdx.x * share, hi = min(m, lo + share);
    int count = 0;
    for (long long base = lo; base < hi; base += blockDim.x) {
        const long long e = base + threadIdx.x;
        count += __syncthreads_count(e < hi && flagged(flag, e));
    }
    if (threadIdx.x == 0) part[blockIdx.x] = (I)count;
    grid_sync(bar);
    long long before = sum_before(part, blockIdx.x);   // the flags of the blocks before
    long long total;
    for (long long base = lo; base < hi; base += blockDim.x) {
        const long long e = base + threadIdx.x;
        const bool in = e < hi && flagged(flag, e);
        const long long at = before + block_excl_scan(in ? 1LL : 0LL, &total);
        if (in) {
            src[at] = ends[2 * e];
            dst[at] = ends[2 * e + 1];
            if (wsize == 8)
                ((u64*)weight)[at] = ((const u64*)weights)[e];
            else if (wsize == 4)
                ((unsigned*)weight)[at] = ((const unsigned*)weights)[e];
            else
                ((long long*)weight)[at] = 1;
        }
        before += total;
    }
}

// The m bits of flag = 0.
__device__ __forceinline__ void clear_phase(unsigned* flag, long long m) {
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long w = (long long)blockIdx.x * blockDim.x + threadIdx.x; w < (m + 31) / 32;
         w += stride)
        flag[w] = 0;
}

// The phases as kernels of their own, launched one by one by the host (large graphs; the
// host reads the list lengths between batches of rounds).

template <typename I>
__global__ void msf_init(long long n, I* parent, I* minkey, u64* cnt) {
    init_phase(n, parent, minkey, cnt);
}

template <typename I>
__global__ void msf_collect(const I* __restrict__ ends, long long lo, long long hi, I* parent,
                            I* minkey, I* out, u64* count, u64 cap) {
    collect_phase(ends, lo, hi, parent, minkey, out, count, cap);
}

template <typename I>
__global__ void msf_decide(const I* list, const u64* count, const I* __restrict__ ends,
                           I* parent, const I* minkey, I* forest, u64* forest_count, u64 cap,
                           u64* other_count) {
    decide_phase(list, count, ends, parent, minkey, forest, forest_count, cap, other_count);
}

template <typename I>
__global__ void msf_join(const I* forest, const u64* joined, const u64* forest_count,
                         const I* __restrict__ ends, I* parent, I* read, long long n) {
    join_phase(forest, joined, forest_count, ends, parent, read, n);
}

template <typename I>
__global__ void msf_shrink(const I* list, const u64* count, const I* __restrict__ ends,
                           I* parent, I* minkey, I* out, u64* out_count, u64 cap, u64* joined,
                           const u64* forest_count) {
    shrink_phase(list, count, ends, parent, minkey, out, out_count, cap, joined, forest_count);
}

// Every vertex at its root (labels: the roots, unless null); with flag (not null), also
// its m bits = 0 for msf_order.
template <typename I>
__global__ void msf_flatten(long long n, I* parent, long long* label, unsigned* flag,
                            long long m) {
    flatten_phase(n, parent, label);
    if (flag) clear_phase(flag, m);
}

// order_phase in a launch of its own (cooperative: its blocks wait for each other).
template <typename I>
__global__ void __launch_bounds__(256)
msf_order(const I* forest, const u64* forest_count, u64 cap, long long m,
          const I* __restrict__ ends, unsigned* flag, I* part, long long* src,
          long long* dst, const void* weights, int wsize, void* weight, unsigned int* bar) {
    order_phase(forest, forest_count, cap, m, ends, flag, part, src, dst, weights, wsize,
                weight, bar);
}

// The whole of Borůvka in one launch (small graphs: every phase a grid barrier apart
// instead of a launch, and the rounds decided on the device). lists: the two candidate
// lists (m ids each), minkey: both minkey arrays (2n words), cnt: the lists' lengths, the
// forest's and its joined part (cnt[0..2], cnt[5]), zeroed by init_phase. The light edges
// (0..nlight - 1) run light_rounds rounds first (fewer if none is left); the heavy ones, if
// any, are filtered in then, and rounds go on until no candidate is left. Then the forest
// in rank order with its rows and weights (order_phase) and every vertex's root in label. cnt[3]:
// rounds run; cnt[4]: 1 when max_rounds were not enough (no progress: a bug, which the
// host reports).
template <typename I>
__global__ void __launch_bounds__(256)
msf_fused(const I* __restrict__ ends, long long m, long long nlight, int light_rounds,
          int max_rounds, long long n, I* parent, I* minkey, I* list0, I* list1, u64* cnt,
          I* forest, u64 forest_cap, long long* label, long long* src, long long* dst,
          const void* weights, int wsize, void* weight, unsigned int* bar) {
    init_phase(n, parent, minkey, cnt);
    grid_sync(bar);
    collect_phase(ends, 0, nlight, parent, minkey, list0, cnt, (u64)m);
    grid_sync(bar);
    int i = 0, rounds = 0;
    bool pending = nlight < m;
    while (true) {
        if (__ldcg(&cnt[i]) == 0 || (pending && rounds == light_rounds)) {
            if (!pending) break;
            pending = false;                   // the heavy edges join the candidates
            flatten_phase(n, parent, (long long*)nullptr);
            grid_sync(bar);
            collect_phase(ends, nlight, m, parent, minkey + i * n, i ? list1 : list0, cnt + i,
                          (u64)m);
            grid_sync(bar);
            continue;
        }
        if (rounds == max_rounds) {
            if (blockIdx.x == 0 && threadIdx.x == 0) cnt[4] = 1;
            break;
        }
        const int o = 1 - i;
        I* const in = i ? list1 : list0;
        decide_phase(in, cnt + i, ends, parent, minkey + i * n, forest, cnt + 2, forest_cap,
                     cnt + o);
        grid_sync(bar);
        join_phase(forest, cnt + 5, cnt + 2, ends, parent, minkey + i * n, n);
        grid_sync(bar);
        shrink_phase(in, cnt + i, ends, parent, minkey + o * n, o ? list1 : list0, cnt + o,
                     (u64)m, cnt + 5, cnt + 2);
        grid_sync(bar);
        i = o;
        ++rounds;
    }
    flatten_phase(n, parent, label);
    clear_phase((unsigned*)list0, m);          // (the lists' block, free once the rounds end)
    if (blockIdx.x == 0 && threadIdx.x == 0) cnt[3] = rounds;
    grid_sync(bar);
    order_phase(forest, cnt + 2, forest_cap, m, ends, (unsigned*)list0, list1, src, dst,
                weights, wsize,
                weight, bar);
}
