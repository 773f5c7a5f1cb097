"""JSON API, server-sent events and the live picture (blueprint "api")."""

from __future__ import annotations

import time
from typing import Any, Iterator

from flask import Blueprint, Response, current_app, jsonify, request, stream_with_context

from domain import InputError
from server.live import LiveService, RequestError, jpeg

api = Blueprint("api", __name__)

# The live picture is refreshed this often: enough to follow hands, cheap to encode.
STREAM_FPS = 8.0
LIVE_PICTURE_WIDTH = 800
RAW_JPEG_QUALITY = 95


def service() -> LiveService:
    return current_app.extensions["live"]


def body() -> dict[str, Any]:
    data = request.get_json(silent=True)
    if data is None and request.form:
        data = request.form.to_dict()
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise RequestError("the request body must be a JSON object")
    return data


@api.get("/api/state")
def state():
    return jsonify(service().state())


@api.get("/api/live")
def live():
    s = service()
    loop = s.loop
    info: dict[str, Any] = {"status": s.status, "running": bool(s.thread and s.thread.is_alive())}
    if loop is not None:
        info.update(source=loop.source.name, frames=loop.stats.frames, fps=round(loop.stats.fps, 1),
                    detections=loop.stats.detections, corrupt_frames=loop.stats.corrupt_frames,
                    detection_ms=round(loop.stats.last_detection_ms, 1))
    return jsonify(info)


@api.get("/api/stream")
def stream():
    return Response(stream_with_context(service().bus.stream()), mimetype="text/event-stream",
                    headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})


def live_picture(raw: bool = False) -> bytes | None:
    s = service()
    loop = s.loop
    if loop is None or loop.latest_frame is None:
        return None
    frame = loop.latest_frame
    if raw:  # as the camera took it, full size (for calibrate-colours)
        return jpeg(frame, frame.shape[1], RAW_JPEG_QUALITY)
    if s.annotate is not None and loop.latest_detection is not None and loop.gate.settled:
        try:
            frame = s.annotate(frame, loop.latest_detection)
        except Exception:  # drawing must never break the view
            pass
    return jpeg(frame, LIVE_PICTURE_WIDTH)


@api.get("/api/frame.jpg")
def frame():
    data = live_picture(raw=bool(request.args.get("raw")))
    if data is None:
        return jsonify({"error": "no camera picture yet"}), 404
    return Response(data, mimetype="image/jpeg", headers={"Cache-Control": "no-store"})


@api.get("/video.mjpg")
def video():
    def frames() -> Iterator[bytes]:
        while True:
            data = live_picture()
            if data:
                yield b"--frame\r\nContent-Type: image/jpeg\r\n\r\n" + data + b"\r\n"
            time.sleep(1.0 / STREAM_FPS)
    return Response(frames(), mimetype="multipart/x-mixed-replace; boundary=frame")


@api.post("/api/end-turn")
def end_turn():
    service().end_turn()
    return jsonify({"ok": True, "message": "reading the table now"})


@api.post("/api/die")
def die():
    face = body().get("face")
    return jsonify({"rulings": service().roll(None if face in (None, "", "screen") else str(face))})


@api.post("/api/pieces/<pid>")
def correct_piece(pid: str):
    return jsonify({"piece": service().correct_piece(pid, body())})


@api.post("/api/rulings/<rid>")
def ruling_action(rid: str):
    data = body()
    return jsonify({"ruling": service().act_on_ruling(rid, str(data.get("action", "")), data.get("note", ""))})


@api.get("/api/rulings/<rid>/picture.jpg")
def ruling_picture(rid: str):
    return Response(service().store.ruling_image(rid), mimetype="image/jpeg")


@api.get("/api/events/<int:event_id>/picture.jpg")
def event_picture(event_id: int):
    return Response(service().store.event_image(event_id), mimetype="image/jpeg")


@api.get("/api/games")
def games():
    return jsonify({"games": service().store.games(), "current": service().game["id"]})


@api.post("/api/games")
def new_game():
    data = body()
    game = service().new_game(str(data.get("game", data.get("kind", ""))), data.get("players"),
                              bool(data.get("shadow", False)))
    return jsonify({"game": game}), 201


@api.get("/api/games/<int:game_id>")
def game(game_id: int):
    store = service().store
    return jsonify({"game": store.game(game_id), "events": store.events(game_id),
                    "rulings": store.rulings(game_id)})


@api.get("/api/calibration")
def calibration():
    """What the camera makes of the markers: now (?check=1, on the latest frame) or last time."""
    loop = service().loop
    if loop is None:
        return jsonify({"registered": False, "message": "no camera is running: start with --source or --demo"})
    reg = loop.watch.last_good
    if request.args.get("check") and loop.latest_frame is not None and hasattr(loop.detector, "register"):
        try:
            reg = loop.detector.register(loop.latest_frame)
        except InputError as e:
            return jsonify({"registered": False, "message": str(e)})
    if reg is None:
        return jsonify({"registered": False, "message": "no registration yet: show the markers to the camera"})
    layout_ids = [m.id for m in loop.detector.layout.markers] if hasattr(loop.detector, "layout") else []
    return jsonify({"registered": True, "markers_seen": sorted(int(i) for i in reg.markers_seen),
                    "missing": sorted(set(layout_ids) - {int(i) for i in reg.markers_seen}),
                    "reprojection_error_px": round(float(reg.reprojection_error_px), 2),
                    "paper_white_bgr": [round(float(v), 1) for v in getattr(reg, "paper_white_bgr", ())]})


@api.app_errorhandler(404)
def not_found(e):
    if request.path.startswith("/api/"):
        return jsonify({"error": f"no such endpoint: {request.method} {request.path}"}), 404
    return e

