// Device functions shared by the kernel sources (#include'd).
#pragma once

// Software grid barrier of the multi-level kernels (the launch must keep every block
// resident): bar[0] counts arrivals, bar[1] is the generation the last arrival bumps.
__device__ __forceinline__ void grid_sync(unsigned int* bar, unsigned int& gen) {
    __syncthreads();
    if (threadIdx.x == 0) {
        unsigned int my = gen;
        __threadfence();
        if (atomicAdd(&bar[0], 1u) == gridDim.x - 1) {
            atomicExch(&bar[0], 0u);
            __threadfence();
            atomicAdd(&bar[1], 1u);
        } else {
            while (*(volatile unsigned int*)&bar[1] == my) { }
        }
        __threadfence();
        gen = my + 1;
    }
    __syncthreads();
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
