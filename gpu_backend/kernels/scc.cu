// Fused SCC group steps (gpu_backend/scc_steps.py). Templated over the index type I of the
// CSR arrays (int or long long); instantiated through RawModule name expressions.
//
// Both persistent kernels keep all blocks resident (a cooperative launch) and loop to their
// fixed point on the device, with a software grid barrier between phases; every block
// reads the same control word after a barrier and takes the same branch.
//   ctl  control words, zero at launch (rotating by level / sweep / round, see each kernel)
//   bar  the grid barrier's word (shared.cuh blocks_sync)
//   out  results (device words, read by the host once, after the kernel)
// Vertices are handled by groups of g lanes (g a power of two <= 32, "virtual warps"
// sized to the average degree): the lanes of a group stride over one vertex's row. Rows
// longer than LONG_ROW are cut into chunks of CHUNK arcs (shared.cuh), each handled by a
// whole block.

#include "shared.cuh"

template <typename I> struct Counter { typedef unsigned long long T; };
template <> struct Counter<int> { typedef unsigned T; };
template <typename I> struct Pair { typedef longlong2 T; };
template <> struct Pair<int> { typedef int2 T; };

// The top bit of a count marks the direction of a long row: its vertex is not counted down
// (every removed neighbour would hit the same word) but checked once a level (stamp below).
template <typename C> __device__ __forceinline__ C hub_bit() { return C(1) << (8 * sizeof(C) - 1); }

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

__device__ __forceinline__ bool is_active(const int* st, long long x) {
    return __ldcg(&st[x]) > 0;
}

// Active vertices among ind[lo..hi), counted by `step` lanes from `lane`.
template <typename I>
__device__ __forceinline__ unsigned long long active_in(const I* __restrict__ ind, long long lo,
                                                        long long hi, const int* st, int lane,
                                                        int step) {
    unsigned long long c = 0;
    for (long long p = lo + lane; p < hi; p += step) c += is_active(st, ind[p]);
    return c;
}

// Claim active x for the next level (st 1 -> mark; one thread wins), label it by its own
// id and append it to the next level's queue.
template <typename I>
__device__ __forceinline__ void claim(I x, int* st, int mark, I* next,
                                      unsigned long long* nnext, long long* lv,
                                      unsigned char* lp) {
    if (atomicCAS(&st[x], 1, mark) == 1) {
        lv[x] = x;
        lp[x] = 1;
        next[slot(nnext)] = x;
    }
}

// A removed vertex's neighbours ind[lo..hi) (by `step` lanes from `lane`) each lose one
// active neighbour: one still active whose count falls to zero is claimed.
template <typename I, typename C>
__device__ __forceinline__ void peel(const I* __restrict__ ind, long long lo, long long hi,
                                     int lane, int step, int* st, int mark, C* count, I* next,
                                     unsigned long long* nnext, long long* lv,
                                     unsigned char* lp) {
    for (long long p = lo + lane; p < hi; p += step) {
        const I x = ind[p];
        if (is_active(st, x) && !(__ldcg(&count[x]) & hub_bit<C>()) &&
            decrement(&count[x]) == 1)
            claim(x, st, mark, next, nnext, lv, lp);
    }
}

// v's row in one direction: [lo, hi), made empty for a long row (true).
template <typename I>
__device__ __forceinline__ bool long_row(const I* __restrict__ ptr, I v, long long& lo,
                                         long long& hi) {
    lo = ptr[v];
    hi = ptr[v + 1];
    if (hi - lo <= LONG_ROW) return false;
    hi = lo;
    return true;
}

// scc_trim: label by its own id every active vertex without an active in- or out-neighbour,
// repeatedly. st[v] starts as the active bitmap pres (1 active, 0 not); cin / cout count
// each active vertex's active in- / out-neighbours; then the vertices at zero are peeled
// level by level (qa, qb alternate), each removal decrementing its neighbours' counts. A
// vertex in the queue of level L has st = -(L + 1). When every vertex is active the counts
// are the row lengths. A long row's count is instead the hub
// bit plus a stamp: each level, the blocks scan the chunks of the long rows of active
// vertices for an active neighbour (stopping at the first) and stamp the count with the
// level; an active vertex whose stamp is missing then has none and is claimed. The fixed
// point is unique, so the order of removals does not matter. The chunks of long rows:
// (acv, aclo)[0..nac) of A, (tcv, tclo)[0..ntc) of AT. ctl[0..2]: level queue sizes
// (rotating). Results: out[0] vertices left, out[1] levels. Left: rp[v] = 1 and rv[v] = v
// for every active vertex kept (rp zero elsewhere).
template <typename I>
__global__ void __launch_bounds__(512)
scc_trim_fused(const I* __restrict__ aptr, const I* __restrict__ aind,
               const I* __restrict__ tptr, const I* __restrict__ tind,
               const unsigned char* __restrict__ pres, long long n,
               const I* __restrict__ q, long long nq,
               const I* __restrict__ acv, const long long* __restrict__ aclo, long long nac,
               const I* __restrict__ tcv, const long long* __restrict__ tclo, long long ntc,
               int g, int* st, typename Counter<I>::T* cin,
               typename Counter<I>::T* cout, I* qa, I* qb, long long* lv, unsigned char* lp,
               long long* rv, unsigned char* rp, unsigned long long* ctl, unsigned int* bar,
               unsigned long long* out) {
    typedef typename Counter<I>::T C;
    const long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const long long nthreads = (long long)gridDim.x * blockDim.x;
    const int lane = (int)(tid & (g - 1));
    const long long ngroups = nthreads / g;
    const long long nchunks = nac + ntc;
    long long lo, hi;

    for (long long v = tid; v < n; v += nthreads) st[v] = pres[v];
    grid_sync(bar);
    const bool everyone = nq == n;                            // counts = row lengths
    for (long long w = tid / g; w < nq; w += ngroups) {       // counts of short rows
        const I v = q[w];
        const bool out_long = long_row(aptr, v, lo, hi);
        const unsigned long long out_n =
            everyone ? hi - lo : group_sum(active_in(aind, lo, hi, st, lane, g), g);
        const bool in_long = long_row(tptr, v, lo, hi);
        const unsigned long long in_n =
            everyone ? hi - lo : group_sum(active_in(tind, lo, hi, st, lane, g), g);
        if (lane == 0) {
            cout[v] = out_long ? hub_bit<C>() : (C)out_n;
            cin[v] = in_long ? hub_bit<C>() : (C)in_n;
        }
    }
    grid_sync(bar);
    for (long long i = tid; i < nq; i += nthreads) {
        const I v = q[i];
        if (__ldcg(&cin[v]) == 0 || __ldcg(&cout[v]) == 0) {
            st[v] = -1;
            lv[v] = v;
            lp[v] = 1;
            qa[slot(&ctl[0])] = v;
        }
    }
    grid_sync(bar);
    unsigned long long removed = 0;
    int level = 0;
    for (;; ++level) {
        const unsigned long long nc = *(volatile unsigned long long*)&ctl[level % 3];
        if (nc == 0 && (nchunks == 0 || level > 0)) break;   // (level 0 checks the hubs)
        removed += nc;
        if (tid == 0) ctl[(level + 2) % 3] = 0;
        const I* cur = (level & 1) ? qb : qa;
        I* next = (level & 1) ? qa : qb;
        unsigned long long* nnext = &ctl[(level + 1) % 3];
        const int mark = -(level + 2);
        for (long long w = tid / g; w < (long long)nc; w += ngroups) {
            const I v = __ldcg(&cur[w]);
            long_row(aptr, v, lo, hi);
            peel(aind, lo, hi, lane, g, st, mark, cin, next, nnext, lv, lp);
            long_row(tptr, v, lo, hi);
            peel(tind, lo, hi, lane, g, st, mark, cout, next, nnext, lv, lp);
        }
        for (long long c = blockIdx.x; c < nchunks; c += gridDim.x) {   // removed hubs' rows
            const bool fwd = c < nac;
            const I v = fwd ? chunk_of(aptr, acv, aclo, c, lo, hi)
                            : chunk_of(tptr, tcv, tclo, c - nac, lo, hi);
            if (__ldcg(&st[v]) != -(level + 1)) continue;
            peel(fwd ? aind : tind, lo, hi, (int)threadIdx.x, (int)blockDim.x, st, mark,
                 fwd ? cin : cout, next, nnext, lv, lp);
        }
        if (nchunks) {                                       // active hubs: any neighbour?
            const C stamp = hub_bit<C>() | (C)(level + 1);
            grid_sync(bar);
            for (long long c = blockIdx.x; c < nchunks; c += gridDim.x) {
                const bool fwd = c < nac;
                const I v = fwd ? chunk_of(aptr, acv, aclo, c, lo, hi)
                                : chunk_of(tptr, tcv, tclo, c - nac, lo, hi);
                if (!is_active(st, v)) continue;
                const I* ind = fwd ? aind : tind;
                for (long long p = lo; p < hi; p += blockDim.x) {
                    const bool found = p + threadIdx.x < hi && is_active(st, ind[p + threadIdx.x]);
                    if (__syncthreads_or(found)) {
                        if (threadIdx.x == 0) (fwd ? cout : cin)[v] = stamp;
                        break;
                    }
                }
            }
            grid_sync(bar);
            for (long long c = tid; c < nchunks; c += nthreads) {
                const bool fwd = c < nac;
                const I v = fwd ? chunk_of(aptr, acv, aclo, c, lo, hi)
                                : chunk_of(tptr, tcv, tclo, c - nac, lo, hi);
                if (lo == (long long)(fwd ? aptr : tptr)[v] && is_active(st, v) &&
                    __ldcg(&(fwd ? cout : cin)[v]) != stamp)
                    claim(v, st, mark, next, nnext, lv, lp);
            }
        }
        grid_sync(bar);
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

// The arcs of the active vertices q (ascending) as (tail, head) pairs at start[w] onwards
// for q[w]; an arc whose head is not active (pres) becomes (tail, tail), which carries
// nothing and is dropped after the first round. Short rows by groups of g lanes, the chunks
// (acv, aclo)[0..nac) of long rows by whole blocks (their place in q found by bisection).
template <typename I>
__global__ void scc_gather_edges(const I* __restrict__ aptr, const I* __restrict__ aind,
                                 const unsigned char* __restrict__ pres,
                                 const I* __restrict__ q, long long nq,
                                 const long long* __restrict__ start, int g,
                                 const I* __restrict__ acv, const long long* __restrict__ aclo,
                                 long long nac, typename Pair<I>::T* arcs) {
    const long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const long long nthreads = (long long)gridDim.x * blockDim.x;
    const int lane = (int)(tid & (g - 1));
    long long lo, hi;
    for (long long w = tid / g; w < nq; w += nthreads / g) {
        const I v = q[w];
        long_row(aptr, v, lo, hi);
        const long long base = start[w] - lo;
        for (long long p = lo + lane; p < hi; p += g) {
            const I x = aind[p];
            arcs[base + p] = {v, pres[x] ? x : v};
        }
    }
    for (long long c = blockIdx.x; c < nac; c += gridDim.x) {
        const I v = chunk_of(aptr, acv, aclo, c, lo, hi);
        if (!pres[v]) continue;
        long long a = 0, b = nq;                             // q[a] == v
        while (a < b) {
            const long long mid = (a + b) / 2;
            if (q[mid] < v) a = mid + 1; else b = mid;
        }
        const long long base = start[a] - (long long)aptr[v];
        for (long long p = lo + threadIdx.x; p < hi; p += blockDim.x) {
            const I x = aind[p];
            arcs[base + p] = {v, pres[x] ? x : v};
        }
    }
}

// Lower *p to x; true if it was higher. A plain store: racing threads may leave the larger
// of two offers, which is still an id that reaches (is reached from) the vertex; the arc of
// the smaller one then lowers it again in the next sweep, since this one reported a change.
template <typename I>
__device__ __forceinline__ bool lower(I* p, I x) {
    if (__ldcg(p) <= x) return false;
    __stcg(p, x);
    return true;
}

// Relax the arcs e = b + lane of a warp (those with ok; ea[b..b+32) are consecutive arcs)
// along runs of arcs that follow each other, arc e's head the tail of arc e + 1 (a path
// numbered along itself): fw(head) takes the smallest fw at the run's vertices up to it,
// bw(tail) the smallest bw at those from it on (segmented minimum scans over the lanes), so
// a value crosses a run of 32 arcs in one pass instead of one arc against the lanes'
// order. True if some value went down.
template <typename I, typename P>
__device__ __forceinline__ bool relax_runs(const P* ea, long long e, bool ok, P* sig,
                                           int lane) {
    const I none = ~(I(1) << (8 * sizeof(I) - 1));                 // above every id
    P a = {none, none}, su = {none, none}, sv = {none, none};
    if (ok) {
        a = ea[e];
        su = __ldcg(&sig[a.x]);
        sv = __ldcg(&sig[a.y]);
    }
    const I prev_head = __shfl_up_sync(0xffffffffu, a.y, 1);
    const I next_tail = __shfl_down_sync(0xffffffffu, a.x, 1);
    // the lanes where a run starts and where one ends: this lane's run is first..last
    const unsigned starts = __ballot_sync(0xffffffffu, !(lane > 0 && prev_head == a.x));
    const unsigned ends = __ballot_sync(0xffffffffu, !(lane < 31 && next_tail == a.y));
    I fw = min(su.x, sv.x), bw = min(su.y, sv.y);
    if (starts != 0xffffffffu) {                 // some arc follows another in this warp
        const int first = 31 - __clz(starts & (0xffffffffu >> (31 - lane)));
        const int last = lane + __ffs(ends >> lane) - 1;
#pragma unroll
        for (int d = 1; d < 32; d <<= 1) {
            const I fw_up = __shfl_up_sync(0xffffffffu, fw, d);
            const I bw_down = __shfl_down_sync(0xffffffffu, bw, d);
            if (lane - d >= first) fw = min(fw, fw_up);
            if (lane + d <= last) bw = min(bw, bw_down);
        }
    }
    bool moved = false;
    if (fw < sv.x) moved |= lower(&sig[a.y].x, fw);
    if (bw < su.y) moved |= lower(&sig[a.x].y, bw);
    return moved;
}

// Does arc (u, v) stay for the next round? Only inside a class of vertices not done.
template <typename P>
__device__ __forceinline__ bool arc_stays(const P& a, const P* sig) {
    if (a.x == a.y) return false;
    const P su = __ldcg(&sig[a.x]), sv = __ldcg(&sig[a.y]);
    return su.x != su.y && su.x == sv.x && su.y == sv.y;
}

// scc_signatures: every active vertex q[i] gets the smallest id of its component.
// Each round, sig[v] = (fw(v), bw(v)): fw(v) = the smallest id reaching v and bw(v) = the
// smallest id reachable from v, both over the arcs of the round, by in-place (asynchronous)
// min propagation along each arc u -> v (fw(v) min= fw(u), bw(u) min= bw(v)) plus pointer
// jumping (fw(v) min= fw(fw(v)): fw(v) reaches v; the same for bw), swept until no value
// changes. In a sweep each block relaxes its own tile of arcs (consecutive tails) up to
// `passes` times, until the tile alone changes nothing, so values cross many arcs of a tile
// per sweep; `passes` is local_passes while the arcs fit in `cache_arcs`, else 1 (a tile
// then comes from memory at each pass). Then v with fw(v) == bw(v) is done: its component
// is {u : sig(u) == sig(v)} and fw(v) its smallest id. An arc whose ends' signatures differ
// cannot lie inside a component, nor can one at a done vertex: the round drops it. The
// vertices left are listed in the other buffer (in any order) and the arcs left compacted
// in place (in order, so that a tile keeps neighbouring tails), and they restart from
// their own ids; the smallest id left finishes every round, so the rounds end.
// The kernel hands the rest over to the host (which labels it by Tarjan's algorithm) once a
// round has run longer than ns_per_item nanoseconds per vertex and arc it started with, or
// after max_sweeps sweeps in all: at the end of a sweep that changed something, the round's
// vertex list (the vertices not done, a union of whole components) stays in the buffer of
// this round and the kernel returns. With a `stop` word (host memory the device reads; else
// null) a round past its time sweeps on and reads the word after each sweep instead: the
// host, racing the kernel on the whole graph, sets it once it has every label, and the
// kernel then hands over what is left.
// (qa, qb): vertex lists, alternating by round; ea: the arcs; part[b]: block b's count of
// arcs kept. ctl[0..2]: "changed" (bit 0) and "hand over" (bit 1) flags, rotating
// by sweep; ctl[3..5]: vertices left (rotating by round). Results: out[0] rounds finished,
// out[1] sweeps, out[2] vertices handed over (0: all labelled); then for each of the first
// LOG_ROUNDS rounds, out[3 + 3 r ...]: the sweeps so far, the vertices left and the
// nanoseconds since the start, at its end.
#define LOG_ROUNDS 32

// Nanoseconds a round may take: ns_per_item per vertex and arc, unbounded for infinity.
__device__ __forceinline__ unsigned long long budget(double ns_per_item, long long items) {
    const double ns = ns_per_item * (double)items;
    return ns < 1e19 ? (unsigned long long)ns : ~0ull;
}

// Exclusive prefix sums of the blocks' counts part[0..gridDim.x) into tile_start (shared
// memory, gridDim.x <= MAX_BLOCKS; the same in every block); returns their total.
#define MAX_BLOCKS 1024
__shared__ unsigned long long tile_start[MAX_BLOCKS + 1];

__device__ __forceinline__ unsigned long long tile_offsets(const unsigned long long* part) {
    const int nb = (int)gridDim.x;
    #pragma unroll 1
    for (int b = threadIdx.x; b < nb; b += blockDim.x) tile_start[b + 1] = __ldcg(&part[b]);
    __syncthreads();
    if (threadIdx.x == 0) {
        tile_start[0] = 0;
        #pragma unroll 1
        for (int b = 1; b <= nb; ++b) tile_start[b] += tile_start[b - 1];
    }
    __syncthreads();
    return tile_start[nb];
}

// Arcs kept at the start of each block's tile (block b: tile_start[b + 1] - tile_start[b]
// of them from b * tile) moved down to [tile_start[b], ...), so that the `total` kept arcs
// lie in [0, total), in order. By stretches of STAGE arcs a block, staged in shared memory:
// the arcs that land in a stretch come from it or beyond (tile_start[b] <= b * tile), and
// a stretch is read whole (a grid barrier) before it is written, so no arc is overwritten
// before it is read.
#define STAGE 1024
template <typename P>
__device__ __forceinline__ void move_down(P* ea, P* stage, unsigned long long total,
                                          long long tile, unsigned int* bar) {
    const long long stretch = (long long)gridDim.x * STAGE;
    #pragma unroll 1
    for (long long base = 0; base < (long long)total; base += stretch) {
        const long long first = base + (long long)blockIdx.x * STAGE;
        #pragma unroll 1
        for (int k = threadIdx.x; k < STAGE && first + k < (long long)total; k += blockDim.x) {
            const long long j = first + k;
            int lo = 0, hi = (int)gridDim.x - 1;             // the last b: tile_start[b] <= j
            while (lo < hi) {
                const int mid = (lo + hi + 1) / 2;
                if (tile_start[mid] <= (unsigned long long)j) lo = mid; else hi = mid - 1;
            }
            stage[k] = ea[lo * tile + (j - (long long)tile_start[lo])];
        }
        grid_sync(bar);
        #pragma unroll 1
        for (int k = threadIdx.x; k < STAGE && first + k < (long long)total; k += blockDim.x)
            ea[first + k] = stage[k];
    }
}

// The arcs of this block's tile [lo, hi) that stay (arc_stays), moved in order to the start
// of the tile, by stretches of blockDim.x arcs: each warp stages its kept arcs in `stage`
// (shared memory) before any is written back, and no arc moves up. Returns how many stay.
template <typename P>
__device__ __forceinline__ unsigned long long keep_in_tile(P* ea, const P* sig, P* stage,
                                                           long long lo, long long hi) {
    __shared__ int warp_kept[33];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    unsigned long long kept = 0;
    P* out = ea + lo;
    #pragma unroll 1
    for (long long e = lo; e < hi; e += blockDim.x) {
        const bool keep = e + threadIdx.x < hi && arc_stays(ea[e + threadIdx.x], sig);
        const unsigned ballot = __ballot_sync(0xffffffffu, keep);
        if (keep) stage[warp * 32 + __popc(ballot & ((1u << lane) - 1u))] = ea[e + threadIdx.x];
        if (lane == 0) warp_kept[warp + 1] = __popc(ballot);
        __syncthreads();
        if (threadIdx.x == 0) {
            warp_kept[0] = 0;
            #pragma unroll 1
            for (int w = 1; w <= (int)(blockDim.x >> 5); ++w) warp_kept[w] += warp_kept[w - 1];
        }
        __syncthreads();
        if (lane < warp_kept[warp + 1] - warp_kept[warp])
            out[warp_kept[warp] + lane] = stage[warp * 32 + lane];
        kept += warp_kept[blockDim.x >> 5];
        out += warp_kept[blockDim.x >> 5];
        __syncthreads();
    }
    return kept;
}

// Held to 32 registers (four blocks of 512 a multiprocessor): the sweeps wait on scattered
// loads and want every warp resident; the compaction's code would raise the count to 38-40.
// RUNS: the passes relax runs of arcs that follow each other (relax_runs; the host chooses
// it where most rows end with an arc to the next id), else each arc alone.
template <typename I, bool RUNS>
__global__ void __launch_bounds__(512, 4)
scc_signatures_fused(I* qa, I* qb, long long nq, typename Pair<I>::T* ea, long long m,
                     typename Pair<I>::T* sig,
                     long long* lv, unsigned char* lp, int local_passes, long long cache_arcs,
                     double ns_per_item, unsigned long long max_sweeps,
                     const unsigned int* stop, unsigned long long* part,
                     unsigned long long* ctl, unsigned int* bar, unsigned long long* out) {
    typedef typename Pair<I>::T P;
    const long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const long long nthreads = (long long)gridDim.x * blockDim.x;
    __shared__ unsigned long long t0, t_round, round_ns;    // (block 0's, read by tid 0)
    if (threadIdx.x == 0) {
        t0 = t_round = global_ns();
        round_ns = budget(ns_per_item, nq + m);
    }

    for (long long i = tid; i < nq; i += nthreads) sig[qa[i]] = {qa[i], qa[i]};
    grid_sync(bar);
    unsigned long long sweeps = 0, rounds = 0;
    bool hand_over = false;
    while (true) {
        const long long tile = (m + gridDim.x - 1) / gridDim.x;
        const long long lo = min(m, (long long)blockIdx.x * tile), hi = min(m, lo + tile);
        const int passes = m <= cache_arcs ? local_passes : 1;
        while (true) {                                       // sweeps to the fixed point
            if (tid == 0) ctl[(sweeps + 1) % 3] = 0;
            bool changed = false;
            for (int pass = 0; pass < passes; ++pass) {      // this block's tile
                bool moved = false;
                if (RUNS) {
                    for (long long b = lo + (threadIdx.x & ~31); b < hi; b += blockDim.x) {
                        const long long e = b + (threadIdx.x & 31);
                        moved |= relax_runs<I>(ea, e, e < hi, sig, threadIdx.x & 31);
                    }
                } else {
                    for (long long e = lo + threadIdx.x; e < hi; e += blockDim.x) {
                        const P a = ea[e];
                        const P su = __ldcg(&sig[a.x]), sv = __ldcg(&sig[a.y]);
                        if (su.x < sv.x) moved |= lower(&sig[a.y].x, su.x);
                        if (sv.y < su.y) moved |= lower(&sig[a.x].y, sv.y);
                    }
                }
                if (!__syncthreads_or(moved)) break;
                changed = true;
            }
            for (long long i = tid; i < nq; i += nthreads) {
                const I v = qa[i];
                const P s = __ldcg(&sig[v]);
                changed |= lower(&sig[v].x, __ldcg(&sig[s.x].x));
                changed |= lower(&sig[v].y, __ldcg(&sig[s.y].y));
            }
            if (__syncthreads_or(changed) && threadIdx.x == 0) atomicOr(&ctl[sweeps % 3], 1ull);
            if (tid == 0 && (sweeps + 1 >= max_sweeps ||
                             (global_ns() - t_round > round_ns &&
                              (stop == nullptr || *(const volatile unsigned int*)stop))))
                atomicOr(&ctl[sweeps % 3], 2ull);
            grid_sync(bar);
            const unsigned long long flags = *(volatile unsigned long long*)&ctl[sweeps % 3];
            ++sweeps;
            if (!(flags & 1)) break;
            hand_over = flags & 2;
            if (hand_over) break;
        }
        if (hand_over) break;
        unsigned long long* left = &ctl[3 + rounds % 3];    // finish the round
        if (tid == 0) ctl[3 + (rounds + 1) % 3] = 0;
        for (long long i = tid; i < nq; i += nthreads) {
            const I v = qa[i];
            const P s = __ldcg(&sig[v]);
            if (s.x == s.y) {
                lv[v] = s.x;
                lp[v] = 1;
            } else {
                qb[slot(left)] = v;
            }
        }
        grid_sync(bar);
        const long long nleft = (long long)*(volatile unsigned long long*)left;
        if (tid == 0 && rounds < LOG_ROUNDS) {
            out[3 + 3 * rounds] = sweeps;
            out[4 + 3 * rounds] = nleft;
            out[5 + 3 * rounds] = global_ns() - t0;
        }
        ++rounds;
        if (nleft == 0) break;
        // The arcs that stay, compacted in place, in order: first each block's within its
        // tile, then the tiles' kept prefixes down to their places.
        __shared__ P stage[STAGE];
        const unsigned long long kept = keep_in_tile(ea, sig, stage, lo, hi);
        if (threadIdx.x == 0) part[blockIdx.x] = kept;
        grid_sync(bar);
        const unsigned long long total = tile_offsets(part);
        move_down(ea, stage, total, tile, bar);
        m = (long long)total;
        nq = nleft;
        if (tid == 0) {
            t_round = global_ns();
            round_ns = budget(ns_per_item, nq + m);
        }
        grid_sync(bar);
        for (long long i = tid; i < nq; i += nthreads) {     // restart the others
            const I v = qb[i];
            sig[v] = {v, v};
        }
        I* tq = qa; qa = qb; qb = tq;
        grid_sync(bar);
    }
    if (tid == 0) {
        out[0] = rounds;
        out[1] = sweeps;
        out[2] = hand_over ? nq : 0;
    }
}

// Labels computed on the host: lv[ids[i]] = values[i] and lp[ids[i]] = 1 for i < k.
template <typename I>
__global__ void scc_set_labels(const I* __restrict__ ids, const I* __restrict__ values,
                               long long k, long long* lv, unsigned char* lp) {
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < k;
         i += (long long)gridDim.x * blockDim.x) {
        lv[ids[i]] = values[i];
        lp[ids[i]] = 1;
    }
}

// The pivot's component (scc_steps.py scc_pivot_component): the vertices that both of its
// searches reached (levels fw and bw at least 0). Unless the backward search stopped short
// (*left nonzero: nothing changes), each is labelled by the smallest of them (lv, lp) and
// leaves the active vertices (ap), and the active vertices left are listed in `queue`,
// ascending. One cooperative launch; block b takes the b-th of gridDim.x equal ranges of
// ids: the smallest id of the component and each block's count of vertices left, a grid
// barrier (bar, shared.cuh blocks_sync), then the labels and the list, each block's part
// at the sum of the counts before it. out: [0] the smallest id, [1] the vertices listed,
// [2] *left (read by the host), [3 + b] block b's count.
template <typename I>
__global__ void scc_pivot_label(const long long* __restrict__ fw,
                                const long long* __restrict__ bw, long long n,
                                const unsigned long long* left, long long* lv, unsigned char* lp,
                                unsigned char* ap, I* queue, unsigned long long* out,
                                unsigned int* bar) {
    __shared__ unsigned long long kept;
    __shared__ long long least;
    const long long G = gridDim.x, b = blockIdx.x;
    const long long lo = n * b / G, hi = n * (b + 1) / G;
    const unsigned long long stopped = *left;
    long long* first = (long long*)out;
    if (b == 0 && threadIdx.x == 0) out[2] = stopped;
    if (stopped) return;                       // every block alike: no barrier is entered
    auto in_component = [&](long long v) { return fw[v] >= 0 && bw[v] >= 0; };
    if (threadIdx.x == 0) {
        kept = 0;
        least = n;
    }
    if (b == 0 && threadIdx.x == 0) *first = n;
    grid_sync(bar);                            // (the barrier orders the block's words too)
    long long mine = n;
    unsigned long long count = 0;
    for (long long v = lo + threadIdx.x; v < hi; v += blockDim.x) {
        const bool in = in_component(v);
        if (in && mine == n) mine = v;         // a thread's first is its smallest
        count += !in && ap[v];
    }
    for (int o = 16; o; o >>= 1) {             // one atomic a warp into the block's words,
        mine = min(mine, __shfl_down_sync(0xffffffffu, mine, o));
        count += __shfl_down_sync(0xffffffffu, count, o);
    }
    if ((threadIdx.x & 31) == 0) {
        if (count) atomicAdd(&kept, count);
        if (mine < n) atomicMin(&least, mine);
    }
    __syncthreads();
    if (threadIdx.x == 0) {                    // ... and one a block into the grid's
        out[3 + b] = kept;
        if (least < n) atomicMin(first, least);
    }
    grid_sync(bar);
    const long long c = __ldcg(first);
    unsigned long long at = sum_before(out + 3, b);
    if (b == G - 1 && threadIdx.x == 0) out[1] = at + __ldcg(out + 3 + b);
    for (long long base = lo; base < hi; base += blockDim.x) {
        const long long v = base + threadIdx.x;
        const bool in = v < hi && in_component(v);
        const bool stays = v < hi && !in && ap[v];
        unsigned long long total;
        const unsigned long long pos = block_excl_scan<unsigned long long>(stays, &total);
        if (in) {
            lv[v] = c;
            lp[v] = 1;
            ap[v] = 0;
        } else if (stays) {
            queue[at + pos] = (I)v;
        }
        at += total;
    }
}
