// Fused BFS level kernels (one idea each; see docs/gpu.md). Templated over the index type I
// of the CSR arrays (int or long long); instantiated through RawModule name expressions.
//
// Shared state of one BFS run (gpu_backend/bfs_steps.py):
//   st[v]    int32 status: the level at which v was visited, UNV if unvisited (Enterprise's
//            status array). Vertices visited before the run's first fused level hold OLD.
//   pv/pp    values / presence bytes of the `parent` vector (pv = parent id, or 1 for ANY_PAIR;
//            pp null while the vector keeps no presence bytes: gpu_backend/vector.py)
//   lv/lp    values / presence bytes of the `level` vector (lv null when levels are not
//            wanted, lp as pp)
//   cnt[0]   vertices in the new frontier, cnt[1] their out-edges, cnt[2] their in-edges
//            (LevelStats, read back with one device-to-host copy per level)
//   hc[]     hub cache, direct mapped: hc[v & (HC - 1)] = (level << 32) | v for frontier
//            vertices of out-degree >= hub_deg (written while a frontier is built, read into
//            shared memory by the next pull step).

#include "shared.cuh"

#define UNV 0x7fffffff
#define HC 2048
#define CTL 12          // control words of a multi-level kernel (bfs_steps.py _CTL)

__device__ __forceinline__ void visit(long long v, long long u, int k, long long* pv,
                                      unsigned char* pp, long long* lv, unsigned char* lp,
                                      int want_parent) {
    pv[v] = want_parent ? u : 1;
    if (pp) pp[v] = 1;
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

// Count vertex v, visited at level k, into a thread's level stats (its out- and in-edges)
// and, when its out-degree reaches hub_deg, record it in the hub cache with its level.
template <typename I>
__device__ __forceinline__ unsigned long long count_visit(long long v, int k, const I* out_ptr,
                                                          const I* in_ptr, long long hub_deg,
                                                          unsigned long long* hc,
                                                          unsigned long long& dout,
                                                          unsigned long long& din) {
    unsigned long long d = deg_of(out_ptr, v);
    dout += d;
    din += deg_of(in_ptr, v);
    if ((long long)d >= hub_deg)
        hc[v & (HC - 1)] = ((unsigned long long)k << 32) | (unsigned long long)v;
    return d;
}

// Exclusive block scan of one value per thread; every thread of the block must call it.
template <typename T>
__device__ __forceinline__ T block_excl_scan(T x, T* total) {
    __shared__ T warp_sums[32];
    int lane = threadIdx.x & 31, wid = threadIdx.x >> 5, nw = blockDim.x >> 5;
    T v = x;
    for (int o = 1; o < 32; o <<= 1) {
        T y = __shfl_up_sync(0xffffffffu, v, o);
        if (lane >= o) v += y;
    }
    if (lane == 31) warp_sums[wid] = v;
    __syncthreads();
    if (wid == 0) {
        T s = lane < nw ? warp_sums[lane] : 0;
        for (int o = 1; o < 32; o <<= 1) {
            T y = __shfl_up_sync(0xffffffffu, s, o);
            if (lane >= o) s += y;
        }
        if (lane < nw) warp_sums[lane] = s;
    }
    __syncthreads();
    T res = (wid ? warp_sums[wid - 1] : 0) + v - x;
    *total = warp_sums[nw - 1];
    __syncthreads();
    return res;
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
// Frontier queue from the status array (Enterprise): vertices with st[v] == k, no
// duplicates, no per-vertex atomics. Also the level's stats, the hub cache and, unless
// bits is null, the frontier's bitmap (one ballot per word).
template <typename I>
__global__ void compact_status(const int* __restrict__ st, long long n, int k, I* queue,
                               const I* __restrict__ out_ptr, const I* __restrict__ in_ptr,
                               unsigned long long* cnt, unsigned long long* hc,
                               long long hub_deg, unsigned* bits) {
    unsigned long long dout = 0, din = 0;
    for (long long base = (long long)blockIdx.x * blockDim.x; base < n;
         base += (long long)gridDim.x * blockDim.x) {
        long long v = base + threadIdx.x;
        bool flag = v < n && st[v] == k;
        const unsigned word = __ballot_sync(0xffffffffu, flag);
        if (bits && (threadIdx.x & 31) == 0 && v < n) bits[v >> 5] = word;
        if (flag) {
            count_visit(v, k, out_ptr, in_ptr, hub_deg, hc, dout, din);
        }
        block_append(flag, v, queue, cnt);
    }
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

// Inclusive prefix sum of the out-degrees of q[0..nq) into prefix, by one block: each thread
// sums a contiguous chunk, one block scan, then each writes its chunk's running sums. Reads
// bypass L1 (q may have been written by other blocks of a persistent kernel).
template <typename I>
__device__ __forceinline__ void block_degree_prefix(const I* __restrict__ indptr, const I* q,
                                                    long long nq, long long* prefix) {
    const long long per = (nq + blockDim.x - 1) / blockDim.x;
    const long long lo = min(nq, threadIdx.x * per), hi = min(nq, lo + per);
    long long sum = 0;
    for (long long i = lo; i < hi; ++i) sum += deg_of(indptr, (long long)__ldcg(&q[i]));
    long long total;
    long long run = block_excl_scan(sum, &total);
    for (long long i = lo; i < hi; ++i) {
        run += deg_of(indptr, (long long)__ldcg(&q[i]));
        prefix[i] = run;
    }
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
        if (__ldcg(&prefix[mid]) > e) hi = mid; else lo = mid + 1;
    }
    offset = e - (lo ? __ldcg(&prefix[lo - 1]) : 0);
    return lo;
}

template <typename I>
__global__ void push_balanced(const I* __restrict__ indptr, const I* __restrict__ indices,
                              const I* __restrict__ q, const long long* __restrict__ prefix,
                              long long nq, int* st, int k, long long* pv, unsigned char* pp,
                              long long* lv, unsigned char* lp, int want_parent) {
    if (nq == 0) return;
    long long total = prefix[nq - 1];
    for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < total;
         e += (long long)gridDim.x * blockDim.x) {
        long long offset;
        const long long u = q[edge_source(prefix, nq, e, offset)];
        const long long v = indices[(long long)indptr[u] + offset];
        if (st[v] == UNV) { st[v] = k; visit(v, u, k, pv, pp, lv, lp, want_parent); }
    }
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

// Production pull ("pull_hub"), levels k, k+1, ... in one launch. Each warp owns 32
// consecutive vertices, one bitmap word. An unvisited vertex scans its in-neighbours (in
// decreasing out-degree, DeviceMatrix.pull_lists) for one in the frontier: the first
// `serial` alone, then, for a longer list, the whole warp 32 at a time, so one long list
// does not leave 31 lanes idle. The first comes from heads[v] (-1: none), read like the
// status, contiguously: most vertices stop there, without reading their row pointers or a
// scattered entry of tind. The frontier's hubs, cached in hc[] by the step that found them,
// are loaded into shared memory first. The warp's hits become its word of the next frontier
// bitmap with one ballot and one store (no atomics, no zeroing); bits0 holds the frontier
// of level k-1, levels alternate between bits0 and bits1.
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
    const unsigned full = 0xffffffffu;
    if (blockIdx.x == 0 && threadIdx.x < CTL) ctl_next[threadIdx.x] = 0;
    unsigned int gen = 0;
    if (threadIdx.x == 0) gen = *(volatile unsigned int*)&bar[1];
    const int lane = threadIdx.x & 31;
    const long long words = (n + 31) >> 5;
    const long long warp = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const long long nwarps = ((long long)gridDim.x * blockDim.x) >> 5;
    for (int l = k, r = 0;; ++l, r = (r + 1) % 3) {
        if (blockIdx.x == 0 && threadIdx.x == 0) {      // slot of level l+1, last read at l-2
            int z = (r + 1) % 3;
            ctl[z] = 0; ctl[3 + z] = 0;
        }
        const unsigned* fbits = (l - k) & 1 ? bits1 : bits0;
        unsigned* nbits = (l - k) & 1 ? bits0 : bits1;
        for (int j = threadIdx.x; j < HC; j += blockDim.x) cache[j] = hc[j];
        __syncthreads();
        const unsigned long long tag = (unsigned long long)(l - 1) << 32;
        unsigned long long found = 0, dout = 0, din = 0;
        for (long long w = warp; w < words; w += nwarps) {
            const long long v = (w << 5) + lane;
            I p = 0, end = 0;
            long long u = 0;
            bool hit = false;
            if (v < n && st[v] == UNV && (u = heads[v]) >= 0) {
                hit = in_frontier(u, cache, tag, fbits);
                if (!hit) {
                    p = tptr[v] + 1;
                    end = tptr[v + 1];
                    for (int t = 1; t < serial && p < end; ++t, ++p) {
                        u = tind[p];
                        if (in_frontier(u, cache, tag, fbits)) { hit = true; break; }
                    }
                }
            }
            for (unsigned todo = __ballot_sync(full, !hit && p < end); todo; todo &= todo - 1) {
                const int src = __ffs(todo) - 1;
                const I e = __shfl_sync(full, end, src);
                for (I q = __shfl_sync(full, p, src); q < e; q += 32) {
                    const I x = q + lane < e ? tind[q + lane] : (I)-1;
                    const unsigned hits = __ballot_sync(full, x >= 0 &&
                                                        in_frontier(x, cache, tag, fbits));
                    if (hits) {
                        const I first = __shfl_sync(full, x, __ffs(hits) - 1);
                        if (lane == src) { u = first; hit = true; }
                        break;
                    }
                }
            }
            const unsigned word = __ballot_sync(full, hit);
            if (lane == 0) nbits[w] = word;
            if (hit) {
                st[v] = l;
                visit(v, u, l, pv, pp, lv, lp, want_parent);
                ++found;
                count_visit(v, l, out_ptr, in_ptr, hub_deg, hc, dout, din);
            }
        }
        block_add_to(found, dout, din, 0, &ctl[r], &ctl[3 + r], &ctl[6], nullptr);
        grid_sync(bar, gen);
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
    for (long long base = (long long)blockIdx.x * blockDim.x; base < n;
         base += (long long)gridDim.x * blockDim.x) {
        long long v = base + threadIdx.x;                  // lanes hold one aligned word
        unsigned word = __ballot_sync(0xffffffffu, v < n && st[v] == val);
        if ((threadIdx.x & 31) == 0 && v < n) bits[v >> 5] = word;
    }
}


// ---------------------------------------------------------------------------------------
// Append the set bits of a bitmap (vertex ids) to queue, a thread per word: one atomicAdd
// on counter (zeroed by the caller) per warp.
template <typename I>
__device__ __forceinline__ void bits_to_queue(const unsigned* bits, long long words, I* queue,
                                              unsigned long long* counter, long long tid,
                                              long long nthreads) {
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
        for (; word; word &= word - 1) queue[base++] = (I)((w << 5) + __ffs(word) - 1);
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

// Persistent multi-level push for small frontiers: one launch runs levels k, k+1, ... with
// a software grid barrier between levels (gridDim.x must not exceed the blocks that fit on
// the device at once; gridDim.x == 1 is PMPP's single-block kernel). A group of g threads
// expands each frontier vertex (virtual warps): g is the power of two covering the
// frontier's largest out-degree, at most 32, widened while that leaves threads idle, so a
// one-vertex frontier is spread over the whole grid and a grid graph uses 4 threads a
// vertex. A level whose largest out-degree exceeds `balance` rounds of its groups (a hub
// among leaves) is expanded edge-balanced instead, as push_balanced does: block 0 writes
// the degree prefix sum to `scan` (room for max(nq, limit) entries), and after a barrier
// every thread takes every nthreads-th edge. atomicCAS claims; the next queue is appended
// with one atomicAdd per group of claiming lanes. The loop stops when the next frontier is
// empty, has more than `limit` vertices or more than `edge_limit` out-edges; every block
// reads the same counters after the barrier, so all leave together.
// ctl: [0..2] queue counts (rotating), [3..5] out-edge sums (rotating), [6] in-edge sum of
// all vertices visited, [7..9] largest out-degree (rotating), [10] the length of the queue
// made from in_bits, [11] the first frontier's largest out-degree when the caller does not
// know it (max_deg 0); zero at launch. ctl_next: as in pull_hub. bar: see grid_sync.
// Results: publish to out, the fifth word telling which buffer holds the last frontier
// (0: qa, 1: qb).
// Without a queue (q0 null) the first frontier is read from its bitmap in_bits; unless
// out_bits is null, a non-empty last frontier is also left there as a bitmap.
__device__ __forceinline__ long long group_size(unsigned long long max_deg, long long nq,
                                                long long nthreads) {
    long long g = 1;
    while (g < 32 && (unsigned long long)g < max_deg) g <<= 1;
    while (2 * g * nq <= nthreads) g <<= 1;
    return g;
}

// One edge u -> v of a persistent push level: claim v, append it to the next queue (one
// atomicAdd per group of claiming lanes, which must be converged here), visit and count it.
template <typename I>
__device__ __forceinline__ void push_edge(long long u, long long v, int k, int* st, I* nxt,
                                          unsigned long long* cq, long long* pv,
                                          unsigned char* pp, long long* lv, unsigned char* lp,
                                          int want_parent, const I* __restrict__ indptr,
                                          const I* __restrict__ in_ptr, long long hub_deg,
                                          unsigned long long* hc, unsigned long long& my_out,
                                          unsigned long long& my_in,
                                          unsigned long long& my_max) {
    const bool claimed = claim(st, v, k);
    const unsigned active = __activemask();
    const unsigned ballot = __ballot_sync(active, claimed);
    if (!ballot) return;
    const int lane = threadIdx.x & 31;
    const int leader = __ffs(ballot) - 1;
    unsigned long long base = 0;
    if (lane == leader) base = atomicAdd(cq, (unsigned long long)__popc(ballot));
    base = __shfl_sync(active, base, leader);
    if (claimed) {
        nxt[base + __popc(ballot & ((1u << lane) - 1u))] = (I)v;
        visit(v, u, k, pv, pp, lv, lp, want_parent);
        my_max = max(my_max, count_visit(v, k, indptr, in_ptr, hub_deg, hc, my_out, my_in));
    }
}

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
    unsigned int gen = 0;
    if (threadIdx.x == 0) gen = *(volatile unsigned int*)&bar[1];
    const long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const long long nthreads = (long long)gridDim.x * blockDim.x;
    const I* cur = q0;                     // the caller's queue is only read
    I* nxt = qa;
    if (in_bits) {                         // no queue: the frontier's bitmap, into qa first
        bits_to_queue(in_bits, words, qa, &ctl[10], tid, nthreads);
        grid_sync(bar, gen);
        cur = qa;
        nxt = qb;
    }
    if (max_deg == 0) {                    // not known: the first frontier's largest degree
        unsigned long long m = 0;
        for (long long i = tid; i < nq; i += nthreads)
            m = max(m, deg_of(indptr, (long long)__ldcg(&cur[i])));
        block_add_to(0, 0, 0, m, nullptr, nullptr, nullptr, &ctl[11], true);
        grid_sync(bar, gen);
        max_deg = *(volatile unsigned long long*)&ctl[11];
    }
    int r = 0;
    while (true) {
        unsigned long long* cq = &ctl[r];
        unsigned long long* ce = &ctl[3 + r];
        if (blockIdx.x == 0 && threadIdx.x == 0) {     // slot of level r+1, last read at r-2
            int z = (r + 1) % 3;
            ctl[z] = 0;
            ctl[3 + z] = 0;
            ctl[7 + z] = 0;
        }
        const long long g = group_size(max_deg, nq, nthreads);
        unsigned long long my_out = 0, my_in = 0, my_max = 0;
        if (max_deg > (unsigned long long)(balance * g)) {        // edge-balanced level
            if (blockIdx.x == 0) block_degree_prefix(indptr, cur, nq, scan);
            grid_sync(bar, gen);
            const long long total = __ldcg(&scan[nq - 1]);
            for (long long e = tid; e < total; e += nthreads) {
                long long offset;
                const long long u = __ldcg(&cur[edge_source(scan, nq, e, offset)]);
                push_edge(u, (long long)indices[(long long)indptr[u] + offset], k, st, nxt, cq,
                          pv, pp, lv, lp, want_parent, indptr, in_ptr, hub_deg, hc, my_out,
                          my_in, my_max);
            }
        } else {                                                  // a group per vertex
            const long long ngroups = nthreads / g;
            for (long long w = tid / g; w < nq && tid < ngroups * g; w += ngroups) {
                const long long u = __ldcg(&cur[w]);
                const long long end = indptr[u + 1];
                for (long long p = indptr[u] + tid % g; p < end; p += g)
                    push_edge(u, (long long)indices[p], k, st, nxt, cq, pv, pp, lv, lp,
                              want_parent, indptr, in_ptr, hub_deg, hc, my_out, my_in,
                              my_max);
            }
        }
        block_add_to(my_out, my_in, 0, my_max, ce, &ctl[6], nullptr, &ctl[7 + r], true);
        grid_sync(bar, gen);
        unsigned long long nn = *(volatile unsigned long long*)cq;
        unsigned long long fe = *(volatile unsigned long long*)ce;
        max_deg = *(volatile unsigned long long*)&ctl[7 + r];
        if (nn == 0 || nn > (unsigned long long)limit || fe > (unsigned long long)edge_limit) {
            if (blockIdx.x == 0 && threadIdx.x == 0)
                publish(out, *(volatile unsigned long long*)&ctl[6], k, nn, fe, nxt == qb);
            if (out_bits && nn) {          // the last frontier's bitmap, for a pull step
                for (long long w = tid; w < words; w += nthreads) out_bits[w] = 0u;
                grid_sync(bar, gen);
                for (long long i = tid; i < (long long)nn; i += nthreads) {
                    long long v = __ldcg(&nxt[i]);
                    atomicOr(&out_bits[v >> 5], 1u << (v & 31));
                }
            }
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

template <typename I>
__global__ void mark_queue(const I* __restrict__ q, long long nq, int val, int* st) {
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < nq;
         i += (long long)gridDim.x * blockDim.x)
        st[q[i]] = val;
}
