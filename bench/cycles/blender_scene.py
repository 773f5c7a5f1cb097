"""Render bench.cycles.export's arrays with Blender's Cycles; run by Blender's own Python.

    python blender_scene.py SCENE.npz OUT.npy SAMPLES

(a Python with the `bpy` wheel, which brings its own numpy: see bench/cycles/render.py).
It imports nothing of this project. Materials are what a Blender user would pick, not a
copy of the Mitsuba renderer's: the plastics are the Principled BSDF's transmission
(base colour the square root of what a wall passes, as Cycles tints a ray at each of a
wall's two surfaces; no back-scatter), black and white a glossy Principled plastic, the
table and sheets their albedo bitmaps on a Principled BSDF (wood with a sheen, cloth
matte), coins Principled metals, lamps one-sided emitting discs (transparent from above,
like the Mitsuba scene's), the room a uniform world colour. Cycles' defaults otherwise:
Blackman-Harris pixel filter, 12 bounces, caustics on, and the OpenImageDenoise denoiser
as Blender's final renders use. Writes the linear radiance (H×W×3 float32, rows from the
top) of the pinhole film.
"""

import sys

import bpy
import mathutils
import numpy as np

IOR_PLASTIC = 1.49
PLASTIC_ROUGHNESS = 0.02     # moulded plastic: nearly a mirror
OPAQUE_ROUGHNESS = 0.15      # black and white pieces: a glossy sheen
SHEET_ROUGHNESS = 0.9        # office paper
COIN_ROUGHNESS = 0.3         # a worn coin
LAMP_SEGMENTS = 48


def principled(name, colour, roughness, **inputs):
    m = bpy.data.materials.new(name)
    m.use_nodes = True
    p = m.node_tree.nodes["Principled BSDF"]
    p.inputs["Base Color"].default_value = (*[float(c) for c in colour], 1.0)
    p.inputs["Roughness"].default_value = roughness
    for key, value in inputs.items():
        p.inputs[key].default_value = value
    return m, p


def textured(name, texture, roughness, extension="EXTEND"):
    m, p = principled(name, (1, 1, 1), roughness)
    h, w = texture.shape[:2]
    img = bpy.data.images.new(name, w, h, alpha=False, float_buffer=True)
    img.colorspace_settings.name = "Non-Color"   # albedo, linear
    rgba = np.concatenate([texture, np.ones((h, w, 1), np.float32)], axis=2)
    img.pixels.foreach_set(rgba.astype(np.float32).ravel())   # row 0 first: v = 0, the -y edge
    node = m.node_tree.nodes.new("ShaderNodeTexImage")
    node.image, node.extension, node.interpolation = img, extension, "Linear"
    m.node_tree.links.new(node.outputs["Color"], p.inputs["Base Color"])
    return m


def mesh_object(name, vertices, faces, material, uv=None):
    me = bpy.data.meshes.new(name)
    me.from_pydata([tuple(map(float, v)) for v in vertices], [], [tuple(map(int, f)) for f in faces])
    if uv is not None:
        layer = me.uv_layers.new()
        for loop in me.loops:
            layer.data[loop.index].uv = tuple(map(float, uv[loop.vertex_index]))
    me.materials.append(material)
    me.update()
    ob = bpy.data.objects.new(name, me)
    bpy.context.scene.collection.objects.link(ob)
    return ob


def lamp_material(k, radiance):
    m = bpy.data.materials.new(f"lamp{k}")
    m.use_nodes = True
    nodes, links = m.node_tree.nodes, m.node_tree.links
    nodes.clear()
    out = nodes.new("ShaderNodeOutputMaterial")
    emit, clear = nodes.new("ShaderNodeEmission"), nodes.new("ShaderNodeBsdfTransparent")
    peak = float(max(radiance))
    emit.inputs["Color"].default_value = (*[float(c) / peak for c in radiance], 1.0)
    emit.inputs["Strength"].default_value = peak
    side, mix = nodes.new("ShaderNodeNewGeometry"), nodes.new("ShaderNodeMixShader")
    links.new(side.outputs["Backfacing"], mix.inputs["Fac"])
    links.new(emit.outputs["Emission"], mix.inputs[1])     # the lit side, facing the table
    links.new(clear.outputs["BSDF"], mix.inputs[2])        # seen from above: not there
    links.new(mix.outputs["Shader"], out.inputs["Surface"])
    return m


def build(a, samples):
    bpy.ops.wm.read_factory_settings(use_empty=True)
    sc = bpy.context.scene
    sc.render.engine = "CYCLES"
    sc.cycles.device = "CPU"
    sc.cycles.samples = samples
    sc.cycles.use_denoising = True
    sc.cycles.denoiser = "OPENIMAGEDENOISE"
    sc.cycles.seed = 0
    sc.render.threads_mode = "AUTO"
    w, h, f = a["film"]
    sc.render.resolution_x, sc.render.resolution_y, sc.render.resolution_percentage = int(w), int(h), 100
    sc.view_settings.view_transform = "Standard"
    cam = bpy.data.cameras.new("camera")
    cam.sensor_fit, cam.sensor_width, cam.lens = "HORIZONTAL", 36.0, float(f) * 36.0 / float(w)
    cam.clip_start, cam.clip_end = 10.0, 20000.0
    ob = bpy.data.objects.new("camera", cam)
    ob.matrix_world = mathutils.Matrix([list(map(float, row)) for row in a["camera_matrix"]])   # rows
    sc.collection.objects.link(ob)
    sc.camera = ob
    world = bpy.data.worlds.new("room")
    world.use_nodes = True
    world.node_tree.nodes["Background"].inputs["Color"].default_value = (*[float(c) for c in a["sky"]], 1.0)
    sc.world = world
    # the table, its bitmap mirrored beyond what the camera sees; the marker sheets
    mesh_object("table", a["table_vertices"], a["table_faces"],
                textured("table", a["table_texture"], float(a["table_roughness"]), "MIRROR"), a["table_uv"])
    for k in range(int(a["sheets"])):
        mesh_object(f"sheet{k}", a[f"sheet{k}_vertices"], a[f"sheet{k}_faces"],
                    textured(f"sheet{k}", a[f"sheet{k}_texture"], SHEET_ROUGHNESS), a[f"sheet{k}_uv"])
    for k in range(int(a["pieces"])):
        colour = a[f"piece{k}_colour"]
        if str(a[f"piece{k}_kind"]) == "translucent":
            mat, _ = principled(f"piece{k}", np.sqrt(colour), PLASTIC_ROUGHNESS,
                                **{"Transmission Weight": 1.0, "IOR": IOR_PLASTIC})
        else:
            mat, _ = principled(f"piece{k}", colour, OPAQUE_ROUGHNESS, IOR=IOR_PLASTIC)
        mesh_object(f"piece{k}", a[f"piece{k}_vertices"], a[f"piece{k}_faces"], mat)
    for k in range(int(a["coins"])):
        mat, _ = principled(f"coin{k}", a[f"coin{k}_colour"], COIN_ROUGHNESS, Metallic=1.0)
        mesh_object(f"coin{k}", a[f"coin{k}_vertices"], a[f"coin{k}_faces"], mat)
    t = np.linspace(0.0, 2 * np.pi, LAMP_SEGMENTS, endpoint=False)
    for k, (cx, cy, cz, r, *radiance) in enumerate(a["lamps"]):
        # clockwise seen from above: the disc's front faces down, towards the table
        ring = np.column_stack([cx + r * np.cos(t), cy - r * np.sin(t), np.full(LAMP_SEGMENTS, cz)])
        fan = [(0, j + 1, (j + 1) % LAMP_SEGMENTS + 1) for j in range(LAMP_SEGMENTS)]
        mesh_object(f"lamp{k}", np.vstack([[cx, cy, cz], ring]), fan, lamp_material(k, radiance))


def render(out_npy):
    sc = bpy.context.scene
    sc.render.image_settings.file_format = "OPEN_EXR"
    sc.render.image_settings.color_depth = "32"
    exr = out_npy + ".exr"
    sc.render.filepath = exr
    bpy.ops.render.render(write_still=True)
    img = bpy.data.images.load(exr)
    w, h = img.size
    px = np.empty(w * h * 4, np.float32)
    img.pixels.foreach_get(px)
    # rows from the top, and left to right as the table frame has it (export.camera_matrix)
    np.save(out_npy, np.ascontiguousarray(px.reshape(h, w, 4)[::-1, ::-1, :3]))


if __name__ == "__main__":
    scene_npz, out, spp = sys.argv[-3], sys.argv[-2], int(sys.argv[-1])
    build(np.load(scene_npz), spp)
    render(out)
