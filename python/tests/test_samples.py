"""The pybullet samples run as plain pybullet scripts.

Sample 09 (samples/09_pybullet_gripper/gripper_lift.py) exits 0 (the cloth was held), prints its
summary and writes a PNG of the final hold in which the red cloth is visible (at least 500
clearly red pixels of 640 x 480; measured 2149).

Sample 10 (samples/10_pybullet_soft_box/soft_cube_on_box.py) exits 0 (the soft cube rests on the
dynamic box, the box on the ground, the ground carries both weights within 2%: measured 6.8670 N
of 6.8670 N) and its PNG shows the red cube (measured 8175 pixels; bound 2000) on the blue box
(30938; bound 10000). With coupling "none" the box does not feel the cube and the same verdict
fails (the ground reads the box alone, 1.962 N): the sample's check can fail."""

import os
import subprocess
import sys
import zlib

import numpy as np

SAMPLES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "samples")
SAMPLE = os.path.join(SAMPLES, "09_pybullet_gripper", "gripper_lift.py")
SAMPLE_10 = os.path.join(SAMPLES, "10_pybullet_soft_box", "soft_cube_on_box.py")


def read_png_rgb(path):
    """Decodes the sample's own PNG (8-bit RGB, filter 0 on every row)."""
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, w, h = 8, b"", 0, 0
    while pos < len(data):
        n = int.from_bytes(data[pos:pos + 4], "big")
        kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h = int.from_bytes(body[:4], "big"), int.from_bytes(body[4:8], "big")
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw = np.frombuffer(zlib.decompress(idat), np.uint8).reshape(h, 1 + 3 * w)
    assert np.all(raw[:, 0] == 0)
    return raw[:, 1:].reshape(h, w, 3)


def test_sample_09_holds_and_draws_the_cloth(tmp_path):
    run = subprocess.run([sys.executable, SAMPLE, "--out", str(tmp_path), "--backend", "cpu"], capture_output=True,
                         text=True, timeout=300)
    print(run.stdout)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "09_pybullet_gripper: held" in run.stdout
    rgb = read_png_rgb(os.path.join(tmp_path, "final.png")).astype(int)
    red = (rgb[:, :, 0] > 150) & (rgb[:, :, 1] < 90) & (rgb[:, :, 2] < 90)
    print(f"red pixels: {red.sum()}")
    assert red.sum() > 500


def test_sample_10_soft_cube_rests_on_the_box_and_is_drawn(tmp_path):
    run = subprocess.run([sys.executable, SAMPLE_10, "--out", str(tmp_path), "--backend", "cpu"], capture_output=True,
                         text=True, timeout=300)
    print(run.stdout)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "10_pybullet_soft_box: rests" in run.stdout
    rgb = read_png_rgb(os.path.join(tmp_path, "final.png")).astype(int)
    red = (rgb[:, :, 0] > 150) & (rgb[:, :, 1] < 90) & (rgb[:, :, 2] < 90)
    blue = (rgb[:, :, 2] > 100) & (rgb[:, :, 0] < 90) & (rgb[:, :, 1] < 120)
    print(f"red pixels: {red.sum()}, blue pixels: {blue.sum()}")
    assert red.sum() > 2000 and blue.sum() > 10000


def test_sample_10_verdict_fails_without_coupling(tmp_path):
    run = subprocess.run([sys.executable, SAMPLE_10, "--out", str(tmp_path), "--backend", "cpu", "--coupling", "none"],
                         capture_output=True, text=True, timeout=300)
    print(run.stdout)
    assert run.returncode == 1, run.stdout + run.stderr
    assert "FAILED ground carries both" in run.stdout
