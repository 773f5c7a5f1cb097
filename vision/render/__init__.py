"""Synthetic pictures of pyramids on a table, with exact ground truth.

>>> from vision.render import random_scene, render   # doctest: +SKIP
>>> r = render(random_scene(7))                       # doctest: +SKIP
>>> r.image.shape, len(r.truth.pieces) > 0            # doctest: +SKIP
((960, 1280, 3), True)
"""

from vision.render.cache import render_cached
from vision.render.generate import random_scene, random_setting
from vision.render.render import Rendered, render, render_linear
from vision.render.scene import CameraSpec, Carried, Hand, Lamp, SceneSpec, Sensor, Surface, scene_from_pieces

__all__ = ["SceneSpec", "random_scene", "random_setting", "render", "render_linear", "render_cached", "Rendered", "scene_from_pieces",
           "CameraSpec", "Carried", "Hand", "Lamp", "Sensor", "Surface"]
