"""Build the live service the configuration asks for: game, frame source, detector, loop."""

from __future__ import annotations

import functools
import json
import os
from typing import Any, Mapping

from calibration.markers import MarkerLayout
from server.bus import EventBus
from server.db import Store
from server.live import LiveService
from vision.live.loop import LiveLoop
from vision.live.session import SessionRecorder
from vision.live.sources import FrameSource, open_source

DEMO_FOOTAGE = os.path.join(os.path.dirname(__file__), "demo", "footage")


def demo_rolls() -> list[str]:
    """The die faces the footage's script rolled, in order (the demo enters them)."""
    try:
        with open(os.path.join(DEMO_FOOTAGE, "script.json"), encoding="utf-8") as f:
            return [face for turn in json.load(f)["turns"] for face in turn["rolls"]]
    except (OSError, ValueError, KeyError):
        return []


def detector_factory(config: Mapping[str, Any] | None = None) -> Any:
    """A picklable callable that builds the project's detector with the configured marker
    layout, camera file and colour models (here, or in a worker process)."""
    from calibration.camera import Intrinsics
    from vision.pipeline import Detector
    config = config or {}
    intrinsics = Intrinsics.load(config["CAMERA"]) if config.get("CAMERA") else None
    return functools.partial(Detector, layout_of(config), intrinsics, config.get("COLOURS"))


def real_detector(config: Mapping[str, Any] | None = None) -> Any:
    """The project's detector, in this process."""
    return detector_factory(config)()


def live_detector(config: Mapping[str, Any] | None = None) -> Any:
    """`real_detector` in worker processes, for the live loop (vision.live.processes)."""
    from vision.live.processes import ProcessDetector
    return ProcessDetector(detector_factory(config))


def layout_of(config: Mapping[str, Any]) -> MarkerLayout:
    return MarkerLayout.load(config["MARKERS"]) if config.get("MARKERS") else MarkerLayout.default()


def real_annotate() -> Any:
    from vision.annotate import annotate
    return annotate


def frame_source(config: Mapping[str, Any], on_status, on_lap) -> FrameSource | None:
    if config.get("FRAME_SOURCE") is not None:
        return config["FRAME_SOURCE"]
    if config.get("LIVE_DEMO"):
        return open_source(DEMO_FOOTAGE, loop=True, on_status=on_status, on_lap=on_lap)
    if config.get("LIVE_SOURCE") not in (None, ""):
        return open_source(str(config["LIVE_SOURCE"]), on_status=on_status)
    return None


def build_service(config: Mapping[str, Any], store: Store, bus: EventBus) -> LiveService:
    recorder = SessionRecorder(config["RECORD_DIR"]) if config.get("RECORD_DIR") else None
    service = LiveService(store, bus, annotate=real_annotate(), recorder=recorder, layout=layout_of(config),
                          referee_options={"MARTIAN_CHESS_FORWARD": config.get("MARTIAN_CHESS_FORWARD")})
    wanted = config.get("GAME") or ("warpships" if config.get("LIVE_DEMO") else None)
    shadow = bool(config.get("SHADOW"))
    if wanted and (service.game["kind"] != wanted or service.game["shadow"] != shadow or config.get("LIVE_DEMO")):
        service.new_game(wanted, None, shadow)

    def on_status(text: str) -> None:
        service.status = text
        bus.publish("status", {"message": text})

    def on_lap() -> None:  # the demo footage starts again: so does its game
        service.new_game(service.game["kind"], service.game["players"], shadow)

    if config.get("LIVE_DEMO"):
        service.auto_rolls = demo_rolls()
    source = frame_source(config, on_status, on_lap)
    if source is not None:
        realtime = bool(config.get("LIVE_REALTIME", True))  # else every frame is read in turn (tests)
        detector = config.get("DETECTOR") or (live_detector(config) if realtime else real_detector(config))
        loop = LiveLoop(source, detector, service.referee, service.handle,
                        quiet_frames=config.get("QUIET_FRAMES"), agreeing_frames=config.get("AGREEING_FRAMES"),
                        realtime=realtime, threaded_detection=realtime)
        # a detector built here is closed here (its worker processes); one given is its giver's
        service.attach(loop, on_stop=None if config.get("DETECTOR") else getattr(detector, "close", None))
    return service
