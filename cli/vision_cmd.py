"""`pyramid-referee detect` and `calibrate-colours`: pictures of the table to table states.

Several images: one JSON object a line, in the order given, each with an extra "image"
field naming its file; an image that fails (unreadable, too few markers...) prints
nothing on stdout, its one-line reason goes to stderr, the others still run, and the
exit code is 2 at the end. With --annotate OUT.png and several images the drawings
are OUT-1.png, OUT-2.png, ... numbered by the image's position on the command line.
"""

from __future__ import annotations

import gc
import json
import os
import sys

import cv2
import numpy as np

from calibration.camera import Intrinsics
from calibration.colour import ColourModels, refine_from_picture
from calibration.markers import MarkerLayout
from domain import Color, InputError

EXIT_BAD_INPUT = 2
# A JPEG's end-of-image marker (FF D9) must be among its last bytes, else it was cut short.
JPEG_TAIL_BYTES = 64


class ImageReadError(InputError):
    """A picture file that cannot be read or decoded."""


def read_image(path: str) -> np.ndarray:
    """A BGR picture from a file, refusing missing, empty, corrupt or truncated files."""
    try:
        data = np.fromfile(path, dtype=np.uint8)
    except OSError as e:
        raise ImageReadError(f"cannot read {path}: {e.strerror or e}") from None
    if data.size == 0:
        raise ImageReadError(f"{path} is empty")
    if data[:2].tobytes() == b"\xff\xd8" and b"\xff\xd9" not in data[-JPEG_TAIL_BYTES:].tobytes():
        raise ImageReadError(f"{path} is a truncated JPEG")
    image = cv2.imdecode(data, cv2.IMREAD_COLOR)
    if image is None:
        raise ImageReadError(f"{path} is not a picture OpenCV can decode (corrupt or unknown format)")
    return image


def numbered(path: str, index: int) -> str:
    """OUT.png → OUT-<index>.png."""
    root, ext = os.path.splitext(path)
    return f"{root}-{index}{ext or '.png'}"


def _detector(args):
    from vision.pipeline import Detector  # imported late: `--help` stays fast
    layout = MarkerLayout.load(args.markers) if args.markers else MarkerLayout.default()
    intrinsics = Intrinsics.load(args.camera) if args.camera else None
    return Detector(layout, intrinsics, colours_path=args.colours)


def _write_png(path: str, image: np.ndarray) -> None:
    if not cv2.imwrite(path, image):
        raise InputError(f"cannot write {path}")


def colour_list(text: str) -> list[str]:
    """'red, Green,blue' → ['red', 'green', 'blue']; unknown or no colours: InputError."""
    names = [c.strip().lower() for c in text.split(",") if c.strip()]
    bad = [c for c in names if c not in {col.value for col in Color}]
    if bad or not names:
        raise InputError(f"unknown colour(s) {', '.join(bad) or '(none given)'}; "
                         f"use a comma-separated list of: {', '.join(c.value for c in Color)}")
    return names


def run_detect(args) -> int:
    from vision.annotate import annotate
    palette = colour_list(args.in_play) if args.in_play is not None else None
    detector = _detector(args)
    several = len(args.images) > 1
    failed, frozen = [], False
    for i, path in enumerate(args.images, start=1):
        try:
            image = read_image(path)
            detection = detector.detect(image, palette=palette)
            if not frozen:
                # what the imports and the first reading leave live for the whole run (the
                # kernels, the camera's maps), out of the garbage collector's sight: a full
                # collection (~every 90 pictures) then takes ~0 ms, not ~67 ms (measured
                # after 4 pictures; freezing before the first reading still left 13 ms)
                gc.freeze()
                frozen = True
            out = detection.state.to_dict()
            warnings = _warnings(detection, detector.layout)
            if warnings:
                out["warnings"] = warnings
            if several:
                out["image"] = path
            if args.annotate:
                _write_png(numbered(args.annotate, i) if several else args.annotate, annotate(image, detection))
        except InputError as e:
            if not several:
                raise
            print(f"pyramid-referee: {path}: {e}", file=sys.stderr)
            failed.append(path)
            continue
        print(json.dumps(out), flush=True)
    if failed:
        print(f"pyramid-referee: {len(failed)} of {len(args.images)} images failed: {', '.join(failed)}",
              file=sys.stderr)
        return EXIT_BAD_INPUT
    return 0


def _warnings(detection, layout) -> list[str]:
    """What a reader of `detect`'s JSON should know about how sure it is: a hand over the
    table, markers hidden when no camera file gives the focal length, a soft picture
    (calibration.sharpness)."""
    from calibration.sharpness import soft_warning
    from vision.hands import HAND_WARNING
    out = [HAND_WARNING] if detection.hand else []
    reg = detection.registration
    soft = soft_warning(reg.blur)
    if soft:
        out.append(soft)
    missing = [m.id for m in layout.markers if m.id not in reg.markers_seen]
    if missing and reg.view.meta.get("focal_estimated"):
        which = f"marker{'s' if len(missing) > 1 else ''} {', '.join(map(str, missing))}"
        out.append(f"{which} not used (hidden or moved): the table frame and the camera's focal length come "
                   f"from the other {len(reg.markers_seen)}; --camera camera.json makes positions surer")
    return out


def run_calibrate_colours(args) -> int:
    layout = MarkerLayout.load(args.markers) if args.markers else MarkerLayout.default()
    intrinsics = Intrinsics.load(args.camera) if args.camera else None
    names = colour_list(args.colours)
    base = ColourModels.load(args.base)
    notes: list[str] = []
    models = refine_from_picture(read_image(args.image), layout, names, base, intrinsics, notes=notes)
    for note in notes:
        print(f"pyramid-referee: {note}", file=sys.stderr)
    try:
        models.save(args.out)
    except OSError as e:
        raise InputError(f"cannot write {args.out}: {e.strerror}") from None
    print(f"wrote colour models for {', '.join(names)} to {args.out}")
    return 0


def register(sub) -> None:
    p = sub.add_parser("detect", help="find every pyramid and coin in pictures of the table",
                       description="Print the table state (JSON) seen in each picture. " + __doc__.split("\n\n")[1])
    p.add_argument("images", nargs="+", metavar="IMAGE")
    p.add_argument("--markers", metavar="markers.json", help="marker layout (default: the shipped layout)")
    p.add_argument("--camera", metavar="camera.json", help="camera intrinsics (default: estimated from the markers)")
    p.add_argument("--colours", "--colors", metavar="colours.json",
                   help="colour models from calibrate-colours (default: the shipped models)")
    p.add_argument("--annotate", metavar="OUT.png", help="also draw what was seen (several images: OUT-1.png, ...)")
    p.add_argument("--in-play", metavar="red,green,...",
                   help="the colours the game in play uses (WarpShips: red,yellow,green,blue); "
                        "a piece is read as another colour only when it plainly is one")
    p.set_defaults(run=run_detect)

    c = sub.add_parser("calibrate-colours", help="measure the plastics' colours from one picture",
                       description="From a picture showing exactly one piece of each named colour, write "
                                   "colour models for `detect --colours`.")
    c.add_argument("image", metavar="IMAGE")
    c.add_argument("--colours", "--colors", required=True, metavar="red,green,...",
                   help="the colours in the picture, comma-separated")
    c.add_argument("--out", required=True, metavar="colours.json")
    c.add_argument("--markers", metavar="markers.json")
    c.add_argument("--camera", metavar="camera.json")
    c.add_argument("--base", metavar="colours.json", help="models to start from (default: the shipped ones)")
    c.set_defaults(run=run_calibrate_colours)
