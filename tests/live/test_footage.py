"""The real pipeline (renderer's footage, real detector, real WarpShips referee) never reads a
frame with a hand in it, and rules the footage's first turns as they were scripted."""

from __future__ import annotations

import json
import os

import pytest

from server.startup import DEMO_FOOTAGE, real_detector
from vision.live.loop import LiveLoop
from vision.live.sources import FolderSource
from vision.live.turns import WarpShipsReferee

PLAYLIST = os.path.join(DEMO_FOOTAGE, "playlist.json")
STILL_REPEAT = 5  # still stretches shortened: the gate needs 2 quiet frames, the debouncer 2 readings

pytestmark = [
    pytest.mark.skipif(not os.path.exists(PLAYLIST), reason="no demo footage (python -m server.demo.make_footage)"),
    pytest.mark.timeout(300),
]


def first_turns(tmp_path, turns: int) -> tuple[str, list[dict]]:
    with open(PLAYLIST, encoding="utf-8") as f:
        entries = json.load(f)["frames"]
    stills = [i for i, e in enumerate(entries) if e["repeat"] > 1]
    clip = [{**e, "file": os.path.join(DEMO_FOOTAGE, e["file"]), "repeat": min(e["repeat"], STILL_REPEAT)}
            for e in entries[:stills[turns] + 1]]
    (tmp_path / "playlist.json").write_text(json.dumps({"fps": 25, "frames": clip}))
    return str(tmp_path), clip


class Watching:
    """The real detector, noting which playlist entry each frame it reads came from."""

    def __init__(self, source: FolderSource):
        self.detector, self.source, self.read_entries = real_detector(), source, []

    def register(self, image):
        return self.detector.register(image)

    def detect(self, image, registration=None):
        self.read_entries.append(self.source.index)
        return self.detector.detect(image, registration=registration)


def test_no_frame_with_a_hand_is_ever_read_and_the_launch_is_ruled(tmp_path):
    folder, clip = first_turns(tmp_path, 2)
    source = FolderSource(folder)
    watching = Watching(source)
    events = []
    loop = LiveLoop(source, watching, WarpShipsReferee.real(), events.append, realtime=False,
                    threaded_detection=False)
    loop.run()
    assert watching.read_entries, "the detector never ran"
    assert not [i for i in watching.read_entries if clip[i]["hand"]]
    with open(os.path.join(DEMO_FOOTAGE, "script.json"), encoding="utf-8") as f:
        script = json.load(f)["turns"]
    rulings = [e.data for e in events if e.kind == "ruling"]
    move = next(r for r in rulings if r["kind"] == "move")
    # the scripted launch is legal; read through a camera it may come within the error
    assert move["ruling"]["kind"] == script[0]["kind"], move
    assert move["ruling"]["legal"] or move["too_close_to_call"], move
    beam = next(r for r in rulings if r["kind"] == "beam")
    assert beam["ruling"]["valid"], beam
