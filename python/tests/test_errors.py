"""Bad arguments raise clear exceptions: ValueError/TypeError for what the package checks itself,
DfmError carrying dfm's own message and result name for what dfm refuses."""

import numpy as np
import pybullet as p
import pytest

import dfm_pybullet
from dfm_pybullet import DfmError


def test_bad_backend_and_coupling(client):
    with pytest.raises(ValueError, match="backend is 'gpu'"):
        dfm_pybullet.attach(client, backend="gpu")
    with pytest.raises(ValueError, match="coupling is 'solved'"):
        dfm_pybullet.attach(client, coupling="solved")
    with pytest.raises(ValueError, match="substeps is 2.5"):
        dfm_pybullet.attach(client, substeps=2.5)


def test_dfm_refuses_solver_counts(client):
    with pytest.raises(DfmError, match="substeps") as e:
        dfm_pybullet.attach(client, backend="cpu", substeps=-3)
    assert e.value.code < 0 and e.value.name.startswith("DFM_ERROR_")


def test_cuda_backend_without_a_usable_gpu(client):
    try:
        dfm_pybullet.attach(client, backend="cuda")
    except DfmError as e:
        assert e.name in ("DFM_ERROR_DEVICE_UNAVAILABLE", "DFM_ERROR_UNSUPPORTED"), e
        assert len(e.message) > 10
    else:
        pytest.skip("this build has CUDA and a usable GPU: the cuda backend was created")


def test_not_connected_client():
    with pytest.raises(DfmError, match="not connected"):
        dfm_pybullet.attach(12345)


def test_attach_twice_to_one_client(client):
    dfm_pybullet.attach(client, backend="cpu")
    with pytest.raises(DfmError, match="already has a dfm world"):
        dfm_pybullet.attach(client, backend="cpu")


def test_bad_cloth_arguments_carry_dfm_messages(client):
    dfm = dfm_pybullet.attach(client, backend="cpu")
    with pytest.raises(DfmError, match="density") as e:
        dfm.add_cloth(density=-1.0)
    assert e.value.name == "DFM_ERROR_INVALID_VALUE"
    with pytest.raises(DfmError) as e:
        dfm.add_cloth(resolution=(1, 5))
    assert "add_cloth() resolution" in str(e.value)
    with pytest.raises(DfmError, match="zero area"):  # a degenerate triangle, named by dfm
        dfm.add_cloth(vertices=[[0, 0, 0], [1, 0, 0], [2, 0, 0]], triangles=[[0, 1, 2]])
    with pytest.raises(TypeError, match="unknown material 'stiffness'"):
        dfm.add_cloth(stiffness=3.0)
    with pytest.raises(ValueError, match="resolution"):
        dfm.add_cloth(resolution=(4.5, 4))
    with pytest.raises(ValueError, match="vertices and triangles"):
        dfm.add_cloth(vertices=np.zeros((3, 3)))
    with pytest.raises(DfmError, match="mu"):
        dfm.add_soft_box((0, 0, 0), (0.1, 0.1, 0.1), mu=-5.0)
    with pytest.raises(TypeError, match="Body"):
        dfm.positions(3)


def test_disconnected_client_is_reported(client):
    dfm = dfm_pybullet.attach(client, backend="cpu")
    cloth = dfm.add_cloth(resolution=(4, 4))
    p.disconnect(physicsClientId=client)
    with pytest.raises(DfmError, match="disconnected"):
        dfm.positions(cloth)
