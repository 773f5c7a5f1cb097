"""Run by Blender's Python (bpy): Blender's own view transforms (its OCIO configuration,
display sRGB, look None) applied to linear light.

    python blender_views.py LIGHT.npy OUT_PREFIX VIEW...
        linear Rec.709 RGB (H×W×3, top row first) → OUT_PREFIX_VIEW.png (8-bit RGB) each
        (spaces in a view's name become underscores).
bench.cycles.views runs it; bench/cycles/view_curves.py reads the views' curves from it.
"""

import sys

import bpy
import numpy as np


def through_view(light: np.ndarray, view: str, path: str) -> None:
    """Save linear Rec.709 `light` (H×W×3, top row first) as an 8-bit PNG through `view`."""
    h, w = light.shape[:2]
    img = bpy.data.images.new("light", w, h, float_buffer=True, alpha=False)
    img.colorspace_settings.name = "Linear Rec.709"
    px = np.ones((h, w, 4), np.float32)
    px[..., :3] = light[::-1]
    img.pixels.foreach_set(px.ravel())
    sc = bpy.context.scene
    sc.render.image_settings.file_format = "PNG"
    sc.render.image_settings.color_depth = "8"
    sc.display_settings.display_device = "sRGB"
    sc.view_settings.view_transform = view
    sc.view_settings.look = "None"
    sc.view_settings.exposure = 0.0
    sc.view_settings.gamma = 1.0
    img.save_render(path, scene=sc)
    bpy.data.images.remove(img)


def main(argv: list[str]) -> None:
    if len(argv) < 3:
        raise SystemExit(__doc__)
    light = np.load(argv[0]).astype(np.float32)
    for view in argv[2:]:
        through_view(light, view, f"{argv[1]}_{view.replace(' ', '_')}.png")


if __name__ == "__main__":
    main(sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else sys.argv[1:])
