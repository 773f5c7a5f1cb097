"""Rendered scenes for tests and benchmarks by seed and options, cached on disk (rendering
takes seconds, detection milliseconds): `vision.render.render_cached` keeps each picture
under a hash of its scene and of the renderer's source ($PYRAMID_RENDER_CACHE, default
the system temp dir), so a changed renderer re-renders.
"""

from __future__ import annotations

from dataclasses import replace


# A bare bulb's radius (mm): shadows as hard as a room's lamps make them.
BARE_BULB_MM = 15.0


def rendered(seed: int, sensor: dict | None = None, table: dict | None = None, haze: float = 1.0,
             bare_bulb: bool = False, **options):
    """render(random_scene(seed, **options)), from the cache when possible; `sensor`
    overrides fields of the scene's Sensor (JPEG quality, noise, white balance error...),
    `table` those of its Surface (tint: how much lighter or darker the table is), `haze`
    scales the plastics' back-scatter (SceneSpec.haze); `bare_bulb` lights the scene by
    its strongest lamp alone, shrunk to BARE_BULB_MM."""
    from vision.render import random_scene, render_cached
    spec = replace(random_scene(seed, **options), haze=haze)
    if bare_bulb:
        lamp = max(spec.lamps, key=lambda q: q.intensity)
        spec = replace(spec, lamps=(replace(lamp, radius=BARE_BULB_MM),))
    if sensor:
        spec = replace(spec, sensor=replace(spec.sensor, **sensor))
    if table:
        spec = replace(spec, surface=replace(spec.surface, **table))
    return render_cached(spec)
