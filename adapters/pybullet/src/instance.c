/// @file instance.c
/// The registry of plugin instances (one per physics server the plugin is loaded into), their
/// creation and destruction, and their error and log strings. Two pybullet clients in one process
/// load the same library file, so every piece of state is per instance, never global, except this
/// registry.
#include "instance.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/// Most instances alive at once (servers with the plugin loaded in one process).
#define DFM_PYB_MAX_INSTANCES 64

static pthread_mutex_t g_registry_lock = PTHREAD_MUTEX_INITIALIZER;
static dfm_pyb_instance* g_instances[DFM_PYB_MAX_INSTANCES];
static int32_t g_next_key = 0;

dfm_pyb_instance* dfm_pyb_instance_create(b3_client client, char* message, size_t message_size) {
    dfm_pyb_instance* inst = (dfm_pyb_instance*)calloc(1, sizeof(*inst));
    if (!inst) {
        snprintf(message, message_size, "out of host memory for the plugin instance");
        return NULL;
    }
    if (dfm_pyb_b3_resolve(client, &inst->api, message, message_size) != 0) {
        free(inst);
        return NULL;
    }
    inst->client = client;
    inst->dirty = 1;
    inst->coupling = DFM_PYB_COUPLING_EXPLICIT;
    pthread_mutex_lock(&g_registry_lock);
    int slot = -1;
    for (int i = 0; i < DFM_PYB_MAX_INSTANCES && slot < 0; ++i)
        if (!g_instances[i]) slot = i;
    if (slot >= 0) {
        inst->key = g_next_key++;
        g_instances[slot] = inst;
    }
    pthread_mutex_unlock(&g_registry_lock);
    if (slot < 0) {
        snprintf(message, message_size, "%d physics servers already have the plugin loaded (the most supported)",
                 DFM_PYB_MAX_INSTANCES);
        free(inst);
        return NULL;
    }
    return inst;
}

void dfm_pyb_instance_destroy(dfm_pyb_instance* inst) {
    if (!inst) return;
    pthread_mutex_lock(&g_registry_lock);
    for (int i = 0; i < DFM_PYB_MAX_INSTANCES; ++i)
        if (g_instances[i] == inst) g_instances[i] = NULL;
    pthread_mutex_unlock(&g_registry_lock);
    if (inst->world) dfm_world_destroy(inst->world);
    for (int i = 0; i < inst->user_mesh_count; ++i) dfm_pyb_mesh_free(&inst->user_meshes[i].mesh);
    free(inst->user_meshes);
    for (int i = 0; i < inst->message_count; ++i) free(inst->messages[i]);
    free(inst->messages);
    free(inst->shapes);
    free(inst->links);
    free(inst->awake_bodies);
    free(inst->ids);
    free(inst->states);
    free(inst->reactions);
    free(inst);
}

dfm_pyb_instance* dfm_pyb_instance_find(int32_t key) {
    dfm_pyb_instance* found = NULL;
    pthread_mutex_lock(&g_registry_lock);
    for (int i = 0; i < DFM_PYB_MAX_INSTANCES && !found; ++i)
        if (g_instances[i] && g_instances[i]->key == key) found = g_instances[i];
    pthread_mutex_unlock(&g_registry_lock);
    return found;
}

int32_t dfm_pyb_fail(dfm_pyb_instance* inst, int32_t code, const char* fmt, ...) {
    va_list args;
    va_start(args, fmt);
    vsnprintf(inst->error, sizeof(inst->error), fmt, args);
    va_end(args);
    return code;
}

void dfm_pyb_log(dfm_pyb_instance* inst, const char* fmt, ...) {
    char text[1024];
    va_list args;
    va_start(args, fmt);
    vsnprintf(text, sizeof(text), fmt, args);
    va_end(args);
    for (int i = 0; i < inst->message_count; ++i)
        if (strcmp(inst->messages[i], text) == 0) return;
    fprintf(stderr, "dfm_pybullet: %s\n", text);
    if (inst->message_count == inst->message_capacity) {
        const int capacity = inst->message_capacity ? 2 * inst->message_capacity : 16;
        char** grown = (char**)realloc(inst->messages, (size_t)capacity * sizeof(char*));
        if (!grown) return; /* printed above; the log keeps what it has */
        inst->messages = grown;
        inst->message_capacity = capacity;
    }
    char* copy = (char*)malloc(strlen(text) + 1);
    if (!copy) return;
    strcpy(copy, text);
    inst->messages[inst->message_count++] = copy;
}
