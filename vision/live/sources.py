"""Where live frames come from: a webcam index, a video file, a folder of pictures, a URL.

Every source answers `read()` with a BGR uint8 frame, None at the end of a finite
source, or raises `FrameLost` (the device went away: reconnect) or `CorruptFrame`
(this one frame is unusable: skip it). `open_source` turns the `--source` text into a
source; `Reconnecting` wraps a live camera/stream so a lost device is reopened with
back-off without losing the game.

>>> parse_source("0"), parse_source("rtsp://cam/1")[0], parse_source("clip.avi")[0]
(('camera', 0), 'url', 'file')
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass, field
from typing import Callable, Iterator, Protocol

import cv2
import numpy as np

from domain import InputError

PICTURE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff", ".webp")
# Back-off between reconnection attempts of a lost camera: doubles up to the cap, so a
# camera unplugged for a minute is retried a few times a minute, not hammered.
RECONNECT_FIRST_WAIT_S = 0.5
RECONNECT_MAX_WAIT_S = 8.0
# Nominal rate of a folder of pictures when played in real time.
FOLDER_FPS = 10.0
# Each picture of a plain folder is a still table: it stands for this many frames so the
# motion gate sees it settle and the debouncer gets its agreeing readings.
FOLDER_HOLD_FRAMES = 5


class SourceError(InputError):
    """A frame source that cannot be opened."""


class FrameLost(Exception):
    """The device stopped delivering frames (unplugged, network dropped)."""


class CorruptFrame(Exception):
    """One frame that cannot be decoded or has the wrong shape; the next may be fine."""


class FrameSource(Protocol):
    name: str
    fps: float
    live: bool  # a camera or stream (reconnect on loss) rather than a finite recording

    def read(self) -> np.ndarray | None: ...

    def close(self) -> None: ...


def parse_source(spec: str) -> tuple[str, str | int]:
    """Classify a --source value: ('camera', index) | ('url', text) | ('folder'|'file', path)."""
    text = str(spec).strip()
    if text.isdigit():
        return ("camera", int(text))
    if "://" in text:
        return ("url", text)
    if os.path.isdir(text):
        return ("folder", text)
    return ("file", text)


def check_frame(frame: object, where: str) -> np.ndarray:
    """A frame the pipeline can use (BGR uint8, 3 channels, not tiny) or CorruptFrame."""
    if not isinstance(frame, np.ndarray) or frame.dtype != np.uint8:
        raise CorruptFrame(f"{where}: not a decodable picture")
    if frame.ndim == 2:
        frame = cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR)
    if frame.ndim != 3 or frame.shape[2] != 3 or min(frame.shape[:2]) < 16:
        raise CorruptFrame(f"{where}: unexpected picture shape {frame.shape}")
    return frame


class CaptureSource:
    """Anything cv2.VideoCapture opens: a camera index, a video file, a stream URL."""

    def __init__(self, target: int | str, live: bool):
        self.name = f"camera {target}" if isinstance(target, int) else str(target)
        self.live = live
        self._target = target
        self._cap = cv2.VideoCapture(target)
        if not self._cap.isOpened():
            self._cap.release()
            what = "camera" if isinstance(target, int) else ("stream" if live else "video file")
            raise SourceError(f"cannot open {what} {target!r}"
                              + ("" if live or os.path.exists(str(target)) else ": no such file"))
        fps = self._cap.get(cv2.CAP_PROP_FPS)
        self.fps = float(fps) if fps and 1.0 <= fps <= 240.0 else 25.0
        self._count = 0

    def read(self) -> np.ndarray | None:
        ok, frame = self._cap.read()
        if not ok:
            if self.live:
                raise FrameLost(f"{self.name} stopped delivering frames")
            return None
        self._count += 1
        return check_frame(frame, f"{self.name} frame {self._count}")

    def close(self) -> None:
        self._cap.release()


class FolderSource:
    """The pictures of a folder in name order, each held for FOLDER_HOLD_FRAMES frames.

    A `playlist.json` in the folder ({"fps": 10, "frames": [{"file": "a.jpg", "repeat": 40}]})
    gives the order and how many frames each picture stands for (footage whose still
    stretches are stored once).
    """

    def __init__(self, folder: str, fps: float = FOLDER_FPS):
        self.name = folder
        self.fps = fps
        self.live = False
        self.entries = self._entries(folder)
        if not self.entries:
            raise SourceError(f"folder {folder!r} holds no pictures ({', '.join(PICTURE_SUFFIXES)})")
        self.index = -1  # entry of the last frame read
        self._left = 0
        self._cached: tuple[str, np.ndarray] | None = None

    def _entries(self, folder: str) -> list[dict]:
        playlist = os.path.join(folder, "playlist.json")
        if not os.path.exists(playlist):
            return [{"file": f, "repeat": FOLDER_HOLD_FRAMES} for f in sorted(os.listdir(folder))
                    if f.lower().endswith(PICTURE_SUFFIXES)]
        try:
            with open(playlist, encoding="utf-8") as f:
                data = json.load(f)
            self.fps = float(data.get("fps", self.fps))
            return [{"repeat": 1, **e} for e in data["frames"] if isinstance(e.get("file"), str)]
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
            raise SourceError(f"{playlist}: not a usable playlist ({e})") from None

    def read(self) -> np.ndarray | None:
        while self._left <= 0:
            if self.index + 1 >= len(self.entries):
                return None
            self.index += 1
            self._left = int(self.entries[self.index]["repeat"])
        self._left -= 1
        path = os.path.join(self.name, self.entries[self.index]["file"])
        if self._cached is None or self._cached[0] != path:
            try:
                self._cached = (path, check_frame(cv2.imread(path, cv2.IMREAD_COLOR), os.path.basename(path)))
            except CorruptFrame:
                self._left = 0  # once is enough: go on with the next picture
                raise
        return self._cached[1]

    def close(self) -> None:
        self.index, self._left = len(self.entries), 0


class Looping:
    """Replays a finite source forever (the demo footage)."""

    def __init__(self, factory: Callable[[], FrameSource], on_lap: Callable[[], None] = lambda: None):
        self._factory, self._on_lap = factory, on_lap
        self._source = factory()
        self.name, self.fps, self.live = self._source.name, self._source.fps, False
        self.laps = 0

    def read(self) -> np.ndarray | None:
        frame = self._source.read()
        if frame is None:
            self._source.close()
            self._source = self._factory()
            self.laps += 1
            self._on_lap()
            frame = self._source.read()
        return frame

    def close(self) -> None:
        self._source.close()


@dataclass
class Reconnecting:
    """Reopens a live source that was lost, waiting longer after each failed attempt.

    `on_status(text)` is told about the loss and the recovery so the dashboard can say
    "camera lost, retrying in 2 s" instead of going silent.
    """

    factory: Callable[[], FrameSource]
    on_status: Callable[[str], None] = lambda text: None
    sleep: Callable[[float], None] = time.sleep
    _source: FrameSource | None = field(default=None, init=False)
    _closed: bool = field(default=False, init=False)

    def __post_init__(self) -> None:
        self._source = self.factory()
        self.name, self.fps, self.live = self._source.name, self._source.fps, True

    def read(self) -> np.ndarray | None:
        if self._source is not None:
            try:
                return self._source.read()
            except FrameLost as e:
                self.on_status(f"{e}; reconnecting")
                self._source.close()
                self._source = None
        for wait in self._waits():
            self.sleep(wait)
            if self._closed:
                return None
            try:
                self._source = self.factory()
            except SourceError as e:
                self.on_status(f"{e}; retrying in {min(wait * 2, RECONNECT_MAX_WAIT_S):g} s")
                continue
            self.on_status(f"{self.name} reconnected")
            return self._source.read()
        return None

    @staticmethod
    def _waits() -> Iterator[float]:
        wait = RECONNECT_FIRST_WAIT_S
        while True:
            yield wait
            wait = min(wait * 2, RECONNECT_MAX_WAIT_S)

    def close(self) -> None:
        self._closed = True
        if self._source is not None:
            self._source.close()


def open_source(spec: str, loop: bool = False, on_status: Callable[[str], None] = lambda text: None,
                on_lap: Callable[[], None] = lambda: None) -> FrameSource:
    """The frame source a --source value names; SourceError (one line) when it cannot be opened."""
    kind, target = parse_source(spec)
    if kind == "folder":
        factory: Callable[[], FrameSource] = lambda: FolderSource(str(target))
    elif kind == "file":
        if not os.path.exists(str(target)):
            raise SourceError(f"cannot open {target!r}: no such file, folder or camera")
        factory = lambda: CaptureSource(target, live=False)
    else:
        factory = lambda: CaptureSource(target, live=True)
    if kind in ("camera", "url"):
        return Reconnecting(factory, on_status)
    return Looping(factory, on_lap) if loop else factory()
