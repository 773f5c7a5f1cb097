"""The dashboard in a real browser (Playwright + Debian's Chromium): a turn watched live.

The app runs in a thread (werkzeug, port 0) on a short clip. `test_the_demo_*` plays the
bundled demo footage through the real detector and referee; the painted-clip test checks
the same page mechanics in a second with the fake detector.
"""

from __future__ import annotations

import json
import os

import pytest

from server.app import create_app
from server.startup import DEMO_FOOTAGE
from tests.dashboard.conftest import AFTER, BEFORE
from tests.browser import browser, requires_chromium, serve_in_thread  # noqa: F401 (fixture)
from tests.live.fakes import FakeDetector, ListSource, turn_clip

# A ruling must reach the page within this long of the loop issuing it (SSE + redraw), ms;
# the real detector reading the footage's still frames takes most of the budget.
RULING_TIMEOUT_MS = 60000

pytestmark = [requires_chromium, pytest.mark.timeout(180)]


@pytest.fixture
def serve(tmp_path):
    running = []

    def start(**config):
        app = create_app({"DATABASE": str(tmp_path / "games.sqlite3"), **config})
        url, srv = serve_in_thread(app)
        running.append((srv, app))
        return url, app

    yield start
    for srv, app in running:
        app.extensions["live"].stop()
        srv.shutdown()


def short_demo_clip(folder) -> str:
    """The demo footage's first turn with short still stretches: set-up, a launch, its ruling."""
    with open(os.path.join(DEMO_FOOTAGE, "playlist.json"), encoding="utf-8") as f:
        frames = json.load(f)["frames"]
    first_still_after_move = next(i for i, e in enumerate(frames) if i > 0 and e["repeat"] > 1)
    clip = [{**e, "file": os.path.join(DEMO_FOOTAGE, e["file"]), "repeat": min(e["repeat"], 6)}
            for e in frames[:first_still_after_move + 1]]
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "playlist.json"), "w", encoding="utf-8") as f:
        json.dump({"fps": 25, "frames": clip}, f)
    return str(folder)


def watch_a_turn_correct_and_reload(page, url: str, min_pieces: int) -> None:
    page.goto(url)
    page.wait_for_function(f"document.querySelectorAll('#map .piece').length >= {min_pieces}",
                           timeout=RULING_TIMEOUT_MS)
    page.wait_for_selector("#rulings .card", timeout=RULING_TIMEOUT_MS)
    first = page.locator("#rulings .card").last
    assert first.locator(".summary").inner_text()
    first.locator("button[data-action=confirm]").click()
    page.wait_for_selector("#rulings .card.confirmed")

    piece = page.locator("#pieces li").first
    pid = piece.get_attribute("data-id")
    piece.click()
    page.select_option("#fix-form select[name=color]", "white")
    page.click("#fix-save")
    page.wait_for_selector(f"#pieces li[data-id='{pid}']:has-text('white')")

    page.reload()
    page.wait_for_selector(f"#pieces li[data-id='{pid}']:has-text('white')")
    page.wait_for_selector("#rulings .card.confirmed")
    assert page.locator("#map .piece").count() >= min_pieces


def test_the_page_follows_a_painted_turn_and_keeps_corrections(serve, browser):
    frames, _ = turn_clip(BEFORE, AFTER, still=20)
    url, _ = serve(FRAME_SOURCE=ListSource(frames, fps=25), DETECTOR=FakeDetector())
    watch_a_turn_correct_and_reload(browser.new_page(), url, 2)


@pytest.mark.skipif(not os.path.exists(os.path.join(DEMO_FOOTAGE, "playlist.json")), reason="no demo footage")
def test_the_demo_footage_through_the_real_pipeline_rules_the_launch(serve, browser, tmp_path):
    url, app = serve(LIVE_SOURCE=short_demo_clip(tmp_path / "clip"), GAME="warpships", LIVE_REALTIME=False)
    page = browser.new_page()
    watch_a_turn_correct_and_reload(page, url, 10)
    kinds = [r["kind"] for r in app.extensions["live"].state()["rulings"]]
    assert kinds[:2] == ["move", "beam"], kinds
