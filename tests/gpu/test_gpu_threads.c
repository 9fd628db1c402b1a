/// CUDA worlds are independent of each other and of the thread that steps them:
/// - two worlds on device 0 (the pinch-and-lift and the sphere + box drape, deterministic mode)
///   stepped concurrently from two threads give bitwise the positions of the same worlds stepped
///   alone, one after the other;
/// - with two or more devices, the same pair on devices 0 and 1 stepped concurrently gives bitwise
///   the positions of the runs alone on device 0 (same chip, same code, deterministic mode). With
///   one device this part is reported as not run.
/// Each entry point sets the world's device on the calling thread, so a thread may step worlds of
/// different devices; nothing but an atomic tag counter is shared between worlds.
/// Skips (77) without a usable CUDA device.
#include <pthread.h>

#include "gpu_contact_scenes.h"

typedef struct job {
    gcs_run_desc desc;
    gcs_run_result result;
} job;

static void* run_job(void* arg) {
    job* j = (job*)arg;
    j->result = gcs_run(j->desc);
    return NULL;
}

static int bitwise_equal(const gcs_run_result* a, const gcs_run_result* b) {
    return a->x && b->x && a->count == b->count && memcmp(a->x, b->x, sizeof(float) * 3 * (size_t)a->count) == 0;
}

/// Runs descs[0] and descs[1] concurrently from two threads and compares with `alone`.
static void concurrent(const gcs_run_desc descs[2], const gcs_run_result alone[2], const char* what) {
    job jobs[2];
    pthread_t t[2];
    for (int k = 0; k < 2; ++k) {
        memset(&jobs[k], 0, sizeof(jobs[k]));
        jobs[k].desc = descs[k];
        CHECK(pthread_create(&t[k], NULL, run_job, &jobs[k]) == 0, "pthread_create");
    }
    for (int k = 0; k < 2; ++k) pthread_join(t[k], NULL);
    for (int k = 0; k < 2; ++k) {
        CHECK(bitwise_equal(&alone[k], &jobs[k].result), "%s: world %d differs from its run alone by %.3g m", what, k,
              gcs_max_diff(&alone[k], &jobs[k].result));
        printf("%s: world %d (device %d) vs alone: max diff %.3g m (bitwise %s)\n", what, k, descs[k].device_index,
               gcs_max_diff(&alone[k], &jobs[k].result),
               bitwise_equal(&alone[k], &jobs[k].result) ? "equal" : "DIFFERENT");
        free(jobs[k].result.x);
    }
}

int main(void) {
    gcs_run_desc descs[2] = {{DFM_BACKEND_CUDA, 0u, 1, 1, 110, gcs_pinch, gcs_pinch_drive, 0},
                             {DFM_BACKEND_CUDA, 0u, 1, 1, 100, gcs_sphere_box, NULL, 0}};
    gcs_run_result alone[2];
    for (int k = 0; k < 2; ++k) {
        alone[k] = gcs_run(descs[k]);
        if (alone[k].skipped) return 77;
    }
    concurrent(descs, alone, "two threads, one device");
    int32_t devices = dfm_device_count();
    if (devices >= 2) {
        descs[1].device_index = 1;
        concurrent(descs, alone, "two threads, devices 0 and 1");
    } else {
        printf("two threads, two devices: NOT RUN (%d device)\n", devices);
    }
    free(alone[0].x);
    free(alone[1].x);
    return dfm_test_finish("test_gpu_threads");
}
