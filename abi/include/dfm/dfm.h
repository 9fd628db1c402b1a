/// @file dfm.h
/// Umbrella header of the dfm C ABI: GPU/CPU deformable bodies (VBD) for rigid-body engines.
#ifndef DFM_H
#define DFM_H

#include "dfm_base.h"
#include "dfm_id.h"
#include "dfm_types.h"
#include "dfm_world.h"
#include "dfm_body.h"
#include "dfm_mesh.h"
#include "dfm_shape.h"
#include "dfm_coupling.h"
#include "dfm_defaults.h"
#include "dfm_solver.h"
#include "dfm_api.h"

#endif
