"""The live loop on painted clips: hands never get read, a move is ruled once, bad frames are skipped."""

from __future__ import annotations

import numpy as np
import pytest

from domain import InputError, Piece
from tests.live.fakes import FakeDetector, FakeReferee, FakeRegistration, HandSpec, ListSource, VIEW, paint, turn_clip
from vision.live.loop import LiveLoop
from vision.live.sources import CorruptFrame

BEFORE = [Piece.upright("a", "red", "large", (200, 200)), Piece.upright("b", "blue", "medium", (520, 330))]
AFTER = [Piece.upright("a", "red", "large", (290, 260)), BEFORE[1]]


def run_clip(frames, detector=None, **kw):
    events = []
    referee = FakeReferee()
    detector = detector or FakeDetector()
    loop = LiveLoop(ListSource(frames), detector, referee, events.append, realtime=False,
                    threaded_detection=False, **kw)
    loop.run()
    return loop, events, referee, detector


def test_a_move_is_ruled_once_from_a_frame_without_hands():
    frames, hand = turn_clip(BEFORE, AFTER)
    loop, events, referee, _ = run_clip(frames)
    tables = [e for e in events if e.kind == "table"]
    rulings = [e for e in events if e.kind == "ruling"]
    assert len(tables) == 2 and len(rulings) == 1 and len(referee.changes) == 1
    before, after = referee.changes[0]
    moved = {p.id: p for p in after.pieces}
    start = {p.id: p for p in before.pieces}
    assert set(moved) == set(start)  # the same two pieces, ids carried over
    red = next(pid for pid, p in moved.items() if p.color.value == "red")
    assert moved[red].center == pytest.approx((290, 260), abs=3)
    assert start[red].center == pytest.approx((200, 200), abs=3)
    assert not hand[rulings[0].frame_index - 1]


@pytest.mark.parametrize("arm", [True, False])
def test_a_hand_held_still_over_the_table_is_never_read(arm):
    frames, hand = turn_clip(BEFORE, AFTER, hold_hand=25)
    if not arm:  # a palm floating over the table, no arm reaching the edge
        start = hand.index(True)
        for i in range(start, start + 31):
            frames[i] = paint(AFTER if i >= start + 6 else BEFORE, HandSpec((330, 380), arm=False), seed=i)
    _, events, referee, detector = run_clip(frames)
    hand_frames = [f for f, h in zip(frames, hand) if h]
    assert not any(any(r is f for f in hand_frames) for r in detector.frames_read)
    assert all(not hand[e.frame_index - 1] for e in events if e.frame_index)
    assert len(referee.changes) == 1


def test_nothing_is_ruled_while_the_table_stays_put():
    frames = [paint(BEFORE, seed=i) for i in range(30)]
    loop, events, referee, detector = run_clip(frames)
    assert [e.kind for e in events if e.kind in ("table", "ruling")] == ["table"]
    # once read and confirmed, the detector rests until something moves
    assert len(detector.frames_read) == 2


def test_end_turn_reads_the_table_at_once():
    events = []
    loop = LiveLoop(ListSource([]), FakeDetector(), FakeReferee(), events.append, realtime=False,
                    threaded_detection=False)
    loop.process(paint(BEFORE))
    assert not [e for e in events if e.kind == "table"]  # one frame is not yet "quiet"
    loop.request_capture()
    loop.process(paint(BEFORE, seed=1))
    assert [e.data["forced"] for e in events if e.kind == "table"] == [True]


class FlakySource(ListSource):
    def read(self):
        frame = super().read()
        if self._i == 5:
            raise CorruptFrame("frame 5: not a decodable picture")
        return frame


def test_a_corrupt_frame_is_reported_and_skipped():
    events = []
    loop = LiveLoop(FlakySource([paint(BEFORE, seed=i) for i in range(12)]), FakeDetector(), FakeReferee(),
                    events.append, realtime=False, threaded_detection=False)
    loop.run()
    assert loop.stats.corrupt_frames == 1
    assert any(e.kind == "error" and "frame 5" in e.data["message"] for e in events)
    assert [e.kind for e in events].count("table") == 1


class RegisteringDetector(FakeDetector):
    """Registers by itself: the markers vanish (hand) or the camera shifts on cue."""

    def __init__(self, views):
        super().__init__()
        self.views = views  # per call: a CameraView, or None for "markers hidden"
        self.given = []

    def register(self, image):
        view = self.views[min(len(self.given), len(self.views) - 1)]
        self.given.append(view)
        if view is None:
            raise InputError("markers 0, 3 not found")
        return FakeRegistration(view=view)

    def detect(self, image, registration=None, palette=None):
        assert registration is not None
        return super().detect(image, registration)


def test_hidden_markers_keep_the_last_registration_and_a_bumped_camera_is_reported():
    from calibration.camera import CameraView
    bumped = CameraView.looking_down((420.0, 280.0), 625.0, VIEW.intrinsics)
    frames, _ = turn_clip(BEFORE, AFTER)
    frames2, _ = turn_clip(AFTER, BEFORE)
    # one registration a still table: before, after the first move (markers hidden), after the second
    detector = RegisteringDetector([VIEW, None, bumped])
    _, events, referee, _ = run_clip(frames + frames2, detector)
    assert len(detector.given) == 3
    assert any("keeping the last good registration" in e.data.get("message", "") for e in events)
    cams = [e for e in events if e.kind == "camera"]
    assert len(cams) == 1 and "camera moved" in cams[0].data["message"]


def test_threaded_detection_gives_the_same_result():
    frames, hand = turn_clip(BEFORE, AFTER, still=40)
    events = []
    referee = FakeReferee()
    loop = LiveLoop(ListSource(frames, fps=100), FakeDetector(), referee, events.append, realtime=True)
    loop.run()
    assert len(referee.changes) == 1
    assert loop.stats.detections < loop.stats.frames / 4  # the detector rests while the table is still


class BrokenDetector(FakeDetector):
    def detect(self, image, registration=None, palette=None):
        raise ZeroDivisionError("a bug")


def test_a_detector_failure_is_reported_and_the_loop_goes_on():
    frames = [paint(BEFORE, seed=i) for i in range(10)]
    loop, events, referee, _ = run_clip(frames, BrokenDetector())
    assert loop.stats.frames == 10
    errors = [e for e in events if e.kind == "error"]
    assert len(errors) == 1 and "ZeroDivisionError: a bug" in errors[0].data["message"]  # said once


def test_the_detector_is_told_the_colours_of_the_game_in_play():
    from vision.live.turns import WarpShipsReferee
    frames, _ = turn_clip(BEFORE, AFTER)
    _, _, _, detector = run_clip(frames)
    assert detector.palettes and set(detector.palettes) == {None}   # a referee with no palette
    warpships = WarpShipsReferee.real()
    detector = FakeDetector()
    LiveLoop(ListSource(frames), detector, warpships, lambda e: None, realtime=False,
             threaded_detection=False).run()
    assert detector.palettes and set(detector.palettes) == {("red", "yellow", "green", "blue")}
