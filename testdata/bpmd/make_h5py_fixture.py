#!/usr/bin/env python3
"""Writes h5py-frame.h5, a one-frame BPMD file written by h5py (not by
gorigid), so that gorigid's reader is tested against a standard HDF5
writer. Regenerate with:

    /usr/bin/python3 testdata/bpmd/make_h5py_fixture.py

(Debian: apt-get install python3-h5py). The frame: body 0 a 1 kg cube of
0.2 m resting on the ground at z = 0.1 with one contact point under its
centre (μ = 0.5, x̂ₙ = 0.0981 N·s), body 1 a 2 kg cube hanging from body 0
by one bilateral row along z. h = 0.01 s, standard gravity. The solution
fields are illustrative (two iterations).
"""
import os
import h5py
import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
path = os.path.join(here, "h5py-frame.h5")
g = np.array([0.0, 0.0, -9.81])
with h5py.File(path, "w") as f:
    fr = f.create_group("frames")
    fr.attrs["format"] = "BPMD"
    fr.attrs["version"] = 1
    fm = fr.create_group("000007")
    fm.attrs["index"] = 7
    fm.attrs["time"] = 0.06
    fm.attrs["stabilization"] = "regularized"
    fm.attrs["baumgarte"] = 0.0
    fm["step"] = np.array([0.01])
    fm["gravity"] = g
    b = fm.create_group("bodies")
    b["ids"] = np.array([0, 1], dtype=np.int64)
    m = np.array([1.0, 2.0])
    b["masses"] = m
    applied = np.zeros((2, 6))
    applied[1, 3] = 0.5  # a torque about x on body 1
    forces = applied.copy()
    forces[:, :3] += m[:, None] * g
    b["forces"] = forces.reshape(12, 1)
    i0, i1 = 1.0 * 0.04 / 6, 2.0 * 0.04 / 6
    b["inertia"] = np.vstack([np.eye(3) * i0, np.eye(3) * i1])
    b["positions"] = np.array([0, 0, 0.1, 0, 0, -0.2]).reshape(6, 1)
    b["quaternion"] = np.array([1.0, 0, 0, 0, 1.0, 0, 0, 0]).reshape(8, 1)
    b["velocities"] = np.array([0, 0, -0.05, 0, 0, 0, 0.01, 0, -0.05, 0, 0, 0]).reshape(12, 1)
    b["static"] = np.array([0, 0], dtype=np.uint8)
    b["applied"] = applied.reshape(12, 1)
    j = fm.create_group("joints")
    j["rows"] = np.array([[0, 1, 2]], dtype=np.int64)
    j["pairs"] = np.array([[0, 1]], dtype=np.int64)
    j["violations"] = np.array([0.001])
    jac = np.zeros((1, 24))
    jac[0, 2] = -1.0  # body 0: −v_z
    jac[0, 8] = 1.0   # body 1: +v_z
    j["jacobians"] = jac
    j["bounds"] = np.array([[-np.inf, np.inf]])
    j["row_bodies"] = np.array([[0, 1, -1, -1]], dtype=np.int64)
    j["kinds"] = np.array([0], dtype=np.int64)
    j["stiffness"] = np.array([0.0])
    j["damping"] = np.array([0.0])
    j["speed"] = np.array([0.0])
    j["compliance"] = np.array([0.0])
    c = fm.create_group("contacts")
    c["gap"] = np.array([-0.0001])
    c["pairs"] = np.array([[-1, 0]], dtype=np.int64)
    c["mu"] = np.array([[0.5, 0.5]])
    c["normals"] = np.array([[0.0, 0.0, 1.0]])
    c["points"] = np.array([[0.0, 0.0, 0.0]])
    c["points_world"] = np.array([[0.0, 0.0, 0.0]])
    c["xn"] = np.array([0.0981])
    c["directions"] = np.array([[1.0, 0.0, 0.0]])
    c["rows"] = np.array([[1, 3]], dtype=np.int64)
    c["roll"] = np.array([0.0])
    c["roll_axis"] = np.array([[0.0, 0.0, 0.0]])
    c["roll_bound"] = np.array([0.0])
    s = fm.create_group("solution")
    s.attrs["status"] = "converged"
    s.attrs["solver"] = "bpp"
    s.attrs["pick"] = "energy"
    s["z"] = np.array([0.2, 0.5, 0.0, 0.0])
    s["w"] = np.array([0.0, 0.0, 0.0, 0.0])
    s["states"] = np.array([0, 0, 0, 0], dtype=np.int8)
    s["stick"] = np.array([1], dtype=np.uint8)
    s["iterations"] = np.array([2], dtype=np.int64)
    s["picked"] = np.array([2], dtype=np.int64)
    for k in ["total_error", "normal_error", "friction_error", "fb_error", "residual_error", "energy_error"]:
        s[k] = np.array([1e-3, 0.0])
print("wrote", path)
