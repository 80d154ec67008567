// Generic GraphBLAS steps on the GPU: masked vxm (push) / mxv (pull) with the semirings of
// lagraph_py.executor.SEMIRINGS, and scatter-reduce. Templated over the index type I of the
// CSR arrays (int or long long) and the value type T (long long or double). Compiled once
// by gpu_backend._module as a RawModule; instantiated through name expressions.
//
// Vectors are dense values + a presence byte per index (see gpu_backend/vector.py).
// Semiring codes: 0 any_secondi, 1 any_pair, 2 plus_pair, 3 min_second, 4 max_second.
// Mask codes: 0 no mask, 1 keep indices present in mask, 2 keep indices absent from mask.

#define SR_ANY_SECONDI 0
#define SR_ANY_PAIR 1
#define SR_PLUS_PAIR 2
#define SR_MIN_SECOND 3
#define SR_MAX_SECOND 4

__device__ __forceinline__ bool mask_allows(const unsigned char* mask, int mode, long long i) {
    if (mode == 0) return true;
    return (mask[i] != 0) == (mode == 1);
}

__device__ __forceinline__ void atomic_min_(int* a, int v) { atomicMin(a, v); }
__device__ __forceinline__ void atomic_max_(int* a, int v) { atomicMax(a, v); }
__device__ __forceinline__ void atomic_add_(int* a, int v) { atomicAdd(a, v); }
__device__ __forceinline__ void atomic_min_(long long* a, long long v) { atomicMin(a, v); }
__device__ __forceinline__ void atomic_max_(long long* a, long long v) { atomicMax(a, v); }
__device__ __forceinline__ void atomic_add_(long long* a, long long v) {
    atomicAdd((unsigned long long*)a, (unsigned long long)v);
}
__device__ __forceinline__ void atomic_min_(double* a, double v) {
    unsigned long long* p = (unsigned long long*)a;
    unsigned long long old = *p;
    while (v < __longlong_as_double((long long)old)) {
        unsigned long long assumed = old;
        old = atomicCAS(p, assumed, (unsigned long long)__double_as_longlong(v));
        if (old == assumed) break;
    }
}
__device__ __forceinline__ void atomic_max_(double* a, double v) {
    unsigned long long* p = (unsigned long long*)a;
    unsigned long long old = *p;
    while (v > __longlong_as_double((long long)old)) {
        unsigned long long assumed = old;
        old = atomicCAS(p, assumed, (unsigned long long)__double_as_longlong(v));
        if (old == assumed) break;
    }
}
__device__ __forceinline__ void atomic_add_(double* a, double v) { atomicAdd(a, v); }

// w<mask> = u (+).(x) A: one warp per entry k of u (a queue of its indices), lanes over row k.
// `out` must hold the monoid identity for min/max/plus; `pres` must be zero.
template <typename I, typename T>
__global__ void vxm_push(const I* __restrict__ indptr, const I* __restrict__ indices,
                         const long long* __restrict__ queue, long long nq,
                         const T* __restrict__ uval, const unsigned char* __restrict__ mask,
                         int mask_mode, T* out, unsigned char* pres, int semiring) {
    long long warp = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    int lane = threadIdx.x & 31;
    long long nwarps = ((long long)gridDim.x * blockDim.x) >> 5;
    for (long long w = warp; w < nq; w += nwarps) {
        long long k = queue[w];
        for (long long p = (long long)indptr[k] + lane; p < (long long)indptr[k + 1]; p += 32) {
            long long j = (long long)indices[p];
            if (!mask_allows(mask, mask_mode, j)) continue;
            switch (semiring) {
                case SR_ANY_SECONDI: out[j] = (T)k; break;
                case SR_ANY_PAIR: out[j] = (T)1; break;
                case SR_PLUS_PAIR: atomic_add_(&out[j], (T)1); break;
                case SR_MIN_SECOND: atomic_min_(&out[j], uval[k]); break;
                default: atomic_max_(&out[j], uval[k]); break;
            }
            pres[j] = 1;
        }
    }
}

// w<mask> = A (+).(x) u: one thread per row i of A; an ANY monoid stops at the first hit.
// `out` needs no initialization; `pres` must be zero.
template <typename I, typename T>
__global__ void mxv_pull(const I* __restrict__ indptr, const I* __restrict__ indices, long long n,
                         const unsigned char* __restrict__ upres, const T* __restrict__ uval,
                         const unsigned char* __restrict__ mask, int mask_mode, T* out,
                         unsigned char* pres, int semiring) {
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x) {
        if (!mask_allows(mask, mask_mode, i)) continue;
        bool found = false;
        T acc = (T)0;
        for (long long p = (long long)indptr[i]; p < (long long)indptr[i + 1]; ++p) {
            long long k = (long long)indices[p];
            if (!upres[k]) continue;
            if (semiring == SR_ANY_SECONDI) { acc = (T)k; found = true; break; }
            if (semiring == SR_ANY_PAIR) { acc = (T)1; found = true; break; }
            if (semiring == SR_PLUS_PAIR) { acc += (T)1; }
            else if (semiring == SR_MIN_SECOND) { acc = (found && acc < uval[k]) ? acc : uval[k]; }
            else { acc = (found && acc > uval[k]) ? acc : uval[k]; }
            found = true;
        }
        if (found) { out[i] = acc; pres[i] = 1; }
    }
}

// Scatter-reduce: out[idx[k]] (+)= val[k] for k < m. monoid 0 min, 1 max, 2 plus, 3 any
// (any keeps the smallest k, in `first`, so the result matches GraphBLAS dup_op=first).
template <typename T>
__global__ void scatter_reduce(const long long* __restrict__ idx, const T* __restrict__ val,
                               long long m, T* out, long long* first, unsigned char* pres,
                               int monoid) {
    for (long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x; k < m;
         k += (long long)gridDim.x * blockDim.x) {
        long long i = idx[k];
        if (monoid == 0) atomic_min_(&out[i], val[k]);
        else if (monoid == 1) atomic_max_(&out[i], val[k]);
        else if (monoid == 2) atomic_add_(&out[i], val[k]);
        else atomicMin(&first[i], k);
        pres[i] = 1;
    }
}

// A vector of one entry from a host index, no copy: out[i] = v and the bitmap of size n
// set at i only (out is left unspecified elsewhere).
template <typename T>
__global__ void set_one(long long i, T v, T* out, unsigned char* pres, long long n) {
    for (long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x; j < n;
         j += (long long)gridDim.x * blockDim.x) {
        pres[j] = j == i;
        if (j == i) out[i] = v;
    }
}

// Dense copy of a vector: its value where present, `fill` elsewhere (to_dense). In place
// (out == values) only the absent entries are written.
template <typename T>
__global__ void dense_fill(const T* values, const unsigned char* __restrict__ pres, T fill,
                           T* out, long long n) {
    for (long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x; j < n;
         j += (long long)gridDim.x * blockDim.x) {
        if (!pres[j]) out[j] = fill;
        else if (out != values) out[j] = values[j];
    }
}
