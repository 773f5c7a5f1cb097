"""Recorded sessions: events and the frames they were read from, read back and replayable."""

from __future__ import annotations

import json

import pytest

from domain import Piece
from tests.live.fakes import FakeDetector, FakeReferee, turn_clip
from vision.live.loop import LiveLoop
from vision.live.session import SessionError, SessionRecorder, read_session
from vision.live.sources import open_source

BEFORE = [Piece.upright("a", "red", "large", (200, 200))]
AFTER = [Piece.upright("a", "red", "large", (300, 250))]


def play(source, sink, referee=None):
    referee = referee or FakeReferee()
    LiveLoop(source, FakeDetector(), referee, sink, realtime=False, threaded_detection=False).run()
    return referee


def test_a_recorded_session_reads_back_and_replays_to_the_same_rulings(tmp_path):
    from tests.live.fakes import ListSource
    rec = SessionRecorder(str(tmp_path / "s"))
    frames, _ = turn_clip(BEFORE, AFTER)
    live = play(ListSource(frames), rec.record)
    events = list(read_session(str(tmp_path / "s")))
    assert [e["kind"] for e in events] == ["table", "table", "ruling"]
    assert events[1]["frame"] == events[2]["frame"]  # one picture for the change and its ruling
    assert len(list((tmp_path / "s" / "frames").iterdir())) == 2

    replayed = play(open_source(str(tmp_path / "s")), lambda e: None)
    assert len(replayed.changes) == len(live.changes) == 1
    (b1, a1), (b2, a2) = live.changes[0], replayed.changes[0]
    assert [c for p in a2.pieces for c in p.center] == pytest.approx([c for p in a1.pieces for c in p.center], abs=1.0)


def test_a_damaged_session_is_refused_in_one_line(tmp_path):
    with pytest.raises(SessionError, match="not a recorded session"):
        list(read_session(str(tmp_path)))
    (tmp_path / "events.jsonl").write_text(json.dumps({"kind": "table"}) + "\n{oops\n")
    with pytest.raises(SessionError, match="line 2"):
        list(read_session(str(tmp_path)))
