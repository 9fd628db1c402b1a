/// @file floor_probe.cu
/// Measures the two numbers docs/perf.md's floor of a step is computed from, on the GPU it runs
/// on: device-to-device copy bandwidth (cudaMemcpyAsync of 1 GiB, best of 5) and the cost of one
/// kernel launch, eager and as a node of a replayed CUDA graph (1000 empty kernels, best of 5).
/// Prints one JSON object. Exit 77 without a usable device.
///
/// Parallelism review (seed 001): the probe kernel is empty on purpose (P1-P4 do not apply).
#include <cuda_runtime.h>
#include <stdio.h>

#define TRY(call)                                                                                  \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)

__global__ void empty_kernel(int) {}

int main(void) {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) {
        printf("no usable CUDA device\n");
        return 77;
    }
    cudaDeviceProp prop;
    TRY(cudaGetDeviceProperties(&prop, 0));
    cudaStream_t st;
    TRY(cudaStreamCreate(&st));
    cudaEvent_t a, b;
    TRY(cudaEventCreate(&a));
    TRY(cudaEventCreate(&b));
    const size_t bytes = (size_t)1 << 30;
    void *src = NULL, *dst = NULL;
    TRY(cudaMalloc(&src, bytes));
    TRY(cudaMalloc(&dst, bytes));
    TRY(cudaMemset(src, 1, bytes));
    float best_copy = 1e30f;
    for (int r = 0; r < 5; ++r) {
        float ms = 0.0f;
        TRY(cudaEventRecord(a, st));
        TRY(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, st));
        TRY(cudaEventRecord(b, st));
        TRY(cudaEventSynchronize(b));
        TRY(cudaEventElapsedTime(&ms, a, b));
        if (ms < best_copy) best_copy = ms;
    }
    /* a copy reads and writes every byte */
    double copy_gbps = 2.0 * (double)bytes / (best_copy * 1e-3) / 1e9;
    const int launches = 1000;
    float best_eager = 1e30f, best_graph = 1e30f;
    for (int r = 0; r < 5; ++r) {
        float ms = 0.0f;
        TRY(cudaEventRecord(a, st));
        for (int k = 0; k < launches; ++k) empty_kernel<<<1, 32, 0, st>>>(k);
        TRY(cudaGetLastError());
        TRY(cudaEventRecord(b, st));
        TRY(cudaEventSynchronize(b));
        TRY(cudaEventElapsedTime(&ms, a, b));
        if (ms < best_eager) best_eager = ms;
    }
    cudaGraph_t g;
    cudaGraphExec_t ge;
    TRY(cudaStreamBeginCapture(st, cudaStreamCaptureModeThreadLocal));
    for (int k = 0; k < launches; ++k) empty_kernel<<<1, 32, 0, st>>>(k);
    TRY(cudaStreamEndCapture(st, &g));
    TRY(cudaGraphInstantiate(&ge, g, 0));
    for (int r = 0; r < 6; ++r) {
        float ms = 0.0f;
        TRY(cudaEventRecord(a, st));
        TRY(cudaGraphLaunch(ge, st));
        TRY(cudaEventRecord(b, st));
        TRY(cudaEventSynchronize(b));
        TRY(cudaEventElapsedTime(&ms, a, b));
        if (r > 0 && ms < best_graph) best_graph = ms; /* first replay uploads the graph */
    }
    printf(
        "{\"gpu\": \"%s\", \"copy_bandwidth_gb_per_s\": %.1f, \"launch_us_eager\": %.3f, \"launch_us_graph\": %.3f}\n",
        prop.name, copy_gbps, best_eager * 1e3 / launches, best_graph * 1e3 / launches);
    cudaGraphExecDestroy(ge);
    cudaGraphDestroy(g);
    cudaFree(src);
    cudaFree(dst);
    return 0;
}
