"""An independent, physically based rendering of our scene specs with Mitsuba 3.

`vision.render` is our own ray caster and the detector has been tuned against it; this
package draws the same `SceneSpec` (same pieces, camera, lamps, table, marker sheets)
with a path tracer that knows nothing of it, so the detector can be measured on pictures
it was never tuned on. Mitsuba is optional (`pip install -e '.[pbr]'`): `scene` builds
the geometry with numpy alone, `render` needs mitsuba.
"""
