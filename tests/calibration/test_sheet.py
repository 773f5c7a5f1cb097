"""The printed marker sheet, rasterised as a printer would: true scale, decodable markers."""

import shutil
import subprocess

import json

import cv2
import numpy as np
import pytest

from calibration.markers import Marker, MarkerLayout
from calibration.sheet import SheetError, write_sheet
from cli.main import main

DPI = 200
pytestmark = pytest.mark.skipif(shutil.which("pdftoppm") is None, reason="pdftoppm (poppler-utils) not installed")


def rasterise(pdf, tmp_path):
    subprocess.run(["pdftoppm", "-r", str(DPI), "-gray", "-png", str(pdf), str(tmp_path / "page")], check=True)
    return [cv2.imread(str(p), cv2.IMREAD_GRAYSCALE) for p in sorted(tmp_path.glob("page*.png"))]


def found_markers(pages, layout):
    """id → black-square side in mm, from every page."""
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    detector = cv2.aruco.ArucoDetector(layout.aruco, params)
    sides = {}
    for page in pages:
        corners, ids, _ = detector.detectMarkers(page)
        for c, i in zip(corners, np.ravel(ids) if ids is not None else []):
            c = c.reshape(4, 2)
            assert c[0, 1] < c[3, 1], "marker printed upside down"  # top edge at the top of the page
            side_px = np.mean([np.linalg.norm(c[k] - c[(k + 1) % 4]) for k in range(4)])
            sides[int(i)] = side_px / DPI * 25.4
    return sides


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_the_default_sheet_prints_every_marker_at_its_size(tmp_path, paper):
    out = tmp_path / "sheet.pdf"
    assert main(["markers", "--out", str(out), "--paper", paper]) == 0
    sides = found_markers(rasterise(out, tmp_path), MarkerLayout.default())
    assert sorted(sides) == [0, 1, 2, 3]
    for side in sides.values():
        assert side == pytest.approx(50.0, abs=0.2)  # one pixel at 200 dpi is 0.13 mm


def test_a_custom_layout_spreads_over_pages(tmp_path):
    markers = tuple(Marker(i, (100.0 + 150 * (i % 4), 100.0 + 150 * (i // 4)), 80.0 if i % 2 else 35.0)
                    for i in range(7))
    layout = MarkerLayout("DICT_5X5_100", markers)
    path = tmp_path / "layout.json"
    path.write_text(json.dumps(layout.to_dict()))
    out = tmp_path / "sheet.pdf"
    assert main(["markers", "--out", str(out), "--layout", str(path)]) == 0
    pages = rasterise(out, tmp_path)
    assert len(pages) > 1
    sides = found_markers(pages, layout)
    assert sorted(sides) == list(range(7))
    for i, side in sides.items():
        assert side == pytest.approx(layout.marker(i).size, abs=0.2)


def test_a_marker_too_big_for_the_paper_is_refused(tmp_path, capsys):
    layout = MarkerLayout("DICT_4X4_50", tuple(Marker(i, (300.0 * i, 0.0), 250.0) for i in range(4)))
    with pytest.raises(SheetError, match="marker 0 .250 mm. does not fit on a4 paper"):
        write_sheet(layout, str(tmp_path / "x.pdf"))
    path = tmp_path / "big.json"
    path.write_text(json.dumps(layout.to_dict()))
    assert main(["markers", "--out", str(tmp_path / "x.pdf"), "--layout", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "does not fit" in err


def test_a_malformed_layout_is_refused_in_one_line(tmp_path, capsys):
    path = tmp_path / "bad.json"
    path.write_text('{"dictionary": "DICT_4X4_50", "markers": [{"id": 0, "center": [0, 0]}]}')
    assert main(["markers", "--out", str(tmp_path / "x.pdf"), "--layout", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "has no 'size'" in err
