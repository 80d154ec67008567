// Fused BFS level kernels (one idea each; see docs/gpu.md). Templated over the index type I
// of the CSR arrays (int or long long); instantiated through RawModule name expressions.
//
// Shared state of one BFS run (gpu_backend/bfs_steps.py):
//   st[v]    int32 status: the level at which v was visited, UNV if unvisited (Enterprise's
//            status array). Vertices visited before the run's first fused level hold OLD.
//   pv/pp    values / presence bytes of the `parent` vector (pv = parent id, or 1 for ANY_PAIR;
//            pp null while the vector keeps no presence bytes: gpu_backend/vector.py; pv
//            null when parents are not wanted, in the whole search)
//   lv/lp    values / presence bytes of the `level` vector (lv null when levels are not
//            wanted, lp as pp)
//   cnt[0]   vertices in the new frontier, cnt[1] their out-edges, cnt[2] their in-edges
//            (LevelStats, read back with one device-to-host copy per level)
//   hc[]     hub cache, direct mapped: hc[v & (HC - 1)] = (level << 32) | v for frontier
//            vertices of out-degree >= hub_deg (written while a frontier is built, read into
//            shared memory by the next pull step).

#include "shared.cuh"

#define UNV (-1)        // all bits set: a memset of 0xFF marks every vertex unvisited
#define HC 2048
#define CTL 12          // control words of a multi-level kernel (bfs_steps.py _CTL)
#define NO_CAP 0x7fffffffffffffffLL   // a pull_level cap that no list reaches

__device__ __forceinline__ void visit(long long v, long long u, int k, long long* pv,
                                      unsigned char* pp, long long* lv, unsigned char* lp,
                                      int want_parent) {
    if (pv) {
        pv[v] = want_parent ? u : 1;
        if (pp) pp[v] = 1;
    }
    if (lv) {
        lv[v] = k;
        if (lp) lp[v] = 1;
    }
}

// Claim unvisited vertex v for level k (status UNV -> k); true for the one thread that wins.
__device__ __forceinline__ bool claim(int* st, long long v, int k) {
    return st[v] == UNV && atomicCAS(&st[v], UNV, k) == UNV;
}

template <typename I>
__device__ __forceinline__ unsigned long long deg_of(const I* ptr, long long v) {
    return ptr ? (unsigned long long)(ptr[v + 1] - ptr[v]) : 0ull;
}

// Count vertex v, visited at level k with out-degree d and in-degree di, into a thread's
// level stats and, when d reaches hub_deg, record it in the hub cache with its level.
__device__ __forceinline__ void note_visit(long long v, int k, unsigned long long d,
                                           unsigned long long di, long long hub_deg,
                                           unsigned long long* hc, unsigned long long& dout,
                                           unsigned long long& din) {
    dout += d;
    din += di;
    if ((long long)d >= hub_deg)
        hc[v & (HC - 1)] = ((unsigned long long)k << 32) | (unsigned long long)v;
}

// note_visit with the degrees read from the row pointers; returns the out-degree.
template <typename I>
__device__ __forceinline__ unsigned long long count_visit(long long v, int k, const I* out_ptr,
                                                          const I* in_ptr, long long hub_deg,
                                                          unsigned long long* hc,
                                                          unsigned long long& dout,
                                                          unsigned long long& din) {
    const unsigned long long d = deg_of(out_ptr, v);
    note_visit(v, k, d, deg_of(in_ptr, v), hub_deg, hc, dout, din);
    return d;
}

// Reduce four per-thread counts over the block and add each to its target with one atomic
// per block (a null target is skipped); the fourth is combined by max instead of sum when
// d_is_max. All threads of the block call it.
__device__ __forceinline__ void block_add_to(unsigned long long a, unsigned long long b,
                                             unsigned long long c, unsigned long long d,
                                             unsigned long long* da, unsigned long long* db,
                                             unsigned long long* dc, unsigned long long* dd,
                                             bool d_is_max = false) {
    __shared__ unsigned long long part[4][32];
    int lane = threadIdx.x & 31, wid = threadIdx.x >> 5, nw = blockDim.x >> 5;
    for (int o = 16; o > 0; o >>= 1) {
        a += __shfl_down_sync(0xffffffffu, a, o);
        b += __shfl_down_sync(0xffffffffu, b, o);
        c += __shfl_down_sync(0xffffffffu, c, o);
        unsigned long long e = __shfl_down_sync(0xffffffffu, d, o);
        d = d_is_max ? max(d, e) : d + e;
    }
    if (lane == 0) { part[0][wid] = a; part[1][wid] = b; part[2][wid] = c; part[3][wid] = d; }
    __syncthreads();
    if (threadIdx.x == 0) {
        unsigned long long t[4] = {0, 0, 0, 0};
        for (int w = 0; w < nw; ++w) {
            for (int i = 0; i < 3; ++i) t[i] += part[i][w];
            t[3] = d_is_max ? max(t[3], part[3][w]) : t[3] + part[3][w];
        }
        unsigned long long* to[4] = {da, db, dc, dd};
        for (int i = 0; i < 4; ++i) {
            if (!to[i] || !t[i]) continue;
            if (i == 3 && d_is_max) atomicMax(to[i], t[i]); else atomicAdd(to[i], t[i]);
        }
    }
}

// As block_add_to (the fourth by max), by warps: one atomic per warp and target, no block
// barrier. All threads of each warp call it.
__device__ __forceinline__ void warp_add_to(unsigned long long a, unsigned long long b,
                                            unsigned long long c, unsigned long long d,
                                            unsigned long long* da, unsigned long long* db,
                                            unsigned long long* dc, unsigned long long* dd) {
    for (int o = 16; o > 0; o >>= 1) {
        a += __shfl_down_sync(0xffffffffu, a, o);
        b += __shfl_down_sync(0xffffffffu, b, o);
        c += __shfl_down_sync(0xffffffffu, c, o);
        d = max(d, __shfl_down_sync(0xffffffffu, d, o));
    }
    if ((threadIdx.x & 31) == 0) {
        if (da && a) atomicAdd(da, a);
        if (db && b) atomicAdd(db, b);
        if (dc && c) atomicAdd(dc, c);
        if (dd && d) atomicMax(dd, d);
    }
}

// Append the flagged vertex of each thread to `queue` in block order: a block scan gives
// each its slot, one atomicAdd per block (only when it has any) reserves the block's range.
template <typename I>
__device__ __forceinline__ void block_append(bool flag, long long v, I* queue,
                                             unsigned long long* counter) {
    __shared__ unsigned long long base;
    int total;
    int off = block_excl_scan(flag ? 1 : 0, &total);
    if (total == 0) return;                       // uniform across the block
    if (threadIdx.x == 0) base = atomicAdd(counter, (unsigned long long)total);
    __syncthreads();
    if (flag) queue[base + off] = (I)v;
    __syncthreads();
}

// ---------------------------------------------------------------------------------------
// The vertices v < n with status st[v] == val, by warps aligned on 32 vertices (every thread
// of a block runs the same number of rounds): each word of their bits (one a warp, by
// ballot) goes to store(word index, word), and every thread calls each(v, flag). The status
// is read past L1 (other blocks of the launch may have written it).
template <class Store, class Each>
__device__ __forceinline__ void status_words(const int* __restrict__ st, long long n, int val,
                                             Store store, Each each) {
    for (long long base = (long long)blockIdx.x * blockDim.x; base < n;
         base += (long long)gridDim.x * blockDim.x) {
        const long long v = base + threadIdx.x;
        const bool flag = v < n && __ldcg(&st[v]) == val;
        const unsigned word = __ballot_sync(0xffffffffu, flag);
        if ((threadIdx.x & 31) == 0 && v < n) store(v >> 5, word);
        each(v, flag);
    }
}

// status_words' store into one bitmap, or none where bits is null.
__device__ __forceinline__ auto into(unsigned* bits) {
    return [bits](long long w, unsigned word) { if (bits) bits[w] = word; };
}

// Frontier queue from the status array (Enterprise): vertices with st[v] == k, no
// duplicates, no per-vertex atomics. Also the level's stats, the hub cache and, unless
// bits is null, the frontier's bitmap (one ballot per word).
template <typename I>
__global__ void compact_status(const int* __restrict__ st, long long n, int k, I* queue,
                               const I* __restrict__ out_ptr, const I* __restrict__ in_ptr,
                               unsigned long long* cnt, unsigned long long* hc,
                               long long hub_deg, unsigned* bits) {
    unsigned long long dout = 0, din = 0;
    status_words(st, n, k, into(bits), [&](long long v, bool flag) {
        if (flag) count_visit(v, k, out_ptr, in_ptr, hub_deg, hc, dout, din);
        block_append(flag, v, queue, cnt);
    });
    block_add_to(dout, din, 0, 0, cnt + 1, cnt + 2, nullptr, nullptr);
}

// ---------------------------------------------------------------------------------------
// PMPP 15.2: vertex-centric push. One thread per vertex; a vertex of the frontier (st ==
// k-1) visits its unvisited out-neighbours. Racing writers store the same level and one of
// the valid parents. The frontier queue is built afterwards by compact_status.
template <typename I>
__global__ void push_vertex(const I* __restrict__ indptr, const I* __restrict__ indices,
                            long long n, int* st, int k, long long* pv, unsigned char* pp,
                            long long* lv, unsigned char* lp, int want_parent) {
    for (long long u = (long long)blockIdx.x * blockDim.x + threadIdx.x; u < n;
         u += (long long)gridDim.x * blockDim.x) {
        if (st[u] != k - 1) continue;
        for (long long p = indptr[u]; p < (long long)indptr[u + 1]; ++p) {
            long long v = indices[p];
            if (st[v] == UNV) { st[v] = k; visit(v, u, k, pv, pp, lv, lp, want_parent); }
        }
    }
}

// PMPP 15.3: vertex-centric pull. One thread per unvisited vertex scans its in-neighbours
// (rows of the transpose) and stops at the first one in the frontier.
template <typename I>
__global__ void pull_vertex(const I* __restrict__ tptr, const I* __restrict__ tind, long long n,
                            int* st, int k, long long* pv, unsigned char* pp, long long* lv,
                            unsigned char* lp, int want_parent) {
    for (long long v = (long long)blockIdx.x * blockDim.x + threadIdx.x; v < n;
         v += (long long)gridDim.x * blockDim.x) {
        if (st[v] != UNV) continue;
        for (long long p = tptr[v]; p < (long long)tptr[v + 1]; ++p) {
            long long u = tind[p];
            if (st[u] == k - 1) { st[v] = k; visit(v, u, k, pv, pp, lv, lp, want_parent); break; }
        }
    }
}

// PMPP 15.4: edge-centric. One thread per stored edge (COO rows[e] -> indices[e]).
template <typename I>
__global__ void edge_centric(const I* __restrict__ rows, const I* __restrict__ indices,
                             long long m, int* st, int k, long long* pv, unsigned char* pp,
                             long long* lv, unsigned char* lp, int want_parent) {
    for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < m;
         e += (long long)gridDim.x * blockDim.x) {
        long long u = rows[e];
        if (st[u] != k - 1) continue;
        long long v = indices[e];
        if (st[v] == UNV) { st[v] = k; visit(v, u, k, pv, pp, lv, lp, want_parent); }
    }
}

// PMPP 15.5: frontier queue in, frontier queue out; atomicCAS claims a vertex once and an
// atomicAdd on the global counter gives it a slot in the next queue.
template <typename I>
__global__ void queue_push(const I* __restrict__ indptr, const I* __restrict__ indices,
                           const I* __restrict__ q, long long nq, I* nxt, int* st, int k,
                           long long* pv, unsigned char* pp, long long* lv, unsigned char* lp,
                           int want_parent, const I* __restrict__ in_ptr,
                           unsigned long long* cnt) {
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < nq;
         i += (long long)gridDim.x * blockDim.x) {
        long long u = q[i];
        for (long long p = indptr[u]; p < (long long)indptr[u + 1]; ++p) {
            long long v = indices[p];
            if (claim(st, v, k)) {
                visit(v, u, k, pv, pp, lv, lp, want_parent);
                nxt[atomicAdd(&cnt[0], 1ull)] = (I)v;
                atomicAdd(&cnt[1], deg_of(indptr, v));
                if (in_ptr) atomicAdd(&cnt[2], deg_of(in_ptr, v));
            }
        }
    }
}

// PMPP 15.6: as queue_push, with a block-private queue in shared memory; the block copies
// it out with one global atomicAdd. Overflow goes straight to the global queue.
#define QCAP 2048
template <typename I>
__global__ void queue_push_private(const I* __restrict__ indptr, const I* __restrict__ indices,
                                   const I* __restrict__ q, long long nq, I* nxt, int* st, int k,
                                   long long* pv, unsigned char* pp, long long* lv,
                                   unsigned char* lp, int want_parent,
                                   const I* __restrict__ in_ptr, unsigned long long* cnt) {
    __shared__ I sq[QCAP];
    __shared__ unsigned int scount;
    __shared__ unsigned long long sdeg[2];
    __shared__ unsigned long long sbase;
    if (threadIdx.x == 0) { scount = 0; sdeg[0] = 0; sdeg[1] = 0; }
    __syncthreads();
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < nq;
         i += (long long)gridDim.x * blockDim.x) {
        long long u = q[i];
        for (long long p = indptr[u]; p < (long long)indptr[u + 1]; ++p) {
            long long v = indices[p];
            if (claim(st, v, k)) {
                visit(v, u, k, pv, pp, lv, lp, want_parent);
                unsigned int slot = atomicAdd(&scount, 1u);
                if (slot < QCAP) sq[slot] = (I)v;
                else nxt[atomicAdd(&cnt[0], 1ull)] = (I)v;
                atomicAdd(&sdeg[0], deg_of(indptr, v));
                if (in_ptr) atomicAdd(&sdeg[1], deg_of(in_ptr, v));
            }
        }
    }
    __syncthreads();
    unsigned int m = scount < QCAP ? scount : QCAP;
    if (threadIdx.x == 0) {
        sbase = m ? atomicAdd(&cnt[0], (unsigned long long)m) : 0;
        if (sdeg[0]) atomicAdd(&cnt[1], sdeg[0]);
        if (sdeg[1]) atomicAdd(&cnt[2], sdeg[1]);
    }
    __syncthreads();
    for (unsigned int j = threadIdx.x; j < m; j += blockDim.x) nxt[sbase + j] = sq[j];
}

// ---------------------------------------------------------------------------------------
// Production push ("push_balanced"): out-degrees of the frontier queue and their inclusive
// prefix sum (cupy.cumsum) split the level's edges evenly over all threads; each thread
// finds the frontier vertex owning its edge by binary search (merge-path style load
// balance, so one hub and many leaves cost the same per edge). Claims are benign writes of
// the status array; compact_status then builds the next queue without atomics per vertex.
template <typename I>
__global__ void queue_degrees(const I* __restrict__ indptr, const I* __restrict__ q, long long nq,
                              long long* deg) {
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < nq;
         i += (long long)gridDim.x * blockDim.x) {
        long long u = q[i];
        deg[i] = (long long)(indptr[u + 1] - indptr[u]);
    }
}

// Inclusive prefix sum of value(0..len) into prefix (global or shared memory), by one
// block: each thread sums a contiguous chunk, one block scan, then each writes its chunk's
// running sums.
template <class Value>
__device__ __forceinline__ void block_prefix(long long len, Value value, long long* prefix) {
    const long long per = (len + blockDim.x - 1) / blockDim.x;
    const long long lo = min(len, threadIdx.x * per), hi = min(len, lo + per);
    long long sum = 0;
    for (long long i = lo; i < hi; ++i) sum += value(i);
    long long total;
    long long run = block_excl_scan(sum, &total);
    for (long long i = lo; i < hi; ++i) {
        run += value(i);
        prefix[i] = run;
    }
}

// block_prefix of the out-degrees of q[0..nq). Reads bypass L1 (q may have been written by
// other blocks of a persistent kernel).
template <typename I>
__device__ __forceinline__ void block_degree_prefix(const I* __restrict__ indptr, const I* q,
                                                    long long nq, long long* prefix) {
    block_prefix(nq, [&](long long i) {
        return (long long)deg_of(indptr, (long long)__ldcg(&q[i]));
    }, prefix);
}

// A word of shared memory, or of global memory that other blocks may have written (read
// past L1).
__device__ __forceinline__ long long load_word(const long long* p) {
    return __isShared(p) ? *p : __ldcg(p);
}

// The same prefix sum for a short queue in one launch of one block.
template <typename I>
__global__ void queue_prefix(const I* __restrict__ indptr, const I* __restrict__ q, long long nq,
                             long long* prefix) {
    block_degree_prefix(indptr, q, nq, prefix);
}

// Edge e of a frontier whose out-degrees have the inclusive prefix sum prefix[0..nq): the
// queue position i of its source (binary search) and e's offset in that vertex's row.
__device__ __forceinline__ long long edge_source(const long long* prefix, long long nq,
                                                 long long e, long long& offset) {
    long long lo = 0, hi = nq - 1;
    while (lo < hi) {
        const long long mid = (lo + hi) >> 1;
        if (load_word(&prefix[mid]) > e) hi = mid; else lo = mid + 1;
    }
    offset = e - (lo ? load_word(&prefix[lo - 1]) : 0);
    return lo;
}

// Edges tid, tid + nthreads, ... of a frontier queue q whose out-degrees (row pointers
// indptr) have the inclusive prefix sum prefix[0..nq): each claims its unvisited target.
// load(p) reads q (past L1 where other blocks of the launch wrote it).
template <typename I, class Load>
__device__ __forceinline__ void push_edges(const I* __restrict__ indptr,
                                           const I* __restrict__ indices, const I* q,
                                           const long long* prefix, long long nq,
                                           long long tid, long long nthreads, Load load,
                                           int* st, int k, long long* pv, unsigned char* pp,
                                           long long* lv, unsigned char* lp, int want_parent) {
    if (nq == 0) return;
    const long long total = load_word(&prefix[nq - 1]);
    for (long long e = tid; e < total; e += nthreads) {
        long long offset;
        const long long u = load(&q[edge_source(prefix, nq, e, offset)]);
        const long long v = indices[(long long)indptr[u] + offset];
        if (st[v] == UNV) { st[v] = k; visit(v, u, k, pv, pp, lv, lp, want_parent); }
    }
}

template <typename I>
__global__ void push_balanced(const I* __restrict__ indptr, const I* __restrict__ indices,
                              const I* __restrict__ q, const long long* __restrict__ prefix,
                              long long nq, int* st, int k, long long* pv, unsigned char* pp,
                              long long* lv, unsigned char* lp, int want_parent) {
    push_edges(indptr, indices, q, prefix, nq,
               (long long)blockIdx.x * blockDim.x + threadIdx.x,
               (long long)gridDim.x * blockDim.x, [](const I* p) { return (long long)*p; },
               st, k, pv, pp, lv, lp, want_parent);
}

// The result words of a multi-level kernel: in-edges of all vertices visited, last level
// run, its frontier size and out-edges, and a fifth word of the kernel's own. One thread
// stores them straight into the caller's pinned host memory (one address space with the
// device), where the host reads them once the stream has synchronized: no copy to launch.
__device__ __forceinline__ void publish(unsigned long long* out, unsigned long long vin,
                                        unsigned long long last, unsigned long long nq,
                                        unsigned long long fe, unsigned long long extra) {
    out[0] = vin; out[1] = last; out[2] = nq; out[3] = fe; out[4] = extra;
    __threadfence_system();
}

// Frontier test of pull_hub: the shared-memory hub cache (entries tagged with the level),
// then the frontier's n-bit bitmap, which is small enough to stay in cache.
__device__ __forceinline__ bool in_frontier(long long u, const unsigned long long* cache,
                                            unsigned long long tag, const unsigned* fbits) {
    return cache[u & (HC - 1)] == (tag | (unsigned long long)u) ||
           ((fbits[u >> 5] >> (u & 31)) & 1u);
}

// The parent that entry q of a pull list holds if it is in the frontier, else -1. The
// entry is an in-neighbour's id (tind[q]), or, in a packed list (pk not null: pk[q], see
// DeviceMatrix.packed_lists), a word of the frontier bitmap above the mask of the
// in-neighbours among that word's 32 ids, the lowest of them in the frontier the parent.
template <typename I>
__device__ __forceinline__ long long list_hit(const I* __restrict__ tind,
                                              const unsigned long long* __restrict__ pk,
                                              long long q, const unsigned long long* cache,
                                              unsigned long long tag, const unsigned* fbits) {
    if (pk) {
        const unsigned long long e = pk[q];
        const unsigned b = fbits[e >> 32] & (unsigned)e;
        return b ? (long long)((e >> 32) << 5) + __ffs(b) - 1 : -1;
    }
    const long long x = (long long)tind[q];
    return in_frontier(x, cache, tag, fbits) ? x : -1;
}

// One level l of the production pull ("pull_hub"), by every warp of the grid. Each warp owns
// 32 consecutive vertices, one bitmap word. An unvisited vertex scans its in-neighbours (in
// decreasing out-degree, DeviceMatrix.pull_lists) for one in the frontier: the first
// `serial` alone, then, for a longer list, the whole warp 32 at a time, so one long list
// does not leave 31 lanes idle. The first comes from heads[v] (-1: none), read like the
// status, contiguously: most vertices stop there, without reading their row pointers or a
// scattered entry of tind. The frontier's hubs, cached in hc[] by the step that found them,
// are loaded into shared memory (`cache`, HC words) first. The warp's hits become its word
// of the next frontier bitmap nbits with one ballot and one store (no atomics, no zeroing);
// fbits holds the frontier of level l-1. A list is tried up to its first `cap` entries
// (the rest: pull_long). With packed lists (pk not null; tptr their row pointers) the
// entries are words of in-neighbours (list_hit), tried after heads[v] from the first, and
// every frontier test reads the bitmap (no hub cache).
// Counters: the vertices found, their out- and in-edges and (MAX) their largest
// out-degree, one atomic per block each; unless c_cut is null, the vertices whose list was
// cut at `cap` without a hit (what pull_long has to finish), one atomic per warp that has
// any.
template <typename I, bool MAX>
__device__ __forceinline__ void pull_level(
        const I* __restrict__ tptr, const I* __restrict__ tind,
        const unsigned long long* __restrict__ pk, const I* __restrict__ heads,
        long long n, int* st, int l, long long* pv, unsigned char* pp, long long* lv,
        unsigned char* lp, int want_parent, const I* __restrict__ out_ptr,
        const I* __restrict__ in_ptr, unsigned long long* hc, long long hub_deg,
        const unsigned* fbits, unsigned* nbits, int serial, long long cap,
        unsigned long long* cache, unsigned long long* c_found, unsigned long long* c_out,
        unsigned long long* c_in, unsigned long long* c_max, unsigned long long* c_cut) {
    const unsigned full = 0xffffffffu;
    const int lane = threadIdx.x & 31;
    const long long words = (n + 31) >> 5;
    const long long warp = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const long long nwarps = ((long long)gridDim.x * blockDim.x) >> 5;
    if (!pk) {                  // packed lists test bitmap words: no use for the cache
        for (int j = threadIdx.x; j < HC; j += blockDim.x) cache[j] = hc[j];
        __syncthreads();
    }
    const unsigned long long tag = (unsigned long long)(l - 1) << 32;
    unsigned long long found = 0, dout = 0, din = 0, dmax = 0;
    unsigned cut_left = 0;
    for (long long w = warp; w < words; w += nwarps) {
        const long long v = (w << 5) + lane;
        I p = 0, end = 0;
        long long u = 0;
        bool hit = false, cut = false;
        if (v < n && st[v] == UNV && (u = heads[v]) >= 0) {
            hit = pk ? (fbits[u >> 5] >> (u & 31)) & 1u : in_frontier(u, cache, tag, fbits);
            if (!hit) {
                const I start = tptr[v];
                p = pk ? start : start + 1;     // a packed list holds heads[v] too
                end = tptr[v + 1];
                cut = (long long)(end - start) > cap;
                if (cut) end = (I)(start + cap);
                for (int t = 1; t < serial && p < end; ++t, ++p) {
                    const long long x = list_hit(tind, pk, p, cache, tag, fbits);
                    if (x >= 0) { u = x; hit = true; break; }
                }
            }
        }
        for (unsigned todo = __ballot_sync(full, !hit && p < end); todo; todo &= todo - 1) {
            const int src = __ffs(todo) - 1;
            const I e = __shfl_sync(full, end, src);
            for (I q = __shfl_sync(full, p, src); q < e; q += 32) {
                const long long x = q + lane < e ? list_hit(tind, pk, q + lane, cache, tag,
                                                            fbits) : -1;
                const unsigned hits = __ballot_sync(full, x >= 0);
                if (hits) {
                    const long long first = __shfl_sync(full, x, __ffs(hits) - 1);
                    if (lane == src) { u = first; hit = true; }
                    break;
                }
            }
        }
        const unsigned word = __ballot_sync(full, hit);
        if (lane == 0) nbits[w] = word;
        cut_left += cut && !hit;
        if (hit) {
            st[v] = l;
            visit(v, u, l, pv, pp, lv, lp, want_parent);
            ++found;
            const unsigned long long d = count_visit(v, l, out_ptr, in_ptr, hub_deg, hc, dout,
                                                     din);
            if (MAX) dmax = max(dmax, d);
        }
    }
    if (c_cut) {
        cut_left = __reduce_add_sync(full, cut_left);
        if (lane == 0 && cut_left) atomicAdd(c_cut, (unsigned long long)cut_left);
    }
    block_add_to(found, dout, din, dmax, c_found, c_out, c_in, MAX ? c_max : nullptr, MAX);
}

// The rest of the long in-lists of a pull level l, after pull_level tried their first
// entries (its `cap`) and a barrier: `items` lists (v, first entry) pairs, chunks of at most
// `chunk` entries of the long lists beyond the cap; a warp takes a chunk of a vertex
// still unvisited and tries its entries 32 at a time, so that the grid shares a long list
// (one warp scanning a hub's list of 18,000 entries held whole pull levels of a web crawl
// at 0.6 ms). The first hit claims v (atomicCAS on the status, other chunks may hit too),
// visits it, sets its bit of nbits (atomicOr: the word's owner stored it before the
// barrier) and counts it as pull_level does. cache, tag, fbits: as pull_level's.
template <typename I>
__device__ __forceinline__ void pull_long(
        const I* __restrict__ tptr, const I* __restrict__ tind,
        const unsigned long long* __restrict__ pk, const long long* items,
        long long nitems, long long chunk, int* st, int l, long long* pv, long long* lv,
        int want_parent, const I* __restrict__ out_ptr, const I* __restrict__ in_ptr,
        unsigned long long* hc, long long hub_deg, const unsigned* fbits, unsigned* nbits,
        const unsigned long long* cache, unsigned long long* c_found, unsigned long long* c_out,
        unsigned long long* c_in, unsigned long long* c_max) {
    const unsigned full = 0xffffffffu;
    const int lane = threadIdx.x & 31;
    const long long warp = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const long long nwarps = ((long long)gridDim.x * blockDim.x) >> 5;
    const unsigned long long tag = (unsigned long long)(l - 1) << 32;
    unsigned long long found = 0, dout = 0, din = 0, dmax = 0;
    for (long long i = warp; i < nitems; i += nwarps) {
        const long long v = items[2 * i];
        if (*(volatile int*)&st[v] != UNV) continue;
        const long long first = (long long)tptr[v] + items[2 * i + 1];
        const long long end = min((long long)tptr[v + 1], first + chunk);
        for (long long q = first; q < end; q += 32) {
            const long long x = q + lane < end ? list_hit(tind, pk, q + lane, cache, tag, fbits)
                                               : -1;
            const unsigned hits = __ballot_sync(full, x >= 0);
            if (hits) {
                const long long u = __shfl_sync(full, x, __ffs(hits) - 1);
                if (lane == 0 && atomicCAS(&st[v], UNV, l) == UNV) {
                    visit(v, u, l, pv, nullptr, lv, nullptr, want_parent);
                    atomicOr(&nbits[v >> 5], 1u << (v & 31));
                    ++found;
                    dmax = max(dmax, count_visit(v, l, out_ptr, in_ptr, hub_deg, hc, dout, din));
                }
                break;
            }
        }
    }
    block_add_to(found, dout, din, dmax, c_found, c_out, c_in, c_max, true);
}

// Production pull ("pull_hub"), levels k, k+1, ... in one launch of pull_level: bits0 holds
// the frontier of level k-1, levels alternate between bits0 and bits1.
// After each level a grid barrier (a cooperative launch: all blocks resident) lets every
// block read the level's frontier size; the loop goes on while the frontier is non-empty,
// fewer than max_levels ran and it grew or holds at least min_nq vertices (the direction
// rule's pull condition; see lagraph_py/algorithms/bfs.py).
// ctl: [0..2] frontier sizes, [3..5] their out-edges (rotating by level), [6] in-edges of
// all vertices visited; zero at launch. ctl_next: the next multi-level launch's control
// words, zeroed here (so no launch needs a memset first). bar: see grid_sync. Results:
// publish to out.
template <typename I>
__global__ void __launch_bounds__(512, 4)
pull_hub(const I* __restrict__ tptr, const I* __restrict__ tind, const I* __restrict__ heads,
         long long n, int* st, int k,
         long long* pv, unsigned char* pp, long long* lv, unsigned char* lp, int want_parent,
         const I* __restrict__ out_ptr, const I* __restrict__ in_ptr, unsigned long long* ctl,
         unsigned long long* ctl_next, unsigned long long* hc, long long hub_deg,
         unsigned* bits0, unsigned* bits1, int serial, long long prev_nq, long long min_nq,
         int max_levels, unsigned int* bar, unsigned long long* out) {
    __shared__ unsigned long long cache[HC];
    if (blockIdx.x == 0 && threadIdx.x < CTL) ctl_next[threadIdx.x] = 0;
    for (int l = k, r = 0;; ++l, r = (r + 1) % 3) {
        if (blockIdx.x == 0 && threadIdx.x == 0) {      // slot of level l+1, last read at l-2
            int z = (r + 1) % 3;
            ctl[z] = 0; ctl[3 + z] = 0;
        }
        pull_level<I, false>(tptr, tind, nullptr, heads, n, st, l, pv, pp, lv, lp, want_parent,
                             out_ptr, in_ptr, hc, hub_deg, (l - k) & 1 ? bits1 : bits0,
                             (l - k) & 1 ? bits0 : bits1, serial, NO_CAP, cache, &ctl[r],
                             &ctl[3 + r], &ctl[6], (unsigned long long*)nullptr,
                             (unsigned long long*)nullptr);
        grid_sync(bar);
        const long long nq = (long long)*(volatile unsigned long long*)&ctl[r];
        if (nq == 0 || l - k + 1 >= max_levels || (nq <= prev_nq && nq < min_nq)) {
            if (blockIdx.x == 0 && threadIdx.x == 0)
                publish(out, *(volatile unsigned long long*)&ctl[6], l, nq,
                        *(volatile unsigned long long*)&ctl[3 + r], 0);
            return;
        }
        prev_nq = nq;
    }
}

// Frontier bitmap of the vertices with status `val` (for a pull after a push step): one
// word per warp from a ballot, no atomics.
extern "C" __global__ void status_bits(const int* __restrict__ st, long long n, int val,
                                       unsigned* bits) {
    status_words(st, n, val, into(bits), [](long long, bool) {});
}

// ---------------------------------------------------------------------------------------
// Append the set bits of a bitmap (vertex ids) to queue, a thread per word: one atomicAdd
// on counter (zeroed by the caller) per warp. Unless qdeg is null, each vertex's out-degree
// (row pointers indptr) is stored at its queue position in qdeg.
template <typename I>
__device__ __forceinline__ void bits_to_queue(const unsigned* bits, long long words, I* queue,
                                              unsigned long long* counter, long long tid,
                                              long long nthreads,
                                              const I* __restrict__ indptr = nullptr,
                                              long long* qdeg = nullptr) {
    const int lane = threadIdx.x & 31;
    for (long long b = tid - lane; b < words; b += nthreads) {   // warps stay converged
        const long long w = b + lane;
        unsigned word = w < words ? bits[w] : 0u;
        const unsigned c = __popc(word);
        unsigned upto = c;                                        // inclusive warp scan
        for (int o = 1; o < 32; o <<= 1) {
            unsigned y = __shfl_up_sync(0xffffffffu, upto, o);
            if (lane >= o) upto += y;
        }
        unsigned long long base = 0;
        if (lane == 31 && upto) base = atomicAdd(counter, (unsigned long long)upto);
        base = __shfl_sync(0xffffffffu, base, 31) + upto - c;
        for (; word; word &= word - 1, ++base) {
            const long long v = (w << 5) + __ffs(word) - 1;
            queue[base] = (I)v;
            if (qdeg) qdeg[base] = (long long)deg_of(indptr, v);
        }
    }
}

// Queue of the set bits of a frontier bitmap (left by pull_hub), when a step asks for it.
template <typename I>
__global__ void bits_queue(const unsigned* __restrict__ bits, long long words, I* queue,
                           unsigned long long* counter) {
    bits_to_queue(bits, words, queue, counter,
                  (long long)blockIdx.x * blockDim.x + threadIdx.x,
                  (long long)gridDim.x * blockDim.x);
}

// The bitmap of the vertices of q[0..nq), by threads tid of nthreads: the words zeroed,
// `sync()` (a barrier of those threads), then one atomicOr per vertex.
template <typename I, class Sync>
__device__ __forceinline__ void queue_bits(const I* q, long long nq, unsigned* bits,
                                           long long words, long long tid, long long nthreads,
                                           Sync sync) {
    for (long long w = tid; w < words; w += nthreads) bits[w] = 0u;
    sync();
    for (long long i = tid; i < nq; i += nthreads) {
        const long long v = __ldcg(&q[i]);
        atomicOr(&bits[v >> 5], 1u << (v & 31));
    }
}

// Group size of a push level (virtual warps): the power of two covering the frontier's
// largest out-degree, at most 32, widened while that leaves threads idle.
__device__ __forceinline__ long long group_size(unsigned long long max_deg, long long nq,
                                                long long nthreads) {
    long long g = 1;
    while (g < 32 && (unsigned long long)g < max_deg) g <<= 1;
    while (2 * g * nq <= nthreads) g <<= 1;
    return g;
}

// One edge u -> v of a push level: claim v, visit and count it, and add it to the next
// frontier: into the bitmap nbits (one atomicOr; my_found counts it) unless that is null,
// else into the queue nxt (one atomicAdd on *cq per group of claiming lanes, which must be
// converged here; nxt_deg, unless null, gets v's out-degree beside its entry, and snxt a
// copy of the entry when it falls among the first scap: a copy in shared memory). SOLO (one
// block, a small frontier, where each level waits on its slowest chain of loads): the claim
// is one atomicCAS without a first read of the status, and v's degrees are read before it,
// so that those loads overlap the atomic.
template <typename I, bool SOLO>
__device__ __forceinline__ void push_edge(long long u, long long v, int k, int* st,
                                          unsigned* nbits, I* nxt, long long* nxt_deg, I* snxt,
                                          long long scap, unsigned long long* cq,
                                          long long* pv, unsigned char* pp, long long* lv,
                                          unsigned char* lp, int want_parent,
                                          const I* __restrict__ indptr,
                                          const I* __restrict__ in_ptr, long long hub_deg,
                                          unsigned long long* hc, unsigned long long& my_found,
                                          unsigned long long& my_out, unsigned long long& my_in,
                                          unsigned long long& my_max) {
    unsigned long long d = 0, di = 0, at = 0;
    if (SOLO) {
        d = deg_of(indptr, v);
        di = deg_of(in_ptr, v);
    }
    const bool claimed = SOLO ? atomicCAS(&st[v], UNV, k) == UNV : claim(st, v, k);
    if (nbits) {
        if (!claimed) return;
        atomicOr(&nbits[v >> 5], 1u << (v & 31));
        ++my_found;
    } else {
        const unsigned active = __activemask();
        const unsigned ballot = __ballot_sync(active, claimed);
        if (!ballot) return;
        const int lane = threadIdx.x & 31;
        const int leader = __ffs(ballot) - 1;
        unsigned long long base = 0;
        if (lane == leader) base = atomicAdd(cq, (unsigned long long)__popc(ballot));
        base = __shfl_sync(active, base, leader);
        if (!claimed) return;
        at = base + __popc(ballot & ((1u << lane) - 1u));
        nxt[at] = (I)v;
        if (snxt && at < (unsigned long long)scap) snxt[at] = (I)v;
    }
    visit(v, u, k, pv, pp, lv, lp, want_parent);
    if (!SOLO) {
        d = deg_of(indptr, v);
        di = deg_of(in_ptr, v);
    }
    note_visit(v, k, d, di, hub_deg, hc, my_out, my_in);
    if (nxt_deg && !nbits) nxt_deg[at] = (long long)d;
    my_max = max(my_max, d);
}

// One push level k: the frontier cur[0..nq), of largest out-degree max_deg, expands into
// the next (push_edge: a queue nxt, or the bitmap nbits unless null). Threads tid <
// nthreads take part: the first nthreads / blockDim.x blocks of the grid, each of whose
// threads calls it (SOLO: one block, and cur may lie in shared memory). A group of g
// threads expands each frontier vertex (group_size), so a one-vertex frontier spreads over
// all threads and a grid graph uses 4 threads a vertex. A level whose largest out-degree
// exceeds `balance` rounds of its groups (a hub among leaves; `balance_short` for a team's
// frontier of at most HC vertices, whose prefix each block makes alone) is expanded
// edge-balanced instead, as push_balanced does: `prefix()` returns the inclusive prefix sum
// of the frontier's out-degrees (after the barrier it needs), and every thread takes every
// nthreads-th edge, finding its source by binary search. Counters, one atomic per block
// (SOLO: per warp) each: *cq the next frontier's size, *ce its out-edges, *cin its
// in-edges, *cmax its largest out-degree.
template <typename I, bool SOLO, class Prefix>
__device__ __forceinline__ void push_level(
        const I* __restrict__ indptr, const I* __restrict__ indices, const I* __restrict__ in_ptr,
        const I* cur, long long nq, unsigned long long max_deg, long long balance,
        long long balance_short,
        unsigned* nbits, I* nxt, long long* nxt_deg, I* snxt, long long scap,
        unsigned long long* cq, int k, int* st, long long* pv, unsigned char* pp, long long* lv,
        unsigned char* lp, int want_parent, unsigned long long* hc, long long hub_deg,
        unsigned long long* ce, unsigned long long* cin, unsigned long long* cmax, long long tid,
        long long nthreads, Prefix prefix) {
    auto at = [&](long long i) -> long long {      // a queue entry written by other blocks
        return SOLO ? (long long)cur[i] : (long long)__ldcg(&cur[i]);
    };
    auto edge = [&](long long u, long long v, unsigned long long& found,
                    unsigned long long& out, unsigned long long& in, unsigned long long& mx) {
        push_edge<I, SOLO>(u, v, k, st, nbits, nxt, nxt_deg, snxt, scap, cq, pv, pp, lv, lp,
                           want_parent, indptr, in_ptr, hub_deg, hc, found, out, in, mx);
    };
    const long long g = group_size(max_deg, nq, nthreads);
    unsigned long long my_found = 0, my_out = 0, my_in = 0, my_max = 0;
    if (!SOLO && nq <= HC) balance = balance_short;
    if (max_deg > (unsigned long long)(balance * g)) {            // edge-balanced level
        const long long* scan = prefix();
        const long long total = tid < nthreads ? load_word(&scan[nq - 1]) : 0;
        for (long long e = tid; e < total; e += nthreads) {
            long long offset;
            const long long u = at(edge_source(scan, nq, e, offset));
            edge(u, (long long)indices[(long long)indptr[u] + offset], my_found, my_out, my_in,
                 my_max);
        }
    } else {                                                      // a group per vertex
        const long long ngroups = nthreads / g;
        for (long long w = tid / g; w < nq && tid < ngroups * g; w += ngroups) {
            const long long u = at(w);
            const long long end = indptr[u + 1];
            for (long long p = indptr[u] + tid % g; p < end; p += g)
                edge(u, (long long)indices[p], my_found, my_out, my_in, my_max);
        }
    }
    unsigned long long* cfound = nbits ? cq : nullptr;
    if (SOLO) warp_add_to(my_out, my_in, my_found, my_max, ce, cin, cfound, cmax);
    else block_add_to(my_out, my_in, my_found, my_max, ce, cin, cfound, cmax, true);
}

// Persistent multi-level push for small frontiers: one launch runs levels k, k+1, ... of
// push_level with a software grid barrier between levels (gridDim.x must not exceed the
// blocks that fit on the device at once; gridDim.x == 1 is PMPP's single-block kernel).
// For an edge-balanced level block 0 writes the degree prefix sum to `scan` (room for
// max(nq, limit) entries) before a barrier. The loop stops when the next frontier is empty,
// has more than `limit` vertices or more than `edge_limit` out-edges; every block reads the
// same counters after the barrier, so all leave together.
// ctl: [0..2] queue counts (rotating), [3..5] out-edge sums (rotating), [6] in-edge sum of
// all vertices visited, [7..9] largest out-degree (rotating), [10] the length of the queue
// made from in_bits, [11] the first frontier's largest out-degree when the caller does not
// know it (max_deg 0); zero at launch. ctl_next: as in pull_hub. bar: see grid_sync.
// Results: publish to out, the fifth word telling which buffer holds the last frontier
// (0: qa, 1: qb).
// Without a queue (q0 null) the first frontier is read from its bitmap in_bits; unless
// out_bits is null, a non-empty last frontier is also left there as a bitmap.
template <typename I>
__global__ void push_persistent(const I* __restrict__ indptr, const I* __restrict__ indices,
                                const I* __restrict__ in_ptr, const I* q0, I* qa, I* qb,
                                long long* scan, long long nq, unsigned long long max_deg,
                                long long balance, int k, long long limit,
                                long long edge_limit, int* st, long long* pv, unsigned char* pp,
                                long long* lv, unsigned char* lp, int want_parent,
                                unsigned long long* ctl, unsigned long long* ctl_next,
                                unsigned int* bar, unsigned long long* hc, long long hub_deg,
                                const unsigned* in_bits, unsigned* out_bits, long long words,
                                unsigned long long* out) {
    if (blockIdx.x == 0 && threadIdx.x < CTL) ctl_next[threadIdx.x] = 0;
    const long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const long long nthreads = (long long)gridDim.x * blockDim.x;
    auto sync = [&]() { grid_sync(bar); };
    const I* cur = q0;                     // the caller's queue is only read
    I* nxt = qa;
    if (in_bits) {                         // no queue: the frontier's bitmap, into qa first
        bits_to_queue(in_bits, words, qa, &ctl[10], tid, nthreads);
        sync();
        cur = qa;
        nxt = qb;
    }
    if (max_deg == 0) {                    // not known: the first frontier's largest degree
        unsigned long long m = 0;
        for (long long i = tid; i < nq; i += nthreads)
            m = max(m, deg_of(indptr, (long long)__ldcg(&cur[i])));
        block_add_to(0, 0, 0, m, nullptr, nullptr, nullptr, &ctl[11], true);
        sync();
        max_deg = *(volatile unsigned long long*)&ctl[11];
    }
    int r = 0;
    while (true) {
        if (blockIdx.x == 0 && threadIdx.x == 0) {     // slot of level r+1, last read at r-2
            int z = (r + 1) % 3;
            ctl[z] = 0;
            ctl[3 + z] = 0;
            ctl[7 + z] = 0;
        }
        push_level<I, false>(indptr, indices, in_ptr, cur, nq, max_deg, balance, balance,
                             (unsigned*)nullptr, nxt, (long long*)nullptr, (I*)nullptr, 0,
                             &ctl[r], k, st, pv, pp, lv, lp, want_parent, hc, hub_deg,
                             &ctl[3 + r], &ctl[6], &ctl[7 + r], tid, nthreads, [&]() {
                                 if (blockIdx.x == 0) block_degree_prefix(indptr, cur, nq, scan);
                                 sync();
                                 return (const long long*)scan;
                             });
        sync();
        unsigned long long nn = *(volatile unsigned long long*)&ctl[r];
        unsigned long long fe = *(volatile unsigned long long*)&ctl[3 + r];
        max_deg = *(volatile unsigned long long*)&ctl[7 + r];
        if (nn == 0 || nn > (unsigned long long)limit || fe > (unsigned long long)edge_limit) {
            if (blockIdx.x == 0 && threadIdx.x == 0)
                publish(out, *(volatile unsigned long long*)&ctl[6], k, nn, fe, nxt == qb);
            if (out_bits && nn)            // the last frontier's bitmap, for a pull step
                queue_bits(nxt, (long long)nn, out_bits, words, tid, nthreads, sync);
            return;
        }
        cur = nxt;
        nxt = (nxt == qa) ? qb : qa;
        nq = (long long)nn; ++k; r = (r + 1) % 3;
    }
}

// Status array of a BFS from the visited bitmap: OLD where visited, UNV elsewhere, and
// `val` at vertex `one` (the source) when one >= 0, which is also written to the one-entry
// queue q1. Also empties the hub cache and zeroes the ncnt level counters.
// A one-entry parent (or level) vector not yet built is built here as well: pv (lv) gets
// the value pval (lval) at p1 (l1) and `absent` elsewhere (the vector keeps no presence
// bytes); the visited set is then that one entry (pres is null). Null pv / lv: nothing to
// build.
template <typename I>
__global__ void init_status(const unsigned char* __restrict__ pres, long long n, int* st,
                            long long one, int val, I* q1, unsigned long long* hc,
                            unsigned long long* cnt, int ncnt, long long p1, long long* pv,
                            long long pval, long long l1, long long* lv, long long lval,
                            long long absent) {
    const long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const long long stride = (long long)gridDim.x * blockDim.x;
    if (tid == 0 && one >= 0) q1[0] = (I)one;
    for (long long i = tid; i < HC; i += stride) hc[i] = ~0ull;
    for (long long i = tid; i < ncnt; i += stride) cnt[i] = 0;
    for (long long v = tid; v < n; v += stride) {
        const bool seen = pres ? pres[v] != 0 : v == p1;
        st[v] = v == one ? val : (seen ? -2 : UNV);
        if (pv) pv[v] = v == p1 ? pval : absent;
        if (lv) lv[v] = v == l1 ? lval : absent;
    }
}

// Packed pull lists (DeviceMatrix.packed_lists) of a CSR with sorted rows: run[e] is the
// 1-based run of entry e (consecutive entries of one row within one bitmap word); each
// entry ORs its word (above) and its bit into its run's slot of `packed` (zeroed).
template <typename I>
__global__ void pack_runs(const I* __restrict__ indices, const I* __restrict__ run,
                          long long m, unsigned long long* packed) {
    for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < m;
         e += (long long)gridDim.x * blockDim.x) {
        const unsigned long long u = (unsigned long long)indices[e];
        atomicOr(&packed[run[e] - 1], ((u >> 5) << 32) | (1ull << (u & 31)));
    }
}

template <typename I>
__global__ void mark_queue(const I* __restrict__ q, long long nq, int val, int* st) {
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < nq;
         i += (long long)gridDim.x * blockDim.x)
        st[q[i]] = val;
}

// ---------------------------------------------------------------------------------------
// The whole search in one launch (BfsSteps.bfs_search): `search` runs every level of a BFS
// from `source`, choosing push or pull on the device after each level by the direction rule
// of lagraph_py/algorithms/bfs.py (struct Walk), with no host round trip. Levels are run by
// *teams*: a pull level by the whole grid; a push level by the grid's first T blocks, T
// sized to the frontier (team_size), down to one block for a small frontier, whose levels
// then need no grid barrier at all: a block barrier and counters in shared memory (the
// single-block kernel of PMPP 15.7, inside the persistent grid). A team runs consecutive
// levels while they suit it, with a barrier of its own T blocks; then it hands the search's
// state (struct Walk) to the grid through control words, and all blocks meet at a grid
// barrier, where the others waited (pausing between polls), and form the next team.
// Each block keeps the state in shared memory, where its thread 0 updates it from the
// counters every block reads alike, so that all blocks take the same decisions. A team of
// the whole grid (every pull level, a push level of a large frontier) hands nothing over:
// every block ran its levels and holds the same Walk, so the grid goes on without a
// barrier. Hence three banks of counters (a team zeroes the next team's at its start:
// last read by the team two before, which every block has left) and two words for the
// teams' barriers (by the teams' parity: a block outside a team may still be leaving the
// barrier of the team before).

#define SCTL 63                 // control words a search zeroes (bfs_steps.py _SEARCH_CTL:
                                // one more, ASYNC_OFF)
#define BANK 12                 // counter words of a team: 3 rotating level slots of (frontier
                                // size, out-edges, largest out-degree, in-edges); 3 banks,
                                // by the teams formed modulo 3
#define QCOUNT 36               // ctl word: length of a queue made from a bitmap
#define HANDOFF 37              // ctl words: the Walk a team hands over (2 x 10 words, by
                                // the parity of the teams formed)
#define CUT 57                  // ctl words: the vertices a pull level cut at its cap without
                                // a parent (pull_level's c_cut), by the level modulo 3
#define LEFT 60                 // ctl word: the frontier left where the search stopped at
                                // S.max_level (0: it ran to its end)
#define REACHED 61              // ctl word: the vertices its levels found (the source aside)
#define ASYNC 62                // ctl word: how an asynchronous finish ended (async_finish)
#define ASYNC_OFF 63            // ctl word, not zeroed by a search (the plan's allocation
                                // zeroes it): 1 once an asynchronous finish overflowed its
                                // ring, after which the graph's searches keep to levels
#define ASYNC_DONE 1
#define ASYNC_ABORTED 2
#define RING (HC * 2)           // slots of async_finish's ring: the HC words of `smem`
#define FREE_SLOT 0xffffffffu
#define ASYNC_BATCH 4           // out-neighbours whose atomics async_finish issues together
#define ASYNC_WINDOW 64         // levels over which a frontier's growth is judged (Walk)

// The direction rule of lagraph_py/algorithms/bfs.py, applied after every level to the
// kernels' exact counts: push -> pull when the frontier grew and its out-edges exceed the
// in-edges of unvisited vertices (the stored entries less the in-edges of the vertices
// visited) / alpha; pull -> push once it shrinks below pull_min vertices. A frontier of at
// most small_frontier vertices and edge_limit out-edges is pushed whatever the direction
// (a pull costs a pass over all n vertices), as the gpu executor's level steps do.
struct Rule {
    double alpha, pull_min;
    long long small_frontier;
    unsigned long long edge_limit, stored;        // stored entries: in-edges of all vertices
};

// Where a search stands between levels (each block keeps one in shared memory).
struct Walk {
    long long nq;                      // the frontier: its size,
    unsigned long long fe, maxd;       // out-edges and largest out-degree,
    long long k, cur, bits;            // level, buffer (a queue, or a bitmap when bits)
    unsigned long long vin;            // in-edges of the vertices visited so far (the
                                       // source's included)
    long long team;                    // teams formed so far
    bool pull, growing;                // the rule's direction and growth
    bool finish;                       // whether async_finish may end the search,
    bool grew;                         // whether the frontier at the last multiple of
    unsigned long long mark;           // ASYNC_WINDOW levels was larger than (mark) at the
                                       // multiple before

    // Whether the next level pulls (it may turn the direction to pull); never without
    // pull lists (can_pull false).
    __device__ __forceinline__ bool pulls(const Rule& rule, bool can_pull) {
        if (can_pull && !pull && growing &&
            (double)fe > (double)(rule.stored - vin) / rule.alpha)
            pull = true;
        return pull && !(nq <= rule.small_frontier && fe <= rule.edge_limit);
    }
    // After a level took the frontier from nq to nq2 vertices.
    __device__ __forceinline__ void after(const Rule& rule, long long nq2) {
        if (!pull) growing = nq2 > nq;
        else if (nq2 == 0 || (nq2 <= nq && (double)nq2 < rule.pull_min)) pull = growing = false;
    }
};

// The search's arrays and settings: the kernel's one argument (__grid_constant__, read from
// the constant bank, so that its pointers take no registers). Every field is 8 bytes, in
// the order bfs_steps.py packs them (_SEARCH_FIELDS, then _SEARCH_CALL).
template <typename I>
struct Search {
    const I* indptr; const I* indices; const I* in_ptr;
    const I* tptr; const I* tind;      // pull lists (null: every level pushes)
    const unsigned long long* pk;      // or packed ones (tptr their row pointers; else null)
    const I* heads;
    const long long* long_items;       // pull_long's chunks of the in-lists beyond pull_cap
    long long nlong, pull_cap, pull_chunk;
    long long n, words;
    int* st;
    unsigned* bits;                    // two frontier bitmaps of `words` words
    I* queues;                         // two frontier queues of n entries
    long long* degs;                   // the out-degree beside each queue entry
    long long* totals;                 // one word per block (prefix_in_place)
    unsigned long long* hc; long long hub_deg;
    unsigned long long* ctl; unsigned int* bar;
    Rule rule;
    long long balance, balance_short;  // push_level's balance: a team's frontier of more
                                       // entries than HC, and of at most HC (whose degree
                                       // prefix each block makes in shared memory)
    long long serial, solo_width, width;
    long long wait_ns;                 // blocks_sync's pause of the blocks outside a team
    long long bits_edges;              // push_team: a grid's level of this many out-edges
                                       // leaves a bitmap
    long long long_if_cut;             // pull_team: pull_long only where pull_level cut a
                                       // list without a parent
    unsigned long long* trace; long long trace_len;
    long long async_after, async_frontier;   // async_finish from a frontier this small
                                             // at this level or later (0: never)
    unsigned long long* deep_seen;     // a host word (pinned; or null) that `search` sets
                                       // where a search met the rule of async_finish
    // What changes from one search of a graph to the next (packed last, after the fields
    // a plan keeps packed):
    long long source;
    long long* pv; long long* lv;      // outputs (null when not wanted)
    long long max_level;               // the last level run (a search that would go on stops)

    // Whether the rest of the search goes to async_finish, from the frontier of w (pushed
    // next unless pull): a deep search whose frontier is small and did not grow over the
    // last window of levels (a lattice's does, and one block would expand it slower).
    __device__ __forceinline__ bool finishes(const Walk& w, bool pull) const {
        return w.finish && !w.grew && !pull && w.k >= async_after && w.nq <= async_frontier;
    }
    __device__ __forceinline__ I* queue(long long i) const { return queues + i * n; }
    __device__ __forceinline__ long long* deg(long long i) const { return degs + i * n; }
    __device__ __forceinline__ unsigned* bitmap(long long i) const { return bits + i * words; }
    // The counters of the team formed as number `team`, and the word of its barrier.
    __device__ __forceinline__ unsigned long long* bank(long long team) const {
        return ctl + BANK * ((unsigned)team % 3u);
    }
    __device__ __forceinline__ unsigned int* team_bar(long long team) const {
        return bar + 2 + (team & 1);
    }

    // Blocks for a push level of nq vertices, fe out-edges and largest out-degree maxd: 1
    // while its work fits solo_width thread slots (a slot a vertex's lane, group_size lanes
    // a vertex, or an edge), else enough for `width` slots a block with twice the room, at
    // most G.
    __device__ __forceinline__ long long team_size(long long nq, unsigned long long fe,
                                                   unsigned long long maxd, long long G) const {
        long long g = 1;
        while (g < 32 && (unsigned long long)g < maxd) g <<= 1;
        const long long slots = max(nq * g, (long long)fe);
        return slots <= solo_width ? 1 : min(G, (2 * slots + width - 1) / width);
    }
};

// Inclusive prefix sum, in place, of x[0..len) by the `team` blocks of a team (this one is
// number `member`): each sums a contiguous range, a thread a run of it; the block totals go
// through `totals` and a barrier (`sync`), then each writes its running sums; a last barrier.
template <class Sync>
__device__ __forceinline__ void prefix_in_place(long long* x, long long len, long long* totals,
                                                long long team, long long member, Sync sync) {
    const long long lo_b = len * member / team, hi_b = len * (member + 1) / team;
    const long long per = (hi_b - lo_b + blockDim.x - 1) / blockDim.x;
    const long long lo = min(hi_b, lo_b + (long long)threadIdx.x * per);
    const long long hi = min(hi_b, lo + per);
    long long sum = 0;
#pragma unroll 4
    for (long long i = lo; i < hi; ++i) sum += __ldcg(&x[i]);
    long long total;
    long long run = block_excl_scan(sum, &total);
    if (threadIdx.x == 0) totals[member] = total;
    sync();
    run += sum_before(totals, member);
    for (long long i = lo; i < hi; ++i) {
        run += __ldcg(&x[i]);
        x[i] = run;
    }
    sync();
}

// A team's barrier: of its T blocks, or its block (SOLO).
template <bool SOLO>
__device__ __forceinline__ void team_sync(unsigned int* tbar, long long T) {
    if (SOLO) __syncthreads(); else blocks_sync(tbar, (unsigned int)T);
}

// The end of a team's level (after its barrier), by thread 0 of each member: the level's
// counters c into the Walk (bits: the new frontier is a bitmap), the trace, and whether the
// team runs the next level too (returned; T: the team's blocks, the grid's for a pull).
template <typename I>
__device__ __forceinline__ bool end_level(const Search<I>& S, Walk& w, bool pull, bool bits,
                                          long long T, const unsigned long long* c) {
    const volatile unsigned long long* v = c;
    const long long nq = (long long)v[0];
    w.fe = v[1];
    w.maxd = v[2];
    w.vin += v[3];
    w.after(S.rule, nq);
    if (blockIdx.x == 0) S.ctl[REACHED] += (unsigned long long)nq;   // block 0 is in every team
    w.nq = nq;
    w.k += 1;
    if (w.k % ASYNC_WINDOW == 0) {
        w.grew = (unsigned long long)nq > w.mark;
        w.mark = (unsigned long long)nq;
    }
    w.cur = 1 - w.cur;
    w.bits = bits;
    if (blockIdx.x == 0 && S.trace && w.k < S.trace_len) {
        unsigned long long t, *row = S.trace + 4 * w.k;
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
        row[0] = t;
        row[1] = clock64();
        row[2] = (unsigned long long)nq;
        row[3] = ((unsigned long long)pull << 32) | (unsigned long long)T;
    }
    if (nq == 0 || w.k >= S.max_level || w.pulls(S.rule, S.tptr != nullptr) != pull ||
        S.finishes(w, pull))
        return false;
    if (pull) return true;
    const long long next = S.team_size(nq, w.fe, w.maxd, (long long)gridDim.x);
    return next <= T && (T == 1 || (next > 1 && 4 * next > T));
}

// Pull levels by the whole grid while the rule pulls (pull_level, then, after a barrier,
// pull_long for the long in-lists: on every level, or (S.long_if_cut) only on one where
// pull_level cut some list without a parent, which all blocks read after that barrier;
// the frontier made a bitmap first if it is a queue). `cnt`: the team's zeroed counters
// (BANK words, each level's in a slot of four); `cache`: HC words of shared memory for the
// hub cache; w: this block's Walk, which its thread 0 updates after each level. Each level
// zeroes the CUT word of the next (push_team too), last read two levels before.
template <typename I>
__device__ __forceinline__ void pull_team(const Search<I>& S, Walk& w, unsigned long long* cnt,
                                          unsigned long long* cache) {
    __shared__ bool go_on, longs;
    unsigned int* tbar = S.team_bar(w.team);
    const long long G = gridDim.x;
    const long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (!w.bits) {
        queue_bits(S.queue(w.cur), w.nq, S.bitmap(w.cur), S.words, tid, G * blockDim.x,
                   [&]() { team_sync<false>(tbar, G); });
        team_sync<false>(tbar, G);
    }
    for (int r = 0;; r = (r + 1) % 3) {
        const long long cur = w.cur;
        const int level = (int)w.k + 1;
        if (blockIdx.x == 0 && threadIdx.x == 0) {     // slot of the next level, last read
            unsigned long long* z = cnt + 4 * ((r + 1) % 3);          // two levels ago
            z[0] = z[1] = z[2] = z[3] = 0;
            S.ctl[CUT + (level + 1) % 3] = 0;
        }
        unsigned long long* c = cnt + 4 * r;
        unsigned long long* cut = S.ctl + CUT + level % 3;
        pull_level<I, true>(S.tptr, S.tind, S.pk, S.heads, S.n, S.st, level, S.pv,
                            (unsigned char*)nullptr, S.lv, (unsigned char*)nullptr,
                            S.pv != nullptr, S.indptr, S.in_ptr, S.hc, S.hub_deg, S.bitmap(cur),
                            S.bitmap(1 - cur), (int)S.serial, S.pull_cap, cache, c, c + 1,
                            c + 3, c + 2, S.nlong ? cut : nullptr);
        team_sync<false>(tbar, G);
        if (S.nlong) {
            if (threadIdx.x == 0)
                longs = !S.long_if_cut || *(volatile unsigned long long*)cut != 0;
            __syncthreads();
            if (longs) {
                pull_long(S.tptr, S.tind, S.pk, S.long_items, S.nlong, S.pull_chunk, S.st,
                          level, S.pv, S.lv, S.pv != nullptr, S.indptr, S.in_ptr, S.hc,
                          S.hub_deg, S.bitmap(cur), S.bitmap(1 - cur), cache, c, c + 1, c + 3,
                          c + 2);
                team_sync<false>(tbar, G);
            }
        }
        if (threadIdx.x == 0) go_on = end_level(S, w, true, true, G, c);
        __syncthreads();
        if (!go_on) return;
    }
}

// The rest of a deep search by one block, without levels (search_async runs it where
// S.finishes says; the other blocks wait): a label-correcting search from the frontier
// q[0..nq). A ring of RING vertex ids in shared memory holds the vertices whose level
// went down; each thread takes the next slot (one shared atomic on the head) and waits
// for it, so that the block expands as many vertices at once as it has threads, where a
// level would wait on its slowest chain of loads. A vertex is taken from its slot with
// atomicExch: waiters two laps apart may share a slot, and each vertex has one taker.
// Taking v, a thread reads v's status (its level now) and offers level + 1 to each
// out-neighbour u: atomicMin on st[u], and, where the offer is no worse than st[u] and
// parents are wanted, atomicMin on pv[u] of (level << 32 | v); u goes into the ring
// where its level went down. So the levels end as the BFS's, and each parent is the
// smallest id among u's in-neighbours of the level before (pv keeps the level in its
// high word until async_results). `outstanding` counts the vertices in the ring or being
// expanded: a push adds one before its vertex shows, an expansion takes one off after
// its pushes, so at 0 the search is over (ASYNC_DONE). A push that finds its slot still
// holding a vertex (RING waiting) ends the finish as ASYNC_ABORTED. The outcome goes to
// ctl[ASYNC]. Needs n < 2^32 - 1 and nq < RING.
template <typename I>
__device__ __forceinline__ void async_finish(const Search<I>& S, const I* q, long long nq,
                                             unsigned* ring) {
    __shared__ unsigned head, tail;
    __shared__ int outstanding, stop;
    for (int i = threadIdx.x; i < RING; i += blockDim.x)
        ring[i] = i < nq ? (unsigned)__ldcg(&q[i]) : FREE_SLOT;
    if (threadIdx.x == 0) {
        head = 0;
        tail = (unsigned)nq;
        outstanding = (int)nq;
        stop = 0;
    }
    __syncthreads();
    unsigned* st = (unsigned*)S.st;                    // UNV is the largest unsigned
    unsigned long long* key = (unsigned long long*)S.pv;   // -1 where unvisited, too
    volatile int* halt = &stop;
    while (!*halt) {
        const unsigned slot = atomicAdd(&head, 1u) & (RING - 1);
        unsigned v = FREE_SLOT;
        while (!*halt) {
            if (((volatile unsigned*)ring)[slot] != FREE_SLOT &&
                (v = atomicExch(&ring[slot], FREE_SLOT)) != FREE_SLOT)
                break;
            if (*(volatile int*)&outstanding == 0) *halt = ASYNC_DONE;
        }
        if (v == FREE_SLOT) break;
        const unsigned level = __ldcg(&st[v]) + 1;     // the neighbours' offer
        const I end = S.indptr[v + 1];
        for (I p = S.indptr[v]; p < end; p += ASYNC_BATCH) {   // a batch's atomics at once
            unsigned u[ASYNC_BATCH], was[ASYNC_BATCH];
#pragma unroll
            for (int j = 0; j < ASYNC_BATCH; ++j)
                u[j] = p + j < end ? (unsigned)S.indices[p + j] : FREE_SLOT;
#pragma unroll
            for (int j = 0; j < ASYNC_BATCH; ++j)
                was[j] = u[j] != FREE_SLOT ? atomicMin(&st[u[j]], level) : level;
#pragma unroll
            for (int j = 0; j < ASYNC_BATCH; ++j) {
                if (key && u[j] != FREE_SLOT && was[j] >= level)
                    atomicMin(&key[u[j]], ((unsigned long long)level << 32) | v);
                if (was[j] <= level) continue;
                atomicAdd(&outstanding, 1);
                __threadfence_block();                 // st[u] before its slot
                const unsigned to = atomicAdd(&tail, 1u) & (RING - 1);
                if (atomicCAS(&ring[to], FREE_SLOT, u[j]) != FREE_SLOT) *halt = ASYNC_ABORTED;
            }
        }
        atomicSub(&outstanding, 1);
    }
    __syncthreads();
    if (threadIdx.x == 0) S.ctl[ASYNC] = (unsigned long long)stop;
}

// After an async_finish, by the grid: the levels from the status array, and the parents
// out of the keys async_finish left in pv (the level in the high word; the parents of
// earlier levels and the source's have none there).
template <typename I>
__device__ __forceinline__ void async_results(const Search<I>& S, long long tid,
                                              long long nthreads) {
    for (long long v = tid; v < S.n; v += nthreads) {
        const int level = S.st[v];
        if (level == UNV) continue;
        if (S.lv) S.lv[v] = level;
        if (S.pv) S.pv[v] &= 0xffffffffll;
    }
}

// Push levels by a team of the grid's first T blocks while they suit it (push_level). A
// team of the whole grid leaves the next frontier of a level of at least S.bits_edges
// out-edges as a bitmap (zeroed first; one atomicOr per vertex, where a queue would take
// one atomicAdd on its length per group of lanes), which it makes a queue (bits_to_queue)
// if it pushes again. SOLO: T == 1, block barriers, counters
// (cnt) in shared memory, and the frontier's queue copied into shared memory (`smem`, HC
// words: two copies) while it fits. Else as pull_team.
template <typename I, bool SOLO>
__device__ __forceinline__ void push_team(const Search<I>& S, Walk& w, long long T,
                                          unsigned long long* cnt, unsigned long long* smem) {
    __shared__ bool go_on;
    unsigned int* tbar = S.team_bar(w.team);
    auto sync = [&]() { team_sync<SOLO>(tbar, T); };
    const long long member = SOLO ? 0 : blockIdx.x;
    const long long tid = member * blockDim.x + threadIdx.x;
    const long long nthreads = T * blockDim.x;
    const bool grid_team = !SOLO && T == (long long)gridDim.x;
    const long long scap = HC * 8 / (2 * sizeof(I));  // SOLO: entries of each copy
    I* sq = (I*)smem;
    int copy = -1;                                     // SOLO: the copy holding the frontier
    for (int r = 0;; r = (r + 1) % 3) {
        const long long cur = w.cur, nq = w.nq;
        const bool to_bits = grid_team && w.fe >= (unsigned long long)S.bits_edges;
        if (w.bits) {
            bits_to_queue(S.bitmap(cur), S.words, S.queue(cur), &S.ctl[QCOUNT], tid, nthreads,
                          S.indptr, S.deg(cur));
            sync();
            if (member == 0 && threadIdx.x == 0) S.ctl[QCOUNT] = 0;       // for the next one
        }
        if (to_bits) {
            unsigned* next = S.bitmap(1 - cur);
            for (long long i = tid; i < S.words; i += nthreads) next[i] = 0u;
            sync();
        }
        if (member == 0 && threadIdx.x == 0) {         // slot of the next level, last read
            unsigned long long* z = cnt + 4 * ((r + 1) % 3);          // two levels ago
            z[0] = z[1] = z[2] = z[3] = 0;
            S.ctl[CUT + (w.k + 2) % 3] = 0;
        }
        unsigned long long* c = cnt + 4 * r;
        push_level<I, SOLO>(S.indptr, S.indices, S.in_ptr,
                            copy >= 0 ? sq + copy * scap : S.queue(cur), nq, w.maxd,
                            S.balance, S.balance_short,
                            to_bits ? S.bitmap(1 - cur) : (unsigned*)nullptr, S.queue(1 - cur),
                            S.deg(1 - cur), SOLO ? sq + (copy == 0 ? scap : 0) : (I*)nullptr,
                            scap, c, (int)w.k + 1, S.st, S.pv, (unsigned char*)nullptr, S.lv,
                            (unsigned char*)nullptr, S.pv != nullptr, S.hc, S.hub_deg, c + 1,
                            c + 3, c + 2, tid, nthreads, [&]() {
                                if (!SOLO && nq <= HC) {   // each block its own, in smem
                                    const long long* d = S.deg(cur);
                                    long long* own = (long long*)smem;
                                    block_prefix(nq, [&](long long i) { return __ldcg(&d[i]); },
                                                 own);
                                    __syncthreads();
                                    return (const long long*)own;
                                }
                                prefix_in_place(S.deg(cur), nq, S.totals, T, member, sync);
                                return (const long long*)S.deg(cur);
                            });
        sync();
        if (threadIdx.x == 0) go_on = end_level(S, w, false, to_bits, T, c);
        __syncthreads();
        if (!go_on) return;
        const int wrote = copy == 0 ? 1 : 0;          // the copy the level just made
        copy = SOLO && w.nq <= scap ? wrote : -1;
    }
}

// The Walk a team smaller than the grid hands over (its leader, before the grid barrier),
// with the queue counter zeroed for the next team; read back by every block after. Two
// records alternate, so that a block still reading one is not overtaken by the next.
__device__ __forceinline__ void hand_over(unsigned long long* ctl, const Walk& w) {
    unsigned long long* h = ctl + HANDOFF + 10 * ((w.team + 1) & 1);
    h[0] = (unsigned long long)w.nq; h[1] = w.fe; h[2] = w.maxd; h[3] = w.vin;
    h[4] = (unsigned long long)w.k; h[5] = (unsigned long long)w.cur;
    h[6] = (unsigned long long)w.bits; h[7] = (unsigned long long)w.team + 1;
    h[8] = w.pull; h[9] = w.growing | (w.finish << 1) | (w.grew << 2) | (w.mark << 3);
    ctl[QCOUNT] = 0;
}

__device__ __forceinline__ void take_over(const unsigned long long* ctl, Walk& w) {
    const volatile unsigned long long* h = ctl + HANDOFF + 10 * ((w.team + 1) & 1);
    w.nq = (long long)h[0]; w.fe = h[1]; w.maxd = h[2]; w.vin = h[3];
    w.k = (long long)h[4]; w.cur = (long long)h[5]; w.bits = (long long)h[6];
    w.team = (long long)h[7];
    w.pull = h[8] != 0; w.growing = h[9] & 1; w.finish = (h[9] >> 1) & 1;
    w.grew = (h[9] >> 2) & 1; w.mark = h[9] >> 3;
}

// The start of a search (all blocks): its Walk (w: the block's, in shared memory), the
// status array and outputs, the hub cache, the control words and the source's queue,
// then a grid barrier. Not inlined: a second start (after an async_finish overflowed)
// would keep its values live through the search's loop.
template <typename I>
__device__ __noinline__ void search_start(const Search<I>& S, Walk& w, long long tid,
                                          long long nthreads) {
    const long long source = S.source;
    const unsigned long long d0 = deg_of(S.indptr, source);
    if (threadIdx.x == 0)          // (an async_finish that overflowed set ASYNC_OFF first)
        w = Walk{1, d0, d0, 0, 0, 0, deg_of(S.in_ptr, source), 0, false, true,
                 S.async_frontier > 0 && S.async_frontier < RING &&
                 S.max_level >= 0x7fffffffLL && S.n < (long long)FREE_SLOT &&
                 !*(volatile unsigned long long*)&S.ctl[ASYNC_OFF], false, 0};
    if (tid == 0 && S.trace && S.trace_len > 0)
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(S.trace[0]));
    for (long long i = tid; i < HC; i += nthreads) S.hc[i] = ~0ull;
    for (long long i = tid; i < SCTL; i += nthreads) S.ctl[i] = 0;
    int* const st = S.st;              // (read once: for all the compiler knows, the
    long long* const lv = S.lv;        // stores below might change S)
    long long* const pv = S.pv;
    const long long n = S.n;
    for (long long v = tid; v < n; v += nthreads) {
        const bool root = v == source;
        st[v] = root ? 0 : UNV;
        if (lv) lv[v] = root ? 0 : -1;
        if (pv) pv[v] = root ? source : -1;
    }
    if (tid == 0) {
        S.queues[0] = (I)source;
        S.degs[0] = (long long)d0;
    }
    blocks_sync(S.bar, (unsigned int)gridDim.x);
}

// The whole search (see above), by a cooperative launch of the search's one argument S.
// Outputs: lv the levels, pv the parents (either null when not wanted), -1 where unreached.
// They and the status array st are filled here (UNV, -1; the source's entries its own), so
// that the host issues nothing but the launch. bits, queues, degs, totals, hc, ctl:
// scratch, written here before use; bar: the words of the grid's barrier ([0]) and of the
// teams' ([2], [3]: Search::team_bar), see blocks_sync.
// rule.pull_min = n / BETA; rule.stored = the stored entries of the graph.
// trace (unless null): [0] the global timer (ns) at the start; per level 0 < l <
// trace_len, at its end, [4l] the global timer, [4l+1] block 0's clock (cycles), [4l+2]
// the frontier size, [4l+3] pull << 32 | the blocks of its team.
// max_level: the search stops after that level even if its frontier is not empty, which
// it then leaves in ctl[LEFT] (a bounded reachability: scc_steps.py); ctl[REACHED] counts
// the vertices found.
// async_after, async_frontier: from a push frontier of at most async_frontier vertices at
// level async_after or later, block 0 finishes the search alone (async_finish; never
// with a max_level, and what it finds is not in ctl[REACHED]), and the grid writes the
// levels and parents after it (async_results).
// Should the finish overflow its ring, the search starts again with levels only, and so
// do the later searches of the plan (ctl[ASYNC_OFF]).
// Two kernels run it: search_async (FINISH) with the finish, and search without, which
// goes on with levels where the rule is met and sets *deep_seen for the host, which then
// launches search_async for the graph's later searches. In one kernel, the finish's code
// made every level slower (H200, kernel times from the trace, levels only: cnr-2000
// 272 µs, 270 µs without it, 264 µs for the kernel before the finish existed).
template <typename I, bool FINISH>
__device__ __forceinline__ void search_body(const Search<I>& S) {
    __shared__ unsigned long long smem[HC];
    __shared__ unsigned long long solo_cnt[BANK];
    __shared__ Walk w;
    __shared__ bool pull, deep;
    __shared__ long long T;
    const long long G = gridDim.x;
    const long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const long long nthreads = G * blockDim.x;
    search_start(S, w, tid, nthreads);
    while (true) {
        if (threadIdx.x == 0) {
            pull = w.pulls(S.rule, S.tptr != nullptr);
            T = pull ? G : S.team_size(w.nq, w.fe, w.maxd, G);
            deep = S.finishes(w, pull);
            if (!FINISH && deep) {                 // levels on; the host is told
                if (blockIdx.x == 0 && S.deep_seen) *(volatile unsigned long long*)S.deep_seen = 1;
                w.finish = deep = false;
            }
            if (deep) T = 1;
            if (blockIdx.x == 0) {                 // the next team's counters
                unsigned long long* next = S.bank(w.team + 1);
                for (int i = 0; i < BANK; ++i) next[i] = 0;
            }
        }
        __syncthreads();
        if (w.nq == 0 || w.k >= S.max_level) {
            if (w.nq && blockIdx.x == 0 && threadIdx.x == 0) S.ctl[LEFT] = w.nq;
            if (!FINISH) return;                      // (search: never a restart)
            const unsigned long long finish = *(volatile unsigned long long*)&S.ctl[ASYNC];
            if (finish == ASYNC_DONE) async_results(S, tid, nthreads);
            if (finish != ASYNC_ABORTED) return;
            if (tid == 0) S.ctl[ASYNC_OFF] = 1;       // for the later searches
            blocks_sync(S.bar, (unsigned int)G);      // every block read ctl[ASYNC]
            search_start(S, w, tid, nthreads);        // again, with levels only
            continue;
        }
        if (!pull && w.bits) {          // a bitmap to push from: its queue, made by the grid
            bits_to_queue(S.bitmap(w.cur), S.words, S.queue(w.cur), &S.ctl[QCOUNT], tid,
                          nthreads, S.indptr, S.deg(w.cur));
            blocks_sync(S.bar, (unsigned int)G);      // every thread read w.bits
            if (threadIdx.x == 0) w.bits = 0;
            if (tid == 0) S.ctl[QCOUNT] = 0;
            __syncthreads();
        }
        if (blockIdx.x < T) {
            if (pull) {
                pull_team(S, w, S.bank(w.team), smem);
            } else if (FINISH && deep) {                // the rest in one block, no levels
                async_finish(S, S.queue(w.cur), w.nq, (unsigned*)smem);
                if (threadIdx.x == 0) w.nq = 0;
            } else if (T == 1) {
                if (threadIdx.x < BANK) solo_cnt[threadIdx.x] = 0;
                __syncthreads();
                push_team<I, true>(S, w, 1, solo_cnt, smem);
            } else {
                push_team<I, false>(S, w, T, S.bank(w.team), smem);
            }
            if (blockIdx.x == 0 && threadIdx.x == 0 && T < G) hand_over(S.ctl, w);
        }
        if (T < G) {
            blocks_sync(S.bar, (unsigned int)G, blockIdx.x >= T ? (unsigned int)S.wait_ns : 0u);
            if (threadIdx.x == 0) take_over(S.ctl, w);
        } else if (threadIdx.x == 0) {
            w.team += 1;                          // (the grid's team: every Walk alike)
        }
    }
}

// Two blocks a multiprocessor, so that a thread has 64 registers: with four (32
// registers) the kernel spilled, and its levels took about a fifth longer (H100: the
// 2000 x 2000 grid 27.3 against 22.1 ms, cnr-2000 0.48 against 0.38 ms).
template <typename I>
__global__ void __launch_bounds__(512, 2) search(const __grid_constant__ Search<I> S) {
    search_body<I, false>(S);
}

template <typename I>
__global__ void __launch_bounds__(512, 2) search_async(const __grid_constant__ Search<I> S) {
    search_body<I, true>(S);
}

// ---------------------------------------------------------------------------------------
// The ranks of the distributed executor (dist_backend/gpu_bfs_steps.py): a search is a
// launch of rank_start, then cooperative launches of rank_levels, decided on the device.
// A rank holds the status (the level of each vertex) and parents of its range; `state`
// (two slots of RS_WORDS long longs) is where its search stands, updated at the start of
// each level from the counters every rank gathered after the last one, alike on every
// rank.
//
// What the ranks exchange lies in slots of an exchange buffer, laid out alike on every
// rank: the frontier bitmap of every vertex in two slots (level k reads slot (k - 1) & 1
// and makes its range's words of slot k & 1), then every rank's counters in three (level
// k reads slot (k - 1) & 1, or at k = 1 slot 2, the source's; it makes slot k & 1), then
// the ranks' arrivals at their barrier. With `peers` (ranks of one host whose GPUs reach
// each other's memory), a rank copies its words and counters into every rank's buffer
// itself, each level ends at the ranks' barrier (rank_barrier) and one launch runs every
// level; else a launch is one level, and the host gathers the slot through NCCL after it.
// A rank writes a slot of another only after the barrier that follows every read of it
// there.
#define RS_NQ 0               // the frontier: its size over all ranks,
#define RS_FE 1               // its out-edges,
#define RS_UNEXPLORED 2       // in-edges of the vertices not visited yet,
#define RS_PULL 3             // the level's direction (1: pull),
#define RS_GROWING 4          // whether the frontier grew (the rule's growth condition),
#define RS_DONE 5             // whether the frontier is empty: the search is over
#define RS_WORDS 6
#define RANK_RING 4           // host rows of 4 words, by level modulo RANK_RING: frontier
                              // size, pull, over, and the level number, written last
#define SOURCE_SLOT 2         // the counters' slot of the source
#define TRACE_WORDS 4         // a level's trace: frontier size, pull, ns of its own work
                              // (until the range's words are made), ns of its exchange

// The argument of rank_start and rank_levels (__grid_constant__): every field 8 bytes, in
// the order gpu_bfs_steps.py packs them (_LEVEL_FIELDS).
template <typename I>
struct RankLevel {
    long long* state;                      // two slots of RS_WORDS, by level parity
    unsigned long long* counters;          // this rank's: new frontier size, out-, in-edges
    unsigned long long* qcount;            // a push level's queue length (two, by parity)
    long long* rows;                       // host words (pinned), RANK_RING rows of 4
    long long* trace;                      // TRACE_WORDS a level (or null), trace_len levels
    long long trace_len;
    unsigned* bits;                        // the exchange buffer: bitmaps (2 x `words`),
    unsigned long long* gathered;          // counters (3 slots of 3 x ranks),
    unsigned long long* arrived;           // each rank's last barrier entered
    const unsigned long long* peers;       // every rank's exchange buffer, or null: NCCL
    unsigned long long* barriers;          // the barriers this rank entered
    long long words, range_words, rank;    // of the bitmap, of a range; this rank
    const I* col_ptr; const I* col_ind;    // column block: rows of every vertex, own offsets
    const I* in_ptr; const I* in_ind;      // in-edges of the range (global ids)
    const I* out_ptr;                      // out-degrees of the range
    I* queue; long long* degs; long long* totals; unsigned int* bar;   // scratch, barrier
    int* st; long long* pv;                // status (the levels) and parents (or null)
    long long n, nstored, lo, nlocal, ranks;       // the range: lo .. lo + nlocal - 1
    long long method;                      // 0 "auto", 1 "push", 2 "pull"
    long long patience_ns;                 // the longest wait at the ranks' barrier
    double alpha, beta;
};

// Where `own` (a place in this rank's exchange buffer) lies in rank r's.
template <typename T, typename I>
__device__ __forceinline__ T* at_rank(const RankLevel<I>& L, long long r, T* own) {
    return (T*)((char*)L.peers[r] + ((char*)own - (char*)L.bits));
}

// The ranks' barrier, by one thread of a rank with peers: its counters into slot `slot`
// of every rank's, its arrival at every rank, then the wait for every rank's arrival
// here. What the ranks stored before their arrival (fenced at system scope) is seen after
// it. A rank that does not arrive within patience_ns stops the launch (an error on the
// host).
template <typename I>
__device__ void rank_barrier(const RankLevel<I>& L, int slot) {
    const unsigned long long start = global_ns(), entered = *L.barriers + 1;
    *L.barriers = entered;
    unsigned long long c[3];
    for (int i = 0; i < 3; ++i) c[i] = __ldcg(&L.counters[i]);
    for (long long r = 0; r < L.ranks; ++r) {
        unsigned long long* to = at_rank(L, r, L.gathered) + 3 * (slot * L.ranks + L.rank);
        for (int i = 0; i < 3; ++i) to[i] = c[i];
    }
    __threadfence_system();
    for (long long r = 0; r < L.ranks; ++r)
        *(volatile unsigned long long*)(at_rank(L, r, L.arrived) + L.rank) = entered;
    for (long long r = 0; r < L.ranks; ++r)
        while (*(volatile unsigned long long*)&L.arrived[r] < entered)
            if (global_ns() - start > (unsigned long long)L.patience_ns) __trap();
    __threadfence_system();
}

// The start of a search from vertex s on a rank: the status of its range (0 for s, UNV
// for the others), the parents (s its own), the frontier bitmap of every vertex (s alone,
// slot 0), the counters of the source (size, out-, in-edges; zero but on the rank that
// holds it), with peers copied into every rank's source slot, and the queue lengths zeroed.
template <typename I>
__global__ void rank_start(const __grid_constant__ RankLevel<I> L, long long s) {
    const long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const long long nthreads = (long long)gridDim.x * blockDim.x, own = s - L.lo;
    for (long long v = tid; v < L.nlocal; v += nthreads) {
        L.st[v] = v == own ? 0 : UNV;
        if (L.pv) L.pv[v] = v == own ? s : -1;
    }
    for (long long w = tid; w < L.words; w += nthreads)
        L.bits[w] = w == (s >> 5) ? 1u << (s & 31) : 0u;
    if (tid == 0) {
        const bool mine = own >= 0 && own < L.nlocal;
        L.qcount[0] = L.qcount[1] = 0;
        L.counters[0] = mine;
        L.counters[1] = mine ? deg_of(L.out_ptr, own) : 0;
        L.counters[2] = mine ? deg_of(L.in_ptr, own) : 0;
        if (L.peers) rank_barrier(L, SOURCE_SLOT);
    }
}

// The direction rule of lagraph_py/algorithms/bfs.py as dist_backend/bfs_rule.py's
// DirectionRule applies it, at the start of level k: the counts of the last level's new
// frontier (k = 1: the source's), summed over the ranks' in `gathered` (their slot),
// recorded into the state `was` left (k = 1: none), then the level's direction: the
// state `now`.
template <typename I>
__device__ __forceinline__ void rank_rule(const RankLevel<I>& L, int k,
                                          const unsigned long long* gathered,
                                          const long long* was, long long* now) {
    long long nq = 0, fe = 0, vin = 0;
    for (long long r = 0; r < L.ranks; ++r) {
        nq += (long long)__ldcg(&gathered[3 * r]);
        fe += (long long)__ldcg(&gathered[3 * r + 1]);
        vin += (long long)__ldcg(&gathered[3 * r + 2]);
    }
    if (k == 1) {
        now[RS_UNEXPLORED] = L.nstored - vin;
        now[RS_PULL] = L.method == 2;
        now[RS_GROWING] = 1;
    } else {
        now[RS_UNEXPLORED] = __ldcg(&was[RS_UNEXPLORED]) - vin;
        now[RS_PULL] = __ldcg(&was[RS_PULL]);
        now[RS_GROWING] = __ldcg(&was[RS_GROWING]);
        if (L.method == 0 && now[RS_PULL]) {
            if (nq == 0 || (nq <= __ldcg(&was[RS_NQ]) && (double)nq < (double)L.n / L.beta))
                now[RS_PULL] = now[RS_GROWING] = 0;
        } else {
            now[RS_GROWING] = nq > __ldcg(&was[RS_NQ]);
        }
    }
    now[RS_NQ] = nq;
    now[RS_FE] = fe;
    now[RS_DONE] = nq == 0;
    if (nq && L.method == 0 && now[RS_GROWING] &&
        (double)fe > (double)now[RS_UNEXPLORED] / L.alpha)
        now[RS_PULL] = 1;
}

// Levels first, first + 1, ... of a rank's search, by a resident grid: one level without
// peers, all that are left with them. Every block applies the rule itself (rank_rule) to
// the state of level k - 1 (two slots of `state` and of `qcount`, by the parity of k, so
// that no block waits for another to have read them); block 0 keeps the result for the
// next level, writes the level's host row, and zeroes the counters and the next level's
// queue length. Then unless the search is over either
// - push: the frontier's queue from its bitmap (global ids), with each vertex's out-degree
//   in the column block, their prefix sum (each block its own in shared memory for a
//   short queue, else the grid's in place), and the level's edges split evenly over the
//   threads (push_edges): every vertex reached is the rank's own; or
// - pull: a thread per unvisited vertex of the range scans its in-neighbours (global ids)
//   and stops at the first whose bit is set in the frontier bitmap;
// then a grid barrier, and the range's words of the new frontier's bitmap and its counters
// (size, out- and in-edges). With peers, a grid barrier, the range's words copied into
// the other ranks' buffers (coalesced), and a grid barrier whose last block to arrive
// joins the ranks' barrier. Reads of what other blocks wrote in the launch go past L1.
template <typename I>
__global__ void __launch_bounds__(512, 3)           // gpu_bfs_steps.py _BLOCK; 40 registers
rank_levels(const __grid_constant__ RankLevel<I> L, int first) {
    __shared__ long long now[RS_WORDS];
    __shared__ long long own[HC];                          // a short queue's prefix
    const long long G = gridDim.x, tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const long long nthreads = G * blockDim.x;
    const bool timed = L.trace && blockIdx.x == 0 && threadIdx.x == 0;
    auto sync = [&]() { blocks_sync(L.bar, (unsigned int)G); };
    for (int k = first;; ++k) {
        unsigned long long* qcount = L.qcount + (k & 1);
        const unsigned* bits = L.bits + ((k - 1) & 1) * L.words;      // the frontier
        unsigned* made = L.bits + (k & 1) * L.words + L.rank * L.range_words;
        const unsigned long long t0 = timed ? global_ns() : 0;
        if (threadIdx.x == 0) {
            rank_rule(L, k, L.gathered + 3 * L.ranks * (k == 1 ? SOURCE_SLOT : (k - 1) & 1),
                      L.state + RS_WORDS * ((k + 1) & 1), now);
            if (blockIdx.x == 0) {
                long long* keep = L.state + RS_WORDS * (k & 1);
                for (int i = 0; i < RS_WORDS; ++i) keep[i] = now[i];
                L.counters[0] = L.counters[1] = L.counters[2] = 0;
                L.qcount[(k + 1) & 1] = 0;
                volatile long long* row = L.rows + 4 * (k % RANK_RING);
                row[0] = now[RS_NQ];
                row[1] = now[RS_PULL];
                row[2] = now[RS_DONE];
                __threadfence_system();
                row[3] = k;                                // the host waits for it
                __threadfence_system();
            }
        }
        __syncthreads();
        if (now[RS_DONE]) return;                          // alike in every block
        if (now[RS_PULL]) {
            for (long long v = tid; v < L.nlocal; v += nthreads) {
                if (L.st[v] != UNV) continue;
                for (long long p = L.in_ptr[v]; p < (long long)L.in_ptr[v + 1]; ++p) {
                    const long long u = L.in_ind[p];
                    if ((bits[u >> 5] >> (u & 31)) & 1u) {
                        L.st[v] = k;
                        visit(v, u, k, L.pv, nullptr, nullptr, nullptr, 1);
                        break;
                    }
                }
            }
        } else {
            bits_to_queue(bits, L.words, L.queue, qcount, tid, nthreads, L.col_ptr, L.degs);
            sync();
            const long long nq = (long long)__ldcg(qcount);
            const long long* prefix = L.degs;
            if (nq <= HC) {
                block_prefix(nq, [&](long long i) { return __ldcg(&L.degs[i]); }, own);
                __syncthreads();
                prefix = own;
            } else {
                prefix_in_place(L.degs, nq, L.totals, G, (long long)blockIdx.x, sync);
            }
            push_edges(L.col_ptr, L.col_ind, L.queue, prefix, nq, tid, nthreads,
                       [](const I* p) { return (long long)__ldcg(p); }, L.st, k, L.pv,
                       (unsigned char*)nullptr, (long long*)nullptr, (unsigned char*)nullptr,
                       1);
        }
        sync();
        unsigned long long nq = 0, dout = 0, din = 0;
        status_words(L.st, L.nlocal, k, into(made), [&](long long v, bool flag) {
            if (!flag) return;
            nq += 1;
            dout += deg_of(L.out_ptr, v);
            din += deg_of(L.in_ptr, v);
        });
        warp_add_to(nq, dout, din, 0, L.counters, L.counters + 1, L.counters + 2, nullptr);
        if (!L.peers) return;               // the host gathers the slot, launches level k + 1
        if (L.ranks > 1) sync();                           // the range's words are made
        const unsigned long long t1 = timed ? global_ns() : 0;
        if (L.ranks > 1) {
            for (long long w = tid; w < L.range_words; w += nthreads) {
                const unsigned word = __ldcg(&made[w]);
                for (long long r = 0; r < L.ranks; ++r)
                    if (r != L.rank) at_rank(L, r, made)[w] = word;
            }
            __syncthreads();
            if (threadIdx.x == 0) __threadfence_system();   // before the ranks' barrier
        }
        blocks_sync(L.bar, (unsigned int)G, [&] { rank_barrier(L, k & 1); });
        if (timed && k < L.trace_len) {
            long long* row = L.trace + TRACE_WORDS * k;
            row[0] = now[RS_NQ];
            row[1] = now[RS_PULL];
            row[2] = (long long)(t1 - t0);
            row[3] = (long long)(global_ns() - t1);
        }
    }
}
