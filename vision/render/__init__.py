"""Synthetic pictures of pyramids on a table, with exact ground truth (docs/renderer.md).

`render(random_scene(7))` gives a `Rendered` with `.image` (BGR 960×1280), `.jpeg`,
`.truth` (the TableState a detector must report) and `.view` (the true camera).

>>> spec = random_scene(7, n_pieces=3)
>>> [p.id for p in spec.truth().pieces]
['p1', 'p2', 'p3']
"""

from vision.render.cache import render_cached
from vision.render.generate import calibration_scene, random_scene, random_setting
from vision.render.render import Rendered, render, render_linear
from vision.render.scene import (Board, CameraSpec, Carried, Hand, Lamp, SceneError, SceneSpec, Sensor, Surface,
                                 scene_from_pieces)

__all__ = ["SceneSpec", "calibration_scene", "random_scene", "random_setting", "scene_from_pieces", "render",
           "render_linear", "render_cached", "Rendered", "Board", "CameraSpec", "Carried", "SceneError", "Hand", "Lamp",
           "Sensor", "Surface"]
