"""dfm's cloth and soft volumes inside a pybullet simulation.

    import pybullet as p
    import dfm_pybullet

    client = p.connect(p.DIRECT)
    dfm = dfm_pybullet.attach(client, backend="auto")     # loads the physics-server plugin
    cloth = dfm.add_cloth(size=(0.5, 0.5), resolution=(16, 16), center=(0, 0, 0.5))
    for _ in range(240):
        p.stepSimulation(physicsClientId=client)          # dfm steps inside every internal step
    xyz = dfm.positions(cloth)                             # (n, 3) float32, m, world frame

Units are SI, frames are pybullet's world frame. docs/pybullet.md says what is supported.
"""

from ._errors import DfmError
from ._attach import attach
from ._world import Body, World

__all__ = ["attach", "Body", "DfmError", "World"]
