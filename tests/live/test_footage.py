"""The real pipeline (renderer's footage, real detector, real WarpShips referee and game) on
the bundled demo footage: no frame with a hand in it is ever read, and the scripted turns
are ruled as they were played."""

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


def short_footage(folder) -> list[dict]:
    with open(PLAYLIST, encoding="utf-8") as f:
        entries = json.load(f)["frames"]
    clip = [{**e, "file": os.path.join(DEMO_FOOTAGE, e["file"]), "repeat": min(e["repeat"], STILL_REPEAT)}
            for e in entries]
    with open(os.path.join(folder, "playlist.json"), "w", encoding="utf-8") as f:
        json.dump({"fps": 25, "frames": clip}, f)
    return clip


class Watching:
    """The real detector, noting which playlist entry each frame it reads came from."""

    def __init__(self, source: FolderSource):
        self.detector, self.source, self.read_entries = real_detector(), source, []

    def register(self, image):
        return self.detector.register(image)

    def detect(self, image, registration=None, palette=None):
        self.read_entries.append(self.source.index)
        return self.detector.detect(image, registration=registration, palette=palette)


def play_demo(folder) -> tuple[list[dict], list[dict], list[dict], Watching, WarpShipsReferee]:
    """The shortened demo footage through the real pipeline, the players rolling the
    footage's faces when asked: (clip, script turns, rulings, detector, referee)."""
    clip = short_footage(folder)
    with open(os.path.join(DEMO_FOOTAGE, "script.json"), encoding="utf-8") as f:
        script = json.load(f)["turns"]
    faces = [face for turn in script for face in turn["rolls"]]
    source = FolderSource(str(folder))
    watching = Watching(source)
    referee = WarpShipsReferee.real(players=("ann", "bob"))
    rulings = []

    def sink(event):  # the players roll the footage's faces when asked, chain reactions too
        if event.kind != "ruling":
            return
        rulings.append(event.data)
        out = [event.data]
        while out[-1]["kind"] == "roll":
            out = referee.roll(faces.pop(0))
            rulings.extend(out)

    LiveLoop(source, watching, referee, sink, realtime=False, threaded_detection=False).run()
    return clip, script, rulings, watching, referee


def test_no_hand_is_ever_read_and_the_first_turn_is_ruled_as_played(tmp_path):
    clip, script, rulings, watching, referee = play_demo(tmp_path)
    assert watching.read_entries, "the detector never ran"
    assert not [i for i in watching.read_entries if clip[i]["hand"]]
    # the whole demo's fidelity (every turn, the colonies) is a figure of bench/bench_live.py;
    # here the first turn: the launch (legal, or within the measurement error), its beam, its roll
    move, beam, roll = rulings[:3]
    assert move["kind"] == "move" and move["ruling"]["kind"] == script[0]["kind"], move
    assert move["ruling"]["legal"] or move["too_close_to_call"], move
    assert beam["kind"] == "beam" and beam["ruling"]["valid"], beam
    assert roll["kind"] == "roll" and roll["ruling"]["target"] == beam["ruling"]["target"]
    # a launch that stands within the measurement error is played by the game, not bounced
    assert rulings[3]["kind"] != "uncertain", rulings[3]
    assert referee.game is not None and referee.game.history, "the game did not take the first turn"
