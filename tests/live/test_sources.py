"""Frame sources: every kind --source accepts, and the failures a user can meet."""

from __future__ import annotations

import os

import cv2
import numpy as np
import pytest

from tests.live.fakes import paint
from domain import Piece
from vision.live.sources import (FOLDER_HOLD_FRAMES, CorruptFrame, FrameLost, Reconnecting, SourceError,
                                open_source)

PIECES = [Piece.upright("a", "red", "large", (200, 200))]


def test_a_source_that_cannot_be_opened_says_so_in_one_line(tmp_path):
    with pytest.raises(SourceError, match="no such file"):
        open_source(str(tmp_path / "missing.avi"))
    (tmp_path / "empty").mkdir()
    with pytest.raises(SourceError, match="holds no pictures"):
        open_source(str(tmp_path / "empty"))
    bad = tmp_path / "notavideo.avi"
    bad.write_bytes(b"this is not a video")
    with pytest.raises(SourceError, match="cannot open video file"):
        open_source(str(bad))


def test_a_folder_of_pictures_plays_in_name_order_and_a_corrupt_one_is_flagged(tmp_path):
    for i in range(3):
        cv2.imwrite(str(tmp_path / f"f{i}.png"), paint(PIECES, seed=i) * 0 + i * 50)
    (tmp_path / "f1b.jpg").write_bytes(b"\xff\xd8 truncated")
    src = open_source(str(tmp_path))
    read = [int(src.read()[0, 0, 0]) for _ in range(2 * FOLDER_HOLD_FRAMES)]
    assert read == [0] * FOLDER_HOLD_FRAMES + [50] * FOLDER_HOLD_FRAMES
    with pytest.raises(CorruptFrame, match="f1b.jpg"):
        src.read()
    assert src.read()[0, 0, 0] == 100


def test_a_video_file_plays_through_and_loops_for_the_demo(tmp_path):
    path = str(tmp_path / "clip.avi")
    w = cv2.VideoWriter(path, cv2.VideoWriter_fourcc(*"MJPG"), 10, (320, 240))
    for i in range(4):
        w.write(np.full((240, 320, 3), 60 * i, np.uint8))
    w.release()
    once = open_source(path)
    assert once.fps == pytest.approx(10)
    assert [int(once.read().mean() / 60 + 0.5) for _ in range(4)] == [0, 1, 2, 3] and once.read() is None
    laps = []
    looping = open_source(path, loop=True, on_lap=lambda: laps.append(1))
    assert len([looping.read() for _ in range(10)]) == 10 and len(laps) == 2


class FlakyCamera:
    """Delivers two frames, is lost, and can only be reopened on the third try."""

    opened = 0

    def __init__(self):
        FlakyCamera.opened += 1
        if FlakyCamera.opened in (2, 3):
            raise SourceError("cannot open camera 0")
        self.name, self.fps, self.live, self.n = "camera 0", 25.0, True, 0

    def read(self):
        self.n += 1
        if self.n > 2:
            raise FrameLost("camera 0 stopped delivering frames")
        return np.zeros((240, 320, 3), np.uint8)

    def close(self):
        pass


def test_a_lost_camera_is_reopened_with_growing_waits():
    waits, said = [], []
    cam = Reconnecting(FlakyCamera, said.append, waits.append)
    frames = [cam.read() for _ in range(4)]
    assert all(f is not None for f in frames)
    assert waits == [0.5, 1.0, 2.0]
    assert "reconnecting" in said[0] and said[-1] == "camera 0 reconnected"


def test_a_camera_index_that_does_not_open_is_refused():
    with pytest.raises(SourceError, match="cannot open camera 7"):
        open_source("7")


def test_a_playlist_repeats_still_pictures(tmp_path):
    for i in range(2):
        cv2.imwrite(str(tmp_path / f"{i}.png"), np.full((32, 32, 3), 100 * i, np.uint8))
    (tmp_path / "playlist.json").write_text('{"fps": 5, "frames": [{"file": "1.png", "repeat": 3}, {"file": "0.png"}]}')
    src = open_source(str(tmp_path))
    assert src.fps == 5
    assert [int(src.read()[0, 0, 0]) for _ in range(4)] == [100, 100, 100, 0] and src.read() is None
    (tmp_path / "playlist.json").write_text('{"frames": 3}')
    with pytest.raises(SourceError, match="not a usable playlist"):
        open_source(str(tmp_path))
