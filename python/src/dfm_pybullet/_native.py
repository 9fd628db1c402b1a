"""ctypes view of the plugin library: the bridge (dfm/dfm_pybullet.h) and the dfm ABI calls the
package makes on the plugin's world (resolved through the plugin library, which links libdfm:
the same copy the plugin uses). The mirrored defs are checked against the C sizes on load."""

import ctypes
import os

from ._errors import DfmError

#: Bridge version this package speaks (DFM_PYB_BRIDGE_VERSION).
BRIDGE_VERSION = 2
#: executePluginCommand command that returns the instance key (DFM_PYB_COMMAND_INSTANCE_KEY).
COMMAND_INSTANCE_KEY = 1
#: The postfix of the plugin's entry points (initPlugin_dfm, ...).
PLUGIN_POSTFIX = "_dfm"

_f = ctypes.c_float
_i = ctypes.c_int32
_pf = ctypes.POINTER(ctypes.c_float)
_pi = ctypes.POINTER(ctypes.c_int32)


class BodyId(ctypes.Structure):
    """dfm_body_id."""

    _fields_ = [("index1", _i), ("generation", ctypes.c_uint16), ("world_tag", ctypes.c_uint16)]


class ClothDef(ctypes.Structure):
    """dfm_cloth_def (dfm_types.h), field for field."""

    _fields_ = [
        ("struct_size", ctypes.c_uint32), ("environment", _i), ("positions", _pf), ("position_stride", _i),
        ("vertex_count", _i), ("triangles", _pi), ("triangle_count", _i), ("vertex_masses", _pf),
        ("density", _f), ("stretch_mu", _f), ("stretch_lambda", _f), ("stretch_damping", _f),
        ("bend_stiffness", _f), ("bend_damping", _f), ("contact_radius", _f), ("air_drag", _f),
        # ABI 1.7 (deformable-deformable contact); the bridge's defaults fill them
        ("self_collision", _i), ("collision_group", ctypes.c_uint32), ("collision_mask", ctypes.c_uint32),
    ]


class VolumeDef(ctypes.Structure):
    """dfm_volume_def (dfm_types.h), field for field."""

    _fields_ = [
        ("struct_size", ctypes.c_uint32), ("environment", _i), ("positions", _pf), ("position_stride", _i),
        ("vertex_count", _i), ("tets", _pi), ("tet_count", _i), ("vertex_masses", _pf),
        ("density", _f), ("mu", _f), ("lambda", _f), ("damping", _f), ("contact_radius", _f),
        # ABI 1.7 (deformable-deformable contact); the bridge's defaults fill them
        ("self_collision", _i), ("collision_group", ctypes.c_uint32), ("collision_mask", ctypes.c_uint32),
    ]


#: dfm_vertex_mode (dfm_types.h).
VERTEX_DYNAMIC, VERTEX_PINNED, VERTEX_KINEMATIC = 0, 1, 2

#: Material fields a caller may set on each def (floats; everything else is filled by the package).
CLOTH_MATERIAL = ("density", "stretch_mu", "stretch_lambda", "stretch_damping", "bend_stiffness", "bend_damping",
                  "contact_radius", "air_drag")
VOLUME_MATERIAL = ("density", "mu", "lambda", "damping", "contact_radius")

_SIGNATURES = {
    # bridge
    "dfm_pyb_bridge_version": (_i, []),
    "dfm_pyb_create_world": (_i, [_i, _i, _i, _i, _i]),
    "dfm_pyb_world": (ctypes.c_void_p, [_i]),
    "dfm_pyb_last_error": (ctypes.c_char_p, [_i]),
    "dfm_pyb_take_tick_error": (_i, [_i]),
    "dfm_pyb_tick_count": (ctypes.c_int64, [_i]),
    "dfm_pyb_shape_count": (_i, [_i]),
    "dfm_pyb_reactions": (_i, [_i, _pi, ctypes.POINTER(ctypes.c_double), _i]),
    "dfm_pyb_message_count": (_i, [_i]),
    "dfm_pyb_message": (ctypes.c_char_p, [_i, _i]),
    "dfm_pyb_set_mesh": (_i, [_i, _i, _i, _i, ctypes.POINTER(ctypes.c_double), _i, _pi, _i,
                              ctypes.POINTER(ctypes.c_double)]),
    "dfm_pyb_def_size": (ctypes.c_uint32, [_i]),
    "dfm_pyb_cloth_def_default": (None, [ctypes.POINTER(ClothDef)]),
    "dfm_pyb_volume_def_default": (None, [ctypes.POINTER(VolumeDef)]),
    # dfm ABI (libdfm, through the plugin's dependency)
    "dfm_result_string": (ctypes.c_char_p, [_i]),
    "dfm_world_last_error": (ctypes.c_char_p, [ctypes.c_void_p]),
    "dfm_world_add_cloth": (_i, [ctypes.c_void_p, ctypes.POINTER(ClothDef), ctypes.POINTER(BodyId)]),
    "dfm_world_add_volume": (_i, [ctypes.c_void_p, ctypes.POINTER(VolumeDef), ctypes.POINTER(BodyId)]),
    "dfm_body_get_positions": (_i, [ctypes.c_void_p, BodyId, _i, _i, _pf, _i]),
    "dfm_body_set_vertex_mode": (_i, [ctypes.c_void_p, BodyId, _pi, _i, _i]),
    "dfm_body_set_kinematic_targets": (_i, [ctypes.c_void_p, BodyId, _pi, _i, _pf, _i]),
    "dfm_cloth_grid_counts": (_i, [_i, _i, _pi, _pi]),
    "dfm_cloth_grid_generate": (_i, [_i, _i, _pf, _pf, _pf, _pf, _pi]),
    "dfm_tet_box_counts": (_i, [_i, _i, _i, _pi, _pi]),
    "dfm_tet_box_generate": (_i, [_i, _i, _i, _pf, _pf, _pf, _pi]),
}


def plugin_path():
    """Path of the installed plugin library (next to this file)."""
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "libdfm_pybullet.so")


_lib = None


def lib():
    """The plugin library with its functions typed (loaded once; the same copy pybullet loads)."""
    global _lib
    if _lib is not None:
        return _lib
    path = plugin_path()
    if not os.path.exists(path):
        raise DfmError(f"the plugin library {path} is missing (reinstall: pip install ./python)")
    handle = ctypes.CDLL(path)
    for name, (restype, argtypes) in _SIGNATURES.items():
        fn = getattr(handle, name)
        fn.restype = restype
        fn.argtypes = argtypes
    if handle.dfm_pyb_bridge_version() != BRIDGE_VERSION:
        raise DfmError(f"{path} speaks bridge version {handle.dfm_pyb_bridge_version()}; this package speaks "
                       f"{BRIDGE_VERSION} (reinstall the package)")
    for which, cls in ((1, ClothDef), (2, VolumeDef)):
        if handle.dfm_pyb_def_size(which) != ctypes.sizeof(cls):
            raise DfmError(f"{cls.__name__} is {ctypes.sizeof(cls)} bytes here and "
                           f"{handle.dfm_pyb_def_size(which)} in {path}: the package and library disagree")
    _lib = handle
    return _lib


def result_name(code):
    """dfm_result_string(code) as str."""
    return lib().dfm_result_string(code).decode()
