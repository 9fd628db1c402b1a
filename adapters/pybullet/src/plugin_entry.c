/// @file plugin_entry.c
/// The entry points pybullet's plugin manager binds when a script calls
/// `loadPlugin(path, "_dfm")`: the names are the manager's base names plus the postfix "_dfm".
/// initPlugin must return the plugin API version (DFM_PYB_B3_API_VERSION) or pybullet closes the
/// library. The pre-tick and post-tick run at the start and end of every internal step of the
/// server (pybullet's default world; its deformable world calls the post-tick before its solve,
/// which the implicit coupling does not support); processNotifications
/// marks the shapes for a re-read when bodies come and go. Loading the same file into a second
/// server (another client) calls initPlugin again with another context: one instance each.
#include "instance.h"

#include <stdio.h>

#define DFM_PYB_ENTRY __attribute__((visibility("default")))

/// Plugin load: resolves the b3 API and registers an instance (its dfm world comes with
/// dfm_pyb_create_world). Returns the API version, or -1 (pybullet then refuses the plugin).
DFM_PYB_ENTRY int initPlugin_dfm(b3_plugin_context* ctx);
/// Plugin unload or server disconnect: destroys the instance and its world.
DFM_PYB_ENTRY void exitPlugin_dfm(b3_plugin_context* ctx);
/// executePluginCommand: ints[0] = DFM_PYB_COMMAND_INSTANCE_KEY returns the instance key; any
/// other command returns -2 (and prints why).
DFM_PYB_ENTRY int executePluginCommand_dfm(b3_plugin_context* ctx, const b3_plugin_arguments* args);
/// Start of every internal step: dfm_pyb_pre_tick (tick.c) when the instance has a world.
DFM_PYB_ENTRY int preTickPluginCallback_dfm(b3_plugin_context* ctx);
/// End of every internal step: dfm_pyb_post_tick (tick.c) when the instance has a world.
DFM_PYB_ENTRY int postTickPluginCallback_dfm(b3_plugin_context* ctx);
/// After client commands: bodies added or removed, a reset or changed link dynamics mark the
/// shapes for a re-read before the next tick.
DFM_PYB_ENTRY int processNotifications_dfm(b3_plugin_context* ctx);

int initPlugin_dfm(b3_plugin_context* ctx) {
    char message[512];
    dfm_pyb_instance* inst = dfm_pyb_instance_create(ctx->client, message, sizeof(message));
    if (!inst) {
        fprintf(stderr, "dfm_pybullet: cannot start: %s\n", message);
        return -1;
    }
    ctx->user_pointer = inst;
    return DFM_PYB_B3_API_VERSION;
}

void exitPlugin_dfm(b3_plugin_context* ctx) {
    dfm_pyb_instance_destroy((dfm_pyb_instance*)ctx->user_pointer);
    ctx->user_pointer = NULL;
}

int executePluginCommand_dfm(b3_plugin_context* ctx, const b3_plugin_arguments* args) {
    dfm_pyb_instance* inst = (dfm_pyb_instance*)ctx->user_pointer;
    if (!inst) return -1;
    if (args->num_ints >= 1 && args->ints[0] == DFM_PYB_COMMAND_INSTANCE_KEY) return inst->key;
    fprintf(stderr, "dfm_pybullet: unknown plugin command (ints[0] = %d, %d ints); the only command is %d\n",
            args->num_ints >= 1 ? args->ints[0] : 0, args->num_ints, DFM_PYB_COMMAND_INSTANCE_KEY);
    return -2;
}

/// Records the first failed tick for dfm_pyb_take_tick_error (and prints it).
static void record(dfm_pyb_instance* inst, int32_t r) {
    if (r == DFM_OK || inst->tick_error != DFM_OK) return;
    inst->tick_error = r;
    fprintf(stderr, "dfm_pybullet: tick %lld failed: %s\n", (long long)inst->ticks, inst->error);
}

int preTickPluginCallback_dfm(b3_plugin_context* ctx) {
    dfm_pyb_instance* inst = (dfm_pyb_instance*)ctx->user_pointer;
    if (inst && inst->world) record(inst, dfm_pyb_pre_tick(inst));
    return 0;
}

int postTickPluginCallback_dfm(b3_plugin_context* ctx) {
    dfm_pyb_instance* inst = (dfm_pyb_instance*)ctx->user_pointer;
    if (inst && inst->world) record(inst, dfm_pyb_post_tick(inst));
    return 0;
}

int processNotifications_dfm(b3_plugin_context* ctx) {
    dfm_pyb_instance* inst = (dfm_pyb_instance*)ctx->user_pointer;
    if (!inst) return 0;
    const char* base = (const char*)ctx->notifications;
    for (int i = 0; i < ctx->num_notifications && base; ++i) {
        const int type = *(const int*)(base + (size_t)i * B3_NOTIFICATION_SIZE);
        if (type == B3_SIMULATION_RESET) inst->awake_count = 0; /* body ids start over */
        if (type == B3_SIMULATION_RESET || type == B3_BODY_ADDED || type == B3_BODY_REMOVED ||
            type == B3_LINK_DYNAMICS_CHANGED)
            inst->dirty = 1;
    }
    return 0;
}
