// Shared by the kernel sources that wait for every block of a launch (#include'd).
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
