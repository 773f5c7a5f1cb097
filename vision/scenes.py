"""Rendered scenes for tests and benchmarks by seed and options, cached on disk (rendering
takes seconds, detection milliseconds): `vision.render.render_cached` keeps each picture
under a hash of its scene and of the renderer's source ($PYRAMID_RENDER_CACHE, default
the system temp dir), so a changed renderer re-renders.
"""

from __future__ import annotations

from dataclasses import replace


def rendered(seed: int, sensor: dict | None = None, table: dict | None = None, haze: float = 1.0, **options):
    """render(random_scene(seed, **options)), from the cache when possible; `sensor`
    overrides fields of the scene's Sensor (JPEG quality, noise, white balance error...),
    `table` those of its Surface (tint: how much lighter or darker the table is), `haze`
    scales the plastics' back-scatter (SceneSpec.haze)."""
    from vision.render import random_scene, render_cached
    spec = replace(random_scene(seed, **options), haze=haze)
    if sensor:
        spec = replace(spec, sensor=replace(spec.sensor, **sensor))
    if table:
        spec = replace(spec, surface=replace(spec.surface, **table))
    return render_cached(spec)
