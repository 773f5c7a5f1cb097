"""A SceneSpec as the plain arrays Blender's Cycles renders from (bench/cycles/blender_scene.py).

The geometry, lamps, sky, table and marker sheets are bench.pbr.scene's, the same the
Mitsuba renderer uses; only the materials differ, as a Blender user would set them
(Principled BSDF; see blender_scene). Saved as one .npz, read by Blender's own Python,
which has its own numpy and none of this project's packages.

>>> from vision.render import random_scene
>>> arrays = scene_arrays(random_scene(9200))
>>> bool(arrays["film"][0] >= 1280 and arrays["film"][1] >= 960)   # the film holds the picture
True
>>> arrays["piece0_vertices"].shape, str(arrays["piece0_kind"])
((10, 3), 'translucent')
"""

from __future__ import annotations

import numpy as np

from bench.pbr import scene as S
from domain import CoinKind
from vision.render.scene import SceneSpec

# The table's finish, by surface kind: varnished wood has a soft sheen, cloth, felt and
# paper are matte (Principled BSDF roughness; specular as the Principled default).
TABLE_ROUGHNESS = {"wood": 0.35}
MATTE_ROUGHNESS = 1.0
# Coins as a Blender user would pick them: metallic base colours of copper and nickel.
COIN_COLOUR = {CoinKind.PENNY: (0.95, 0.64, 0.54), CoinKind.NICKEL: (0.66, 0.61, 0.55)}


def camera_matrix(spec: SceneSpec, fl: S.Film) -> np.ndarray:
    """The film's camera as Blender places one (4×4, world = table mm with z up; the camera
    looks down its -z with its y up the picture), turned round left to right: the table
    frame (x right, y down the picture, z up) is a mirror image of the room, so the picture
    Blender renders is flipped back afterwards (blender_scene.render), as bench.pbr.render
    does Mitsuba's. The view's rotation has OpenCV's camera axes (x right, y down, z
    forward) as its rows, in table axes with z pointing down into the table."""
    axes = np.asarray(spec.view().rotation, float) * [1.0, 1.0, -1.0]   # rows: x, y, forward; z up
    m = np.eye(4)
    m[:3, 0], m[:3, 1], m[:3, 2], m[:3, 3] = -axes[0], -axes[1], -axes[2], fl.eye
    return m


def scene_arrays(spec: SceneSpec, solid: bool = False) -> dict[str, np.ndarray]:
    """Everything blender_scene.build needs, as named arrays (table mm; see bench.pbr.scene).
    `solid`: translucent pyramids as closed solids of their plastic, not hollow shells (as
    someone modelling the pieces might make them: refracting prisms, tinted once in and
    once out where a shell tints four times)."""
    fl = S.film(spec)
    out: dict[str, np.ndarray] = {
        "film": np.array([fl.width, fl.height, fl.f], float),
        "camera_matrix": camera_matrix(spec, fl),
        "sky": np.asarray(S.sky_radiance(spec), float),
    }
    bounds = S.table_bounds(spec, fl)
    out["table_vertices"], out["table_faces"], out["table_uv"] = S.table_quad(bounds)
    out["table_texture"] = S.table_texture(spec, bounds)
    out["table_roughness"] = np.array(TABLE_ROUGHNESS.get(spec.surface.kind, MATTE_ROUGHNESS))
    out["sheets"] = np.array(len(spec.layout.markers))
    for k, m in enumerate(spec.layout.markers):
        out[f"sheet{k}_vertices"], out[f"sheet{k}_faces"], out[f"sheet{k}_uv"] = S.sheet_quad(spec, m)
        out[f"sheet{k}_texture"] = S.sheet_texture(spec, m)
    meshes = S.piece_meshes(spec)
    out["pieces"] = np.array(len(meshes))
    for k, m in enumerate(meshes):
        out[f"piece{k}_vertices"], out[f"piece{k}_faces"] = m.vertices, m.faces
        if solid and m.sigma is not None:   # the outer base corners and apex come first
            out[f"piece{k}_vertices"], out[f"piece{k}_faces"] = m.vertices[:5], S.SOLID_FACES.copy()
        if m.sigma is None:
            out[f"piece{k}_kind"], out[f"piece{k}_colour"] = np.array("opaque"), np.asarray(m.albedo, float)
        else:   # what one wall lets through
            out[f"piece{k}_kind"] = np.array("translucent")
            out[f"piece{k}_colour"] = np.exp(-np.asarray(m.sigma, float) * S.WALL_MM)
    coins = S.coin_meshes(spec)
    out["coins"] = np.array(len(coins))
    for k, c in enumerate(coins):
        out[f"coin{k}_vertices"], out[f"coin{k}_faces"] = c.vertices, c.faces
        out[f"coin{k}_colour"] = np.array(COIN_COLOUR[c.kind], float)
    lamps = S.lamps(spec)
    out["lamps"] = np.array([[*lamp.centre, lamp.radius, *lamp.radiance] for lamp in lamps], float).reshape(-1, 7)
    return out
