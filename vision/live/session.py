"""Record a live session to a folder and read it back.

The folder holds `events.jsonl` (one event a line: kind, time, data, frame file),
`frames/NNNNNN.jpg`, the frames on which the table changed or a ruling was made, and a
`playlist.json` over them. So a session can be read back event by event (`read_session`)
and replayed through the pipeline (`pyramid-referee serve --source SESSION`).
"""

from __future__ import annotations

import json
import os
import threading
from typing import Any, Iterator

import cv2

from domain import InputError
from vision.live.loop import LiveEvent
from vision.live.sources import FOLDER_FPS, FOLDER_HOLD_FRAMES

RECORDED_KINDS = ("table", "ruling", "camera", "correction", "roll")
JPEG_QUALITY = 90


class SessionError(InputError):
    """A session folder that cannot be read."""


class SessionRecorder:
    def __init__(self, folder: str):
        self.folder = folder
        os.makedirs(os.path.join(folder, "frames"), exist_ok=True)
        self._lock = threading.Lock()
        self._frames = len(os.listdir(os.path.join(folder, "frames")))
        self._last_frame_index: int | None = None
        self._last_frame_name: str | None = None

    def record(self, event: LiveEvent) -> None:
        if event.kind not in RECORDED_KINDS:
            return
        with self._lock:
            name = self._frame_name(event)
            line = {"kind": event.kind, "at": round(event.at, 3), "data": event.data, "frame": name}
            with open(os.path.join(self.folder, "events.jsonl"), "a", encoding="utf-8") as f:
                f.write(json.dumps(line) + "\n")

    def _frame_name(self, event: LiveEvent) -> str | None:
        if event.frame is None:
            return None
        if event.frame_index is not None and event.frame_index == self._last_frame_index:
            return self._last_frame_name  # several events read from one frame share its file
        self._frames += 1
        name = f"frames/{self._frames:06d}.jpg"
        cv2.imwrite(os.path.join(self.folder, name), event.frame, [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
        self._last_frame_index, self._last_frame_name = event.frame_index, name
        self._write_playlist()
        return name

    def _write_playlist(self) -> None:
        """So `--source SESSION` replays the recorded pictures, each held as a still table."""
        frames = sorted(os.listdir(os.path.join(self.folder, "frames")))
        playlist = {"fps": FOLDER_FPS, "frames": [{"file": f"frames/{f}", "repeat": FOLDER_HOLD_FRAMES}
                                                  for f in frames]}
        with open(os.path.join(self.folder, "playlist.json"), "w", encoding="utf-8") as f:
            json.dump(playlist, f)


def read_session(folder: str) -> Iterator[dict[str, Any]]:
    """The recorded events in order; a damaged line is reported, not silently dropped."""
    path = os.path.join(folder, "events.jsonl")
    if not os.path.exists(path):
        raise SessionError(f"{folder!r} is not a recorded session (no events.jsonl)")
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                yield json.loads(line)
            except json.JSONDecodeError:
                raise SessionError(f"{path} line {n} is not valid JSON") from None
