/// @file dfm_scenes.h
/// The scene library shared by the tests, the samples and the benchmark (scenes/): every header.
/// All of it goes through the public ABI; SI units (m, kg, N), world frame, z up.
#ifndef DFM_SCENES_H
#define DFM_SCENES_H

#include "dfm_scene_cloth_stack.h"
#include "dfm_scene_cubes.h"
#include "dfm_scene_fold.h"
#include "dfm_scene_grid.h"
#include "dfm_scene_gripper_table.h"
#include "dfm_scene_layers.h"
#include "dfm_scene_mesh.h"
#include "dfm_scene_pads.h"
#include "dfm_scene_pile.h"
#include "dfm_scene_shape.h"
#include "dfm_scene_tets.h"

#endif
