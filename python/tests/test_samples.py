"""The pybullet samples run as plain pybullet scripts.

Sample 09 (samples/09_pybullet_gripper/gripper_lift.py: the two-finger URDF gripper,
two_finger_gripper.urdf, driven by joint motors) exits 0 with its verdict "held": the pinched edge
rose with the fingers (measured 0.3508 m of the 0.35 m lift, 2.2 mm from their mid-plane), the
strip's lowest vertex 0.146 m above the table, the finger links carry 0.4670 N of the cloth's
0.4709 N (dfm.reactions(); bound 5%) with 48.8 N of squeeze, and the plugin reported nothing (a
URDF link without collision is not a shape it cannot describe). Its PNG shows the red cloth (at
least 500 clearly red pixels of 640 x 480; measured 3588) and the grey gripper (at least 3000;
9718). With --gap 5 the pads close 3 mm short of the cloth's contact radius: the strip only drapes
over the lower finger or stays hanging, and the verdict fails with "fingers squeeze" among its failed
checks, so the check can fail.

Sample 10 (samples/10_pybullet_soft_box/soft_cube_on_box.py) exits 0 (the soft cube rests on the
dynamic box, the box on the ground, the ground carries both weights within 2%: measured 6.8670 N
of 6.8670 N) and its PNG shows the red cube (measured 8175 pixels; bound 2000) on the blue box
(30938; bound 10000). With coupling "none" the box does not feel the cube and the same verdict
fails (the ground reads the box alone, 1.962 N): the sample's check can fail."""

import os
import re
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
    assert "09_pybullet_gripper: held; URDF gripper lifted 0.35 m" in run.stdout
    assert "nothing reported" in run.stdout
    m = re.search(r"edge rose ([\d.]+) m and sits ([-+\d.]+) mm .* lowest vertex ([\d.]+) m above the table; "
                  r"fingers carry ([\d.]+) N of the cloth's ([\d.]+) N .* squeeze ([\d.]+) N", run.stdout)
    assert m, run.stdout
    rose, off, lowest, load, weight, squeeze = map(float, m.groups())
    assert rose > 0.95 * 0.35 and abs(off) < 5 and lowest > 0.02 and squeeze > 0
    assert abs(load - weight) < 0.05 * weight
    rgb = read_png_rgb(os.path.join(tmp_path, "final.png")).astype(int)
    r, g, b = rgb[:, :, 0], rgb[:, :, 1], rgb[:, :, 2]
    red = (r > 150) & (g < 90) & (b < 90)
    grey = (b >= r) & (b - r < 40) & (abs(r - g) < 15) & (r > 20) & (r < 140)  # the palm and finger beams
    print(f"red pixels: {red.sum()}, gripper grey pixels: {grey.sum()}")
    assert red.sum() > 500 and grey.sum() > 3000


def test_sample_09_verdict_fails_without_a_pinch(tmp_path):
    run = subprocess.run([sys.executable, SAMPLE, "--out", str(tmp_path), "--backend", "cpu", "--gap", "5"],
                         capture_output=True, text=True, timeout=300)
    print(run.stdout)
    assert run.returncode == 1, run.stdout + run.stderr
    # The verdict lists every failed check after "FAILED" (up to the first ';'). Without a pinch the
    # squeeze check must be among them; which others fail with it (the overhang dragged up draped over
    # a finger, or left hanging) depends on the trajectory, which rounding-level changes move.
    failed = run.stdout.split("FAILED", 1)[1].split(";", 1)[0]
    assert "fingers squeeze" in failed, run.stdout


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
