// Fused SCC group steps (gpu_backend/scc_steps.py). Templated over the index type I of the
// CSR arrays (int or long long); instantiated through RawModule name expressions.
//
// Both persistent kernels keep all blocks resident (a cooperative launch) and loop to their
// fixed point on the device, with a software grid barrier between phases; every block
// reads the same control word after a barrier and takes the same branch.
//   ctl  control words, zero at launch (rotating by level / sweep / round, see each kernel)
//   bar  two barrier words, zero at launch
//   out  results (device words, read by the host once, after the kernel)
// Vertices are handled by groups of g lanes (g a power of two <= 32, "virtual warps"
// sized to the average degree): the lanes of a group stride over one vertex's row.

#include "grid_sync.cuh"

template <typename I> struct Counter { typedef unsigned long long T; };
template <> struct Counter<int> { typedef unsigned T; };

__device__ __forceinline__ unsigned decrement(unsigned* p) { return atomicSub(p, 1u); }
__device__ __forceinline__ unsigned long long decrement(unsigned long long* p) {
    return atomicAdd(p, ~0ull);
}

// Sum of x over the g lanes of a group (lane 0 of the group gets it).
template <typename T>
__device__ __forceinline__ T group_sum(T x, int g) {
    const int lane = threadIdx.x & 31;
    const unsigned mask = g == 32 ? 0xffffffffu : ((1u << g) - 1u) << (lane & ~(g - 1));
    for (int o = g >> 1; o > 0; o >>= 1) x += __shfl_down_sync(mask, x, o, g);
    return x;
}

// Sum of x over the block, added to *to by one atomic (skipped when zero).
template <typename T>
__device__ __forceinline__ void block_add(unsigned long long x, T* to) {
    __shared__ unsigned long long part[32];
    for (int o = 16; o > 0; o >>= 1) x += __shfl_down_sync(0xffffffffu, x, o);
    if ((threadIdx.x & 31) == 0) part[threadIdx.x >> 5] = x;
    __syncthreads();
    if (threadIdx.x == 0) {
        unsigned long long t = 0;
        for (int w = 0; w < (int)(blockDim.x >> 5); ++w) t += part[w];
        if (t) atomicAdd(to, (T)t);
    }
    __syncthreads();
}

// Rows longer than this are handled by a whole block (hubs), not by a vertex's group.
#define LONG_ROW 4096

__device__ __forceinline__ bool is_active(const int* st, long long x) {
    return __ldcg(&st[x]) > 0;
}

// Active neighbours of v in one CSR row, counted by `step` lanes from `lane` (none for a
// long row when `short_only`).
template <typename I>
__device__ __forceinline__ unsigned long long active_in_row(const I* __restrict__ ptr,
                                                            const I* __restrict__ ind, I v,
                                                            const int* st, int lane, int step,
                                                            bool short_only) {
    unsigned long long c = 0;
    const long long lo = ptr[v], hi = ptr[v + 1];
    if (short_only && hi - lo > LONG_ROW) return 0;
    for (long long p = lo + lane; p < hi; p += step) c += is_active(st, ind[p]);
    return c;
}

// Removal of v's neighbours' counts along one CSR row (by `step` lanes from `lane`; a long
// row only when not `short_only`): a neighbour x still active whose count falls to zero is
// claimed (st 1 -> mark) by one thread, labelled by its own id and appended to the next
// level's queue.
template <typename I, typename C>
__device__ __forceinline__ void peel_row(const I* __restrict__ ptr, const I* __restrict__ ind,
                                         I v, int lane, int step, bool short_only, int* st,
                                         int mark, C* count, I* next,
                                         unsigned long long* nnext, long long* lv,
                                         unsigned char* lp) {
    const long long lo = ptr[v], hi = ptr[v + 1];
    if ((hi - lo > LONG_ROW) == short_only) return;
    for (long long p = lo + lane; p < hi; p += step) {
        const I x = ind[p];
        if (is_active(st, x) && decrement(&count[x]) == 1 && atomicCAS(&st[x], 1, mark) == 1) {
            lv[x] = x;
            lp[x] = 1;
            next[atomicAdd(nnext, 1ull)] = x;
        }
    }
}

// scc_trim: label by its own id every active vertex without an active in- or out-neighbour,
// repeatedly. st[v] starts as the active bitmap pres (1 active, 0 not); cin / cout count
// each active vertex's active in- / out-neighbours; then the vertices at zero are peeled
// level by level (qa, qb alternate), each removal decrementing its neighbours' counts. A
// vertex in the queue of level L has st = -(L + 1). The fixed point is unique, so the order
// of removals does not matter. Rows longer than LONG_ROW are counted and peeled by a whole
// block: hubs[0..nhubs) lists the vertices with such a row.
// ctl[0..2]: level queue sizes (rotating). Results: out[0] vertices left, out[1] levels.
// Left: rp[v] = 1 and rv[v] = v for every active vertex kept (rp zero elsewhere).
template <typename I>
__global__ void __launch_bounds__(512)
scc_trim_fused(const I* __restrict__ aptr, const I* __restrict__ aind,
               const I* __restrict__ tptr, const I* __restrict__ tind,
               const unsigned char* __restrict__ pres, long long n,
               const I* __restrict__ q, long long nq, const I* __restrict__ hubs,
               long long nhubs, int g, int* st, typename Counter<I>::T* cin,
               typename Counter<I>::T* cout, I* qa, I* qb, long long* lv, unsigned char* lp,
               long long* rv, unsigned char* rp, unsigned long long* ctl, unsigned int* bar,
               unsigned long long* out) {
    typedef typename Counter<I>::T C;
    unsigned int gen = 0;
    if (threadIdx.x == 0) gen = *(volatile unsigned int*)&bar[1];
    const long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const long long nthreads = (long long)gridDim.x * blockDim.x;
    const int lane = (int)(tid & (g - 1));
    const long long ngroups = nthreads / g;

    for (long long v = tid; v < n; v += nthreads) st[v] = pres[v];
    grid_sync(bar, gen);
    for (long long w = tid / g; w < nq; w += ngroups) {       // counts: short rows
        const I v = q[w];
        const unsigned long long out_n = group_sum(active_in_row(aptr, aind, v, st, lane, g,
                                                                 true), g);
        const unsigned long long in_n = group_sum(active_in_row(tptr, tind, v, st, lane, g,
                                                                true), g);
        if (lane == 0) {
            cout[v] = (C)out_n;
            cin[v] = (C)in_n;
        }
    }
    grid_sync(bar, gen);
    for (long long h = blockIdx.x; h < nhubs; h += gridDim.x) {  // ... long rows
        const I v = hubs[h];
        if (!is_active(st, v)) continue;
        if (aptr[v + 1] - aptr[v] > LONG_ROW)
            block_add(active_in_row(aptr, aind, v, st, threadIdx.x, blockDim.x, false),
                      &cout[v]);
        if (tptr[v + 1] - tptr[v] > LONG_ROW)
            block_add(active_in_row(tptr, tind, v, st, threadIdx.x, blockDim.x, false),
                      &cin[v]);
    }
    grid_sync(bar, gen);
    for (long long i = tid; i < nq; i += nthreads) {
        const I v = q[i];
        if (__ldcg(&cin[v]) == 0 || __ldcg(&cout[v]) == 0) {
            st[v] = -1;
            lv[v] = v;
            lp[v] = 1;
            qa[atomicAdd(&ctl[0], 1ull)] = v;
        }
    }
    grid_sync(bar, gen);
    unsigned long long removed = 0;
    int level = 0;
    for (;; ++level) {
        const unsigned long long nc = *(volatile unsigned long long*)&ctl[level % 3];
        if (nc == 0) break;
        removed += nc;
        if (tid == 0) ctl[(level + 2) % 3] = 0;
        const I* cur = (level & 1) ? qb : qa;
        I* next = (level & 1) ? qa : qb;
        unsigned long long* nnext = &ctl[(level + 1) % 3];
        const int mark = -(level + 2);
        for (long long w = tid / g; w < (long long)nc; w += ngroups) {
            const I v = __ldcg(&cur[w]);
            peel_row(aptr, aind, v, lane, g, true, st, mark, cin, next, nnext, lv, lp);
            peel_row(tptr, tind, v, lane, g, true, st, mark, cout, next, nnext, lv, lp);
        }
        for (long long h = blockIdx.x; h < nhubs; h += gridDim.x) {
            const I v = hubs[h];
            if (__ldcg(&st[v]) != -(level + 1)) continue;
            peel_row(aptr, aind, v, threadIdx.x, blockDim.x, false, st, mark, cin, next,
                     nnext, lv, lp);
            peel_row(tptr, tind, v, threadIdx.x, blockDim.x, false, st, mark, cout, next,
                     nnext, lv, lp);
        }
        grid_sync(bar, gen);
    }
    for (long long i = tid; i < nq; i += nthreads) {
        const I v = q[i];
        rp[v] = is_active(st, v);
        rv[v] = v;
    }
    if (tid == 0) {
        out[0] = (unsigned long long)nq - removed;
        out[1] = (unsigned long long)level;
    }
}

// The arcs of the active vertices q as an edge list: src/dst at start[w] onwards for q[w],
// alive[e] = 1 where the head is active too (pres).
template <typename I>
__global__ void scc_gather_edges(const I* __restrict__ aptr, const I* __restrict__ aind,
                                 const unsigned char* __restrict__ pres,
                                 const I* __restrict__ q, long long nq,
                                 const long long* __restrict__ start, int g, I* src, I* dst,
                                 unsigned char* alive) {
    const long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const long long nthreads = (long long)gridDim.x * blockDim.x;
    const int lane = (int)(tid & (g - 1));
    for (long long w = tid / g; w < nq; w += nthreads / g) {
        const I v = q[w];
        const long long base = start[w] - (long long)aptr[v];
        for (long long p = (long long)aptr[v] + lane; p < (long long)aptr[v + 1]; p += g) {
            const I x = aind[p];
            src[base + p] = v;
            dst[base + p] = x;
            alive[base + p] = pres[x];
        }
    }
}

// Lower *p to x; true if it was higher.
template <typename I>
__device__ __forceinline__ bool lower(I* p, I x) {
    return __ldcg(p) > x && atomicMin(p, x) > x;
}

// scc_signatures: every active vertex q[i] gets the smallest id of its component.
// Each round, fw(v) = the smallest id reaching v and bw(v) = the smallest id reachable from
// v, both over the alive arcs, by in-place (asynchronous) min propagation along each arc
// u -> v (fw(v) min= fw(u), bw(u) min= bw(v)) plus pointer jumping (fw(v) min= fw(fw(v)):
// fw(v) reaches v; the same for bw), swept until no value changes. In a sweep each block
// relaxes its own tile of arcs (consecutive sources) up to local_passes times, until the
// tile alone changes nothing, so values cross many arcs of a tile per sweep. Then v with
// fw(v) == bw(v) is done: its component is {u : fw(u) == fw(v), bw(u) == bw(v)} and fw(v)
// its smallest id. An arc whose ends' (fw, bw) differ cannot lie inside a component, nor
// can one at a done vertex: it dies. The others restart from their own ids; the smallest
// id left finishes every round, so the rounds end.
// fw(v) = -1 marks a done vertex. ctl[0..2]: "changed" flags (rotating by sweep),
// ctl[3..5]: vertices left (rotating by round). Results: out[0] rounds, out[1] sweeps.
template <typename I>
__global__ void __launch_bounds__(512)
scc_signatures_fused(const I* __restrict__ q, long long nq, const I* __restrict__ src,
                     const I* __restrict__ dst, unsigned char* alive, long long m, I* fw,
                     I* bw, long long* lv, unsigned char* lp, int local_passes,
                     unsigned long long* ctl, unsigned int* bar, unsigned long long* out) {
    unsigned int gen = 0;
    if (threadIdx.x == 0) gen = *(volatile unsigned int*)&bar[1];
    const long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const long long nthreads = (long long)gridDim.x * blockDim.x;
    const long long tile = (m + gridDim.x - 1) / gridDim.x;
    const long long lo = min(m, (long long)blockIdx.x * tile), hi = min(m, lo + tile);

    for (long long i = tid; i < nq; i += nthreads) {
        const I v = q[i];
        fw[v] = v;
        bw[v] = v;
    }
    grid_sync(bar, gen);
    unsigned long long sweeps = 0, rounds = 0;
    while (true) {
        while (true) {                                       // sweeps to the fixed point
            if (tid == 0) ctl[(sweeps + 1) % 3] = 0;
            bool changed = false;
            for (int pass = 0; pass < local_passes; ++pass) {   // this block's tile
                bool moved = false;
                for (long long e = lo + threadIdx.x; e < hi; e += blockDim.x) {
                    if (!__ldcg(&alive[e])) continue;
                    const I u = src[e], v = dst[e];
                    moved |= lower(&fw[v], __ldcg(&fw[u]));
                    moved |= lower(&bw[u], __ldcg(&bw[v]));
                }
                if (!__syncthreads_or(moved)) break;
                changed = true;
            }
            for (long long i = tid; i < nq; i += nthreads) {
                const I v = q[i];
                const I f = __ldcg(&fw[v]);
                if (f < 0) continue;
                changed |= lower(&fw[v], __ldcg(&fw[f]));
                changed |= lower(&bw[v], __ldcg(&bw[__ldcg(&bw[v])]));
            }
            if (__syncthreads_or(changed) && threadIdx.x == 0) ctl[sweeps % 3] = 1;
            grid_sync(bar, gen);
            const bool again = *(volatile unsigned long long*)&ctl[sweeps % 3] != 0;
            ++sweeps;
            if (!again) break;
        }
        unsigned long long left = 0;                        // finish the round
        if (tid == 0) ctl[3 + (rounds + 1) % 3] = 0;
        for (long long i = tid; i < nq; i += nthreads) {
            const I v = q[i];
            const I f = __ldcg(&fw[v]);
            if (f < 0) continue;
            if (f == __ldcg(&bw[v])) {
                lv[v] = f;
                lp[v] = 1;
            } else {
                ++left;
            }
        }
        for (long long e = tid; e < m; e += nthreads) {
            if (!__ldcg(&alive[e])) continue;
            const I u = src[e], v = dst[e];
            const I fu = __ldcg(&fw[u]), bu = __ldcg(&bw[u]);
            if (fu == bu || fu != __ldcg(&fw[v]) || bu != __ldcg(&bw[v])) alive[e] = 0;
        }
        block_add(left, &ctl[3 + rounds % 3]);
        grid_sync(bar, gen);
        const unsigned long long still = *(volatile unsigned long long*)&ctl[3 + rounds % 3];
        ++rounds;
        if (still == 0) break;
        for (long long i = tid; i < nq; i += nthreads) {     // restart the others
            const I v = q[i];
            const I f = __ldcg(&fw[v]);
            if (f < 0) continue;
            if (f == __ldcg(&bw[v])) {
                fw[v] = -1;
            } else {
                fw[v] = v;
                bw[v] = v;
            }
        }
        grid_sync(bar, gen);
    }
    if (tid == 0) {
        out[0] = rounds;
        out[1] = sweeps;
    }
}
