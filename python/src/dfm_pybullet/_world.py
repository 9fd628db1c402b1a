"""World: the dfm world a pybullet client's plugin steps, seen from Python."""

import ctypes
from dataclasses import dataclass, field

import numpy as np

from . import _native
from ._errors import DfmError


@dataclass(frozen=True)
class Body:
    """A deformable body of a World: ``kind`` "cloth" or "volume", ``vertex_count`` vertices,
    ``elements`` its mesh as the body was made: (m, 3) int32 triangles of a cloth or (m, 4) int32
    tetrahedra of a volume, vertex indices into positions() (read-only; for drawing)."""

    kind: str
    vertex_count: int
    _id: _native.BodyId
    elements: np.ndarray = field(default=None, compare=False, repr=False)


def _float_ptr(a):
    return a.ctypes.data_as(ctypes.POINTER(ctypes.c_float))


def _int_ptr(a):
    return a.ctypes.data_as(ctypes.POINTER(ctypes.c_int32))


def _vec3(name, value):
    try:
        v = np.asarray(value, dtype=np.float32).reshape(3)
    except (TypeError, ValueError):
        raise ValueError(f"{name} is {value!r}; must be 3 numbers (m)") from None
    return np.ascontiguousarray(v)


def _counts(name, value, n):
    if (not isinstance(value, (tuple, list)) or len(value) != n or
            not all(isinstance(x, int) and not isinstance(x, bool) for x in value)):
        raise ValueError(f"{name} is {value!r}; must be {n} ints (vertices per axis)")
    return [int(x) for x in value]


def _generator_error(lib, r, what):
    return DfmError(f"{what}: {lib.dfm_world_last_error(None).decode()}", r, _native.result_name(r))


class World:
    """The dfm world of one pybullet client (made by attach()). Calls run on the caller's thread,
    between pybullet steps; each raises DfmError with dfm's message when dfm refuses, and the
    readers (positions, reactions) first raise the error of a failed tick, if any (check())."""

    def __init__(self, client, plugin, key):
        self.client = client  #: the pybullet physics client id
        self.plugin = plugin  #: pybullet's plugin unique id
        self._key = key
        self._lib = _native.lib()

    # -- plumbing --------------------------------------------------------------------------
    def _world(self):
        ptr = self._lib.dfm_pyb_world(self._key)
        if not ptr:
            raise DfmError(f"pybullet client {self.client} was disconnected: its dfm world is gone")
        return ptr

    def _check(self, world, r, what):
        if r != 0:
            raise DfmError(f"{what}: {self._lib.dfm_world_last_error(world).decode()}", r, _native.result_name(r))

    def check(self):
        """Raises DfmError if a tick failed since the last check (the plugin cannot raise inside
        pybullet.stepSimulation; the failed tick applied no reactions)."""
        self._world()
        r = self._lib.dfm_pyb_take_tick_error(self._key)
        if r != 0:
            raise DfmError(f"a dfm tick failed: {self._lib.dfm_pyb_last_error(self._key).decode()}", r,
                           _native.result_name(r))

    @staticmethod
    def _material(defn, allowed, material, caller):
        for k, v in material.items():
            key = "lambda" if k == "lambda_" else k
            if key not in allowed:
                raise TypeError(f"{caller}() got an unknown material {k!r}; known: {', '.join(allowed)}")
            try:
                setattr(defn, key, float(v))
            except (TypeError, ValueError):
                raise ValueError(f"{caller}(): {k} is {v!r}; must be a number") from None

    # -- bodies ----------------------------------------------------------------------------
    def add_cloth(self, size=(1.0, 1.0), resolution=(16, 16), center=(0.0, 0.0, 1.0), vertices=None,
                  triangles=None, environment=0, **material):
        """Adds a cloth: by default a flat rectangle of ``size`` (m, along world x and y) with
        ``resolution`` vertices per side, centred at ``center`` (m, world frame); or the mesh
        ``vertices`` ((n, 3) m, world frame) and ``triangles`` ((m, 3) vertex indices).
        ``material``: dfm_cloth_def fields (density kg/m^2, stretch_mu, stretch_lambda N/m,
        stretch_damping N s/m, bend_stiffness, bend_damping, contact_radius m, air_drag), dfm's
        defaults otherwise (dfm_defaults.h). Returns a Body."""
        lib = self._lib
        world = self._world()
        if (vertices is None) != (triangles is None):
            raise ValueError("add_cloth(): give both vertices and triangles, or neither (a grid)")
        if vertices is None:
            nu, nv = _counts("resolution", resolution, 2)
            sx, sy = (float(s) for s in np.asarray(size, dtype=np.float64).reshape(2))
            c = _vec3("center", center)
            nvert, ntri = ctypes.c_int32(), ctypes.c_int32()
            r = lib.dfm_cloth_grid_counts(nu, nv, ctypes.byref(nvert), ctypes.byref(ntri))
            if r != 0:
                raise _generator_error(lib, r, "add_cloth() resolution")
            xyz = np.empty((nvert.value, 3), np.float32)
            tri = np.empty((ntri.value, 3), np.int32)
            origin = np.ascontiguousarray(c - np.array([sx / 2, sy / 2, 0], np.float32))
            au = np.array([sx, 0, 0], np.float32)
            av = np.array([0, sy, 0], np.float32)
            r = lib.dfm_cloth_grid_generate(nu, nv, _float_ptr(origin), _float_ptr(au), _float_ptr(av),
                                            _float_ptr(xyz), _int_ptr(tri))
            if r != 0:
                raise _generator_error(lib, r, "add_cloth() grid")
        else:
            xyz = np.ascontiguousarray(np.asarray(vertices, dtype=np.float32))
            tri = np.ascontiguousarray(np.asarray(triangles, dtype=np.int32))
            if xyz.ndim != 2 or xyz.shape[1] != 3 or tri.ndim != 2 or tri.shape[1] != 3:
                raise ValueError(f"add_cloth(): vertices must be (n, 3) and triangles (m, 3); got {xyz.shape} and "
                                 f"{tri.shape}")
        d = _native.ClothDef()
        lib.dfm_pyb_cloth_def_default(ctypes.byref(d))
        d.environment = int(environment)
        d.positions = _float_ptr(xyz)
        d.vertex_count = xyz.shape[0]
        d.triangles = _int_ptr(tri)
        d.triangle_count = tri.shape[0]
        self._material(d, _native.CLOTH_MATERIAL, material, "add_cloth")
        body = _native.BodyId()
        self._check(world, lib.dfm_world_add_cloth(world, ctypes.byref(d), ctypes.byref(body)), "add_cloth")
        mesh = tri.copy()  # tri may be the caller's own array
        mesh.setflags(write=False)
        return Body("cloth", int(xyz.shape[0]), body, mesh)

    def add_soft_box(self, lo, hi, resolution=(4, 4, 4), environment=0, **material):
        """Adds a soft box of tetrahedra between corners ``lo`` and ``hi`` (m, world frame), with
        ``resolution`` vertices per axis (5 tets per cell). ``material``: dfm_volume_def fields
        (density kg/m^3, mu and lambda_ Pa (Lame), damping Pa s, contact_radius m), dfm's defaults
        otherwise. Returns a Body."""
        lib = self._lib
        world = self._world()
        nx, ny, nz = _counts("resolution", resolution, 3)
        lo3, hi3 = _vec3("lo", lo), _vec3("hi", hi)
        nvert, ntet = ctypes.c_int32(), ctypes.c_int32()
        r = lib.dfm_tet_box_counts(nx, ny, nz, ctypes.byref(nvert), ctypes.byref(ntet))
        if r != 0:
            raise _generator_error(lib, r, "add_soft_box() resolution")
        xyz = np.empty((nvert.value, 3), np.float32)
        tets = np.empty((ntet.value, 4), np.int32)
        r = lib.dfm_tet_box_generate(nx, ny, nz, _float_ptr(lo3), _float_ptr(hi3), _float_ptr(xyz), _int_ptr(tets))
        if r != 0:
            raise _generator_error(lib, r, "add_soft_box() box")
        d = _native.VolumeDef()
        lib.dfm_pyb_volume_def_default(ctypes.byref(d))
        d.environment = int(environment)
        d.positions = _float_ptr(xyz)
        d.vertex_count = xyz.shape[0]
        d.tets = _int_ptr(tets)
        d.tet_count = tets.shape[0]
        self._material(d, _native.VOLUME_MATERIAL, material, "add_soft_box")
        body = _native.BodyId()
        self._check(world, lib.dfm_world_add_volume(world, ctypes.byref(d), ctypes.byref(body)), "add_soft_box")
        tets.setflags(write=False)
        return Body("volume", int(xyz.shape[0]), body, tets)

    # -- pins and kinematic targets ---------------------------------------------------------
    @staticmethod
    def _vertex_list(body, indices, caller):
        if not isinstance(body, Body):
            raise TypeError(f"{caller}() takes a Body from add_cloth/add_soft_box, not {type(body).__name__}")
        idx = np.asarray(indices)
        if idx.ndim == 0:
            idx = idx.reshape(1)
        if idx.ndim != 1 or (idx.size and idx.dtype.kind not in "iu"):
            raise TypeError(f"{caller}(): indices must be a sequence of ints (vertex indices), not {indices!r}")
        return np.ascontiguousarray(idx, dtype=np.int32)

    def _set_mode(self, body, indices, mode, caller):
        idx = self._vertex_list(body, indices, caller)
        world = self._world()
        self._check(world, self._lib.dfm_body_set_vertex_mode(world, body._id, _int_ptr(idx), idx.size, mode), caller)

    def set_pinned(self, body, indices):
        """Pins the body's vertices ``indices`` (a sequence of vertex indices, as in positions()):
        each holds where it is now, at zero velocity, until set_dynamic. dfm_body_set_vertex_mode
        (DFM_VERTEX_PINNED); DfmError with dfm's message for an index out of range or an empty list."""
        self._set_mode(body, indices, _native.VERTEX_PINNED, "set_pinned")

    def set_dynamic(self, body, indices):
        """Returns pinned or kinematic vertices ``indices`` to simulation (DFM_VERTEX_DYNAMIC)."""
        self._set_mode(body, indices, _native.VERTEX_DYNAMIC, "set_dynamic")

    def set_kinematic_targets(self, body, indices, targets):
        """Makes the vertices ``indices`` kinematic with ``targets`` ((len(indices), 3) m, world
        frame): during the next dfm step (the next internal pybullet step) each moves linearly from
        where it is to its target, its velocity the displacement / dt, and stays there until new
        targets or set_dynamic. With pybullet's numSubSteps > 1 the target is reached in the first
        internal step of a stepSimulation. dfm_body_set_kinematic_targets."""
        idx = self._vertex_list(body, indices, "set_kinematic_targets")
        tgt = np.ascontiguousarray(np.asarray(targets, dtype=np.float32))
        if tgt.shape != (idx.size, 3):
            raise ValueError(f"set_kinematic_targets(): targets must be ({idx.size}, 3) (m), one per index; "
                             f"got {tgt.shape}")
        world = self._world()
        self._check(world, self._lib.dfm_body_set_kinematic_targets(world, body._id, _int_ptr(idx), idx.size,
                                                                    _float_ptr(tgt), 0), "set_kinematic_targets")

    # -- rigid meshes pybullet does not describe ---------------------------------------------
    def set_mesh(self, body, vertices, indices, link=-1, shape=0, mesh_scale=(1.0, 1.0, 1.0)):
        """Gives dfm the triangles of a concave GEOM_MESH collision shape that pybullet's C API
        cannot return: one made by ``createCollisionShape(GEOM_MESH, vertices=..., indices=...)``
        (or from a file with ``GEOM_FORCE_CONCAVE_TRIMESH``). Pass the same ``vertices`` ((n, 3),
        in the shape's frame), ``indices`` (3 per triangle, flat or (m, 3), counter-clockwise seen
        from outside) and ``mesh_scale`` as to pybullet, and where the shape sits: pybullet
        ``body``, ``link`` (-1 = base) and ``shape``, the entry's index in
        ``getCollisionShapeData(body, link)``. The mesh must be closed (after welding vertices with
        equal coordinates). dfm uses it from the next step on; the plugin's messages() name every
        GEOM_MESH that needs this call. DfmError with the reason (an open mesh, an index out of
        range) otherwise. Convex meshes, URDF meshes and OBJ files are read without it."""
        v = np.ascontiguousarray(np.asarray(vertices, dtype=np.float64))
        if v.ndim != 2 or v.shape[1] != 3:
            raise ValueError(f"set_mesh(): vertices must be (n, 3) (m); got shape {v.shape}")
        idx = np.asarray(indices)
        if idx.size and idx.dtype.kind not in "iu":
            raise TypeError(f"set_mesh(): indices must be ints (vertex indices), not {idx.dtype}")
        idx = np.ascontiguousarray(idx.reshape(-1), dtype=np.int32)
        scale = np.ascontiguousarray(np.asarray(mesh_scale, dtype=np.float64).reshape(3))
        for name, value in (("body", body), ("link", link), ("shape", shape)):
            if not isinstance(value, (int, np.integer)) or isinstance(value, bool):
                raise TypeError(f"set_mesh(): {name} must be an int, not {value!r}")
        self._world()
        dp = ctypes.POINTER(ctypes.c_double)
        r = self._lib.dfm_pyb_set_mesh(self._key, int(body), int(link), int(shape), v.ctypes.data_as(dp), v.shape[0],
                                       _int_ptr(idx), idx.size, scale.ctypes.data_as(dp))
        if r != 0:
            raise DfmError(self._lib.dfm_pyb_last_error(self._key).decode(), r, _native.result_name(r))

    # -- readers ---------------------------------------------------------------------------
    def positions(self, body, out=None):
        """The body's vertex positions, (n, 3) float32, m, world frame, written by dfm straight
        into a new array (or into ``out``, a C-contiguous (n, 3) float32 array, to reuse one)."""
        if not isinstance(body, Body):
            raise TypeError(f"positions() takes a Body from add_cloth/add_soft_box, not {type(body).__name__}")
        self.check()
        world = self._world()
        n = body.vertex_count
        if out is None:
            out = np.empty((n, 3), np.float32)
        elif (not isinstance(out, np.ndarray) or out.dtype != np.float32 or out.shape != (n, 3) or
              not out.flags["C_CONTIGUOUS"]):
            raise ValueError(f"positions(): out must be a C-contiguous ({n}, 3) float32 array")
        self._check(world, self._lib.dfm_body_get_positions(world, body._id, 0, n, _float_ptr(out), 0), "positions")
        return out

    def reactions(self):
        """The last pybullet step's reactions of the deformables on the bodies they touch:
        {(body unique id, link index (-1 = base)): (force (3,) N, torque (3,) N m about the link's
        centre of mass)}, world frame, one entry per body/link that has dfm shapes."""
        self.check()
        lib = self._lib
        n = lib.dfm_pyb_reactions(self._key, None, None, 0)
        ids = np.zeros((max(n, 1), 2), np.int32)
        wrench = np.zeros((max(n, 1), 6), np.float64)
        n = lib.dfm_pyb_reactions(self._key, _int_ptr(ids), wrench.ctypes.data_as(ctypes.POINTER(ctypes.c_double)), n)
        return {(int(ids[i, 0]), int(ids[i, 1])): (wrench[i, :3].copy(), wrench[i, 3:].copy()) for i in range(n)}

    def messages(self):
        """What the plugin reported (unsupported shapes and bodies, warnings), each once."""
        self._world()
        lib = self._lib
        return [lib.dfm_pyb_message(self._key, i).decode() for i in range(lib.dfm_pyb_message_count(self._key))]

    @property
    def tick_count(self):
        """dfm steps run so far (one per internal pybullet step)."""
        self._world()
        return int(self._lib.dfm_pyb_tick_count(self._key))

    @property
    def shape_count(self):
        """pybullet collision shapes dfm collides with."""
        self._world()
        return int(self._lib.dfm_pyb_shape_count(self._key))
