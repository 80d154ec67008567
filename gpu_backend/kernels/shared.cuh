// Device functions shared by the kernel sources (#include'd).
#pragma once

// Software barrier of the first `count` blocks of a resident grid (the launch must keep
// every block resident), on one word that is a multiple of 2^31 between barriers: thread
// 0 of each block adds to it, block 0 2^31 - (count - 1) and the others 1, so that its top
// bit flips as the last block arrives, and waits for that flip (the scheme of cooperative
// groups' grid barrier: the last arrival itself releases the others). The adds release;
// the polls are relaxed loads, then one acquire fence, so that what a block wrote before
// the barrier is seen by every block after it (polling with acquire loads cost the road
// maps' connected components 10-20%, likely because each one invalidates the
// multiprocessor's L1, which the blocks still working there read through). A block that
// expects a long wait pauses between polls, at most `wait_ns` (0: it spins).
__device__ __forceinline__ void wait_flip(const unsigned int* word, unsigned int before,
                                          unsigned int wait_ns) {
    for (unsigned int ns = 32;; ns = min(2 * ns, wait_ns)) {
        unsigned int now;
        asm volatile("ld.relaxed.gpu.u32 %0, [%1];" : "=r"(now) : "l"(word) : "memory");
        if ((now ^ before) & 0x80000000u) break;
        if (wait_ns) __nanosleep(ns);
    }
    asm volatile("fence.acq_rel.gpu;" ::: "memory");
}

__device__ __forceinline__ unsigned int arrival(unsigned int count) {
    return blockIdx.x == 0 ? 0x80000000u - (count - 1) : 1u;
}

__device__ __forceinline__ void blocks_sync(unsigned int* bar, unsigned int count,
                                            unsigned int wait_ns = 0) {
    __syncthreads();
    if (threadIdx.x == 0) {
        unsigned int before;
        asm volatile("atom.add.release.gpu.u32 %0, [%1], %2;"
                     : "=r"(before) : "l"(bar), "r"(arrival(count)) : "memory");
        wait_flip(bar, before, wait_ns);
    }
    __syncthreads();
}

// blocks_sync whose last block to arrive calls last() (its thread 0) before the others
// go: the arrivals flip bar[0] as above, and the block whose add flipped it (it sees
// every block's writes) runs last(), then releases the others by flipping bar[1].
template <class Last>
__device__ __forceinline__ void blocks_sync(unsigned int* bar, unsigned int count,
                                            Last last) {
    __syncthreads();
    if (threadIdx.x == 0) {
        const unsigned int add = arrival(count);
        const unsigned int go = *(volatile unsigned int*)&bar[1];  // flips after we arrive
        unsigned int before;
        asm volatile("atom.add.acq_rel.gpu.u32 %0, [%1], %2;"
                     : "=r"(before) : "l"(bar), "r"(add) : "memory");
        if ((before ^ (before + add)) & 0x80000000u) {
            last();
            asm volatile("red.add.release.gpu.u32 [%0], %1;"
                         :: "l"(bar + 1), "r"(0x80000000u) : "memory");
        } else {
            wait_flip(bar + 1, go, 0);
        }
    }
    __syncthreads();
}

// The barrier of a whole resident grid.
__device__ __forceinline__ void grid_sync(unsigned int* bar) {
    blocks_sync(bar, gridDim.x);
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

// The sum of part[0..b), for every thread of the block (which all must call it): the
// counts of the blocks before block b, where each block wrote its own before a barrier.
template <typename T>
__device__ __forceinline__ T sum_before(const T* part, long long b) {
    T mine = 0, total;
    for (long long i = threadIdx.x; i < b; i += blockDim.x) mine += __ldcg(part + i);
    block_excl_scan(mine, &total);
    return total;
}

// A slot in a list whose length is *count, for each calling thread: one atomicAdd for the
// threads of a warp that call together (a queue's length is one word that every append
// would otherwise hit).
__device__ __forceinline__ unsigned long long slot(unsigned long long* count) {
    const unsigned mask = __activemask();
    const int lane = threadIdx.x & 31, leader = __ffs(mask) - 1;
    unsigned long long base = 0;
    if (lane == leader) base = atomicAdd(count, (unsigned long long)__popc(mask));
    return __shfl_sync(mask, base, leader) + __popc(mask & ((1u << lane) - 1u));
}

// Rows longer than LONG_ROW are cut into chunks of CHUNK entries, each handled by a whole
// block, so that no thread or warp walks a hub's row alone (the host lists the chunks:
// storage.long_row_chunks, whose constants these are).
#define LONG_ROW 512
#define CHUNK 2048

// Chunk c of the long rows of one matrix (cv: each chunk's vertex, clo: its first entry):
// its vertex and entries [lo, hi).
template <typename I>
__device__ __forceinline__ I chunk_of(const I* __restrict__ ptr, const I* __restrict__ cv,
                                      const long long* __restrict__ clo, long long c,
                                      long long& lo, long long& hi) {
    const I v = cv[c];
    lo = clo[c];
    hi = min(lo + CHUNK, (long long)ptr[v + 1]);
    return v;
}

// Lock-free union-find whose roots are the smallest ids of their sets: a join hooks the
// larger root under the smaller one (by CAS on the root), so parent[x] <= x everywhere.
__device__ __forceinline__ int cas(int* p, int expected, int value) {
    return atomicCAS(p, expected, value);
}

__device__ __forceinline__ long long cas(long long* p, long long expected, long long value) {
    return (long long)atomicCAS((unsigned long long*)p, (unsigned long long)expected,
                                (unsigned long long)value);
}

// The root of x's set. Path halving: each vertex passed is pointed at its grandparent, an
// ancestor, with a plain store (only roots change by CAS, and x is no root). Loads bypass
// L1, which does not see other blocks' joins, unless Cached: then a load may return what
// this SM read before, an ancestor that has since been hooked (every value parent[x] ever
// held is an ancestor of x, or x while x was a root), which is enough for a caller that
// hooks the root it got by CAS (a failed CAS returns the root's new parent).
template <bool Cached = false, typename I>
__device__ __forceinline__ I root_of(I x, I* parent) {
    while (true) {
        const I p = Cached ? parent[x] : __ldcg(parent + x);
        if (p == x) return x;
        const I g = Cached ? parent[p] : __ldcg(parent + p);
        if (g == p) return p;
        parent[x] = g;
        x = g;
    }
}

// Join the set of root r with the set of u: the larger root goes under the smaller by CAS;
// a failed CAS returns that root's new parent, from which the search goes on. Returns the
// root of the joined set as far as this thread knows (r, or the root r went under), for a
// next join from the same vertex. Cached: the searches read through L1 (root_of).
template <bool Cached = false, typename I>
__device__ __forceinline__ I link(I r, I u, I* parent) {
    I s = root_of<Cached>(u, parent);
    while (r != s) {
        if (r < s) {
            const I t = cas(parent + s, s, r);
            if (t == s) return r;
            s = root_of<Cached>(t, parent);
        } else {
            const I t = cas(parent + r, r, s);
            if (t == r) return s;
            r = root_of<Cached>(t, parent);
        }
    }
    return r;
}

// Join the sets of a and b.
template <typename I>
__device__ __forceinline__ void join(I a, I b, I* parent) {
    link(root_of(a, parent), b, parent);
}

// Nanoseconds of the device's global timer (for budgets that a kernel checks itself).
__device__ __forceinline__ unsigned long long global_ns() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}
