"""attach(): loads the dfm plugin into a pybullet client and creates its dfm world."""

import pybullet

from . import _native
from ._errors import DfmError
from ._world import World

#: backend names -> dfm_backend values (dfm_types.h).
BACKENDS = {"auto": 0, "cpu": 1, "cuda": 2}
#: coupling names -> dfm_pyb_coupling values (dfm_pybullet.h).
COUPLINGS = {"none": 0, "explicit": 1, "implicit": 2}


def attach(client=0, backend="auto", substeps=0, iterations=0, coupling="implicit"):
    """Loads the dfm physics-server plugin into pybullet client ``client`` (a DIRECT connection)
    and creates the dfm world it steps inside every internal pybullet step.

    backend: "auto" (CUDA when this build has it and a GPU is usable, else CPU), "cpu" or "cuda".
    substeps, iterations: dfm's advances per pybullet step and VBD iterations per advance
    (0 = dfm's defaults, 4 and 10). coupling: "implicit" (the default: dfm solves each dynamic
    body without joints that no other pybullet body touches together with the deformables and
    corrects its pose and velocities, so a box resting on a soft cube stays put; the other bodies
    and links get the reactions as external forces in the next step), "explicit" (every body gets
    its reaction as an external force in the same step; exact for bodies Bullet holds up, but a
    heavy body resting on a stiff soft contact chatters) or "none" (one-way). docs/pybullet.md. Every pybullet body's collision
    shapes (box, sphere, capsule, cylinder, plane) become dfm shapes; what is not supported is
    reported in World.messages() and on stderr. Raises ValueError for a bad argument and
    DfmError when pybullet or dfm refuses (with dfm's message), e.g. a second attach to one client.
    """
    if not isinstance(backend, str) or backend not in BACKENDS:
        raise ValueError(f"backend is {backend!r}; must be one of {sorted(BACKENDS)}")
    if not isinstance(coupling, str) or coupling not in COUPLINGS:
        raise ValueError(f"coupling is {coupling!r}; must be one of {sorted(COUPLINGS)}")
    for name, value in (("substeps", substeps), ("iterations", iterations)):
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError(f"{name} is {value!r}; must be an int (0 = dfm's default)")
    if isinstance(client, bool) or not isinstance(client, int):
        raise ValueError(f"client is {client!r}; must be a pybullet physics client id (int)")
    if not pybullet.isConnected(physicsClientId=client):
        raise DfmError(f"pybullet client {client} is not connected")
    method = pybullet.getConnectionInfo(physicsClientId=client).get("connectionMethod")
    if method != pybullet.DIRECT:
        raise DfmError(f"pybullet client {client} is not a DIRECT connection (method {method}); this version of "
                       "dfm_pybullet supports DIRECT only (GUI runs the plugin's ticks on another thread)")
    lib = _native.lib()
    path = _native.plugin_path()
    plugin = pybullet.loadPlugin(path, _native.PLUGIN_POSTFIX, physicsClientId=client)
    if plugin < 0:
        raise DfmError(f"pybullet could not load the plugin {path} (its reason is on stderr)")
    key = pybullet.executePluginCommand(plugin, intArgs=[_native.COMMAND_INSTANCE_KEY], physicsClientId=client)
    if not isinstance(key, int) or key < 0:
        raise DfmError(f"the plugin {path} did not give its instance key (answer {key!r})")
    r = lib.dfm_pyb_create_world(key, BACKENDS[backend], substeps, iterations, COUPLINGS[coupling])
    if r != 0:
        raise DfmError(lib.dfm_pyb_last_error(key).decode(), r, _native.result_name(r))
    return World(client, plugin, key)
