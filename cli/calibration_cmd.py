"""`pyramid-referee markers` (print the marker sheet) and `calibrate-camera` (camera.json from
pictures of a checkerboard or ChArUco board)."""

from __future__ import annotations

import json
import sys

from calibration.markers import MarkerLayout


def register(sub) -> None:
    p = sub.add_parser("markers", help="write the printable marker sheet (PDF, true scale)",
                       description="Write every marker of the layout at true scale, with cut lines, "
                                   "labels, a ruler to check the print scale and a placement diagram.")
    p.add_argument("--out", required=True, help="PDF file to write")
    p.add_argument("--paper", choices=("a4", "letter"), default="a4")
    p.add_argument("--layout", help="markers.json (default: the project's layout)")
    p.set_defaults(run=run_markers)

    p = sub.add_parser("calibrate-camera", help="measure the camera's lens from board pictures (camera.json)",
                       description="Find a checkerboard or ChArUco board in each picture and fit the "
                                   "camera's intrinsics and distortion (OpenCV's model).")
    p.add_argument("images", nargs="+", metavar="IMAGE")
    p.add_argument("--out", required=True, help="camera.json to write")
    p.add_argument("--board", choices=("checkerboard", "charuco"), default="checkerboard")
    p.add_argument("--cols", type=int, default=9, help="squares across the board (default 9)")
    p.add_argument("--rows", type=int, default=6, help="squares down the board (default 6)")
    p.add_argument("--square", type=float, default=25.0, help="side of a square, mm (default 25)")
    p.add_argument("--marker", type=float, help="ChArUco: side of a marker, mm (default 0.75 × square)")
    p.add_argument("--dictionary", default="DICT_4X4_50", help="ChArUco: ArUco dictionary (default DICT_4X4_50)")
    p.set_defaults(run=run_calibrate)


def run_markers(args) -> int:
    from calibration.sheet import write_sheet  # reportlab loads only when printing
    layout = MarkerLayout.load(args.layout) if args.layout else MarkerLayout.default()
    pages = write_sheet(layout, args.out, args.paper)
    print(f"wrote {args.out}: {len(layout.markers)} markers on {pages} page(s), {args.paper}; "
          f"print at 100% (actual size) and check the 100 mm ruler", file=sys.stderr)
    return 0


def run_calibrate(args) -> int:
    from calibration.intrinsics import Board, calibrate
    from cli.vision_cmd import read_image
    board = Board.from_args(args.board, args.cols, args.rows, args.square, args.marker, args.dictionary)
    result = calibrate({path: read_image(path) for path in args.images}, board)
    for path in result.unusable:
        print(f"{path}: board not found, skipped", file=sys.stderr)
    for path, err in result.per_image_px.items():
        print(f"{path}: {err:.3f} px")
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump(result.intrinsics.to_dict(), f, indent=1)
        f.write("\n")
    i = result.intrinsics
    print(f"RMS reprojection error {result.rms_px:.3f} px over {len(result.per_image_px)} pictures; "
          f"fx {i.fx:.1f} fy {i.fy:.1f} cx {i.cx:.1f} cy {i.cy:.1f} -> {args.out}")
    return 0
