"""Two browsers play a game to the end while a third watches (Playwright + Debian's Chromium)."""

from __future__ import annotations

import pytest

from tests.browser import browser, requires_chromium, serve_in_thread  # noqa: F401 (fixture)
from tests.martian_chess.helpers import ENDGAME, make_app

# Milliseconds a page may take to show a move made elsewhere (SSE round trip + redraw).
SYNC_TIMEOUT_MS = 5000

pytestmark = [requires_chromium, pytest.mark.timeout(120)]


@pytest.fixture
def server(tmp_path):
    app = make_app(str(tmp_path / "games.sqlite3"), MARTIAN_CHESS_START=ENDGAME, MARTIAN_CHESS_FIRST="bottom")
    url, srv = serve_in_thread(app)
    yield url
    srv.shutdown()


def piece_on(page, square: str):
    return page.locator(f'#board [data-square="{square}"]')


def expect_piece(page, square: str, value: int) -> None:
    page.wait_for_function(
        "([sq, v]) => document.querySelector(`#board [data-square=\"${sq}\"]`)?.dataset.piece === String(v)",
        arg=[square, value], timeout=SYNC_TIMEOUT_MS)


def play(page, move: str) -> None:
    frm, to = move.split("-")
    piece_on(page, frm).click()
    page.wait_for_selector(f'#board [data-square="{to}"].target', timeout=SYNC_TIMEOUT_MS)
    piece_on(page, to).click()


def test_two_players_finish_a_game_while_a_spectator_watches(server, browser):
    alice_ctx, bob_ctx, carol_ctx = (browser.new_context() for _ in range(3))
    alice = alice_ctx.new_page()
    alice.goto(f"{server}/martian-chess/")
    alice.get_by_role("button", name="Start a game").click()
    alice.wait_for_url("**/martian-chess/g/*")
    link = alice.url
    bob = bob_ctx.new_page()
    bob.goto(link)
    carol = carol_ctx.new_page()
    carol.goto(link)
    pages = (alice, bob, carol)
    alice.wait_for_selector("#role:has-text('You play bottom')")
    bob.wait_for_selector("#role:has-text('You play top')")
    carol.wait_for_selector("#role:has-text('spectator')")

    # Bob closes his tab and comes back: the same browser gets the top seat again.
    bob.close()
    bob = bob_ctx.new_page()
    bob.goto(link)
    bob.wait_for_selector("#role:has-text('You play top')")
    pages = (alice, bob, carol)

    # The spectator cannot select anything: no square is offered to her.
    assert carol.locator("#board .movable").count() == 0

    line = [(alice, "b4-c5", {"b4": 0, "c5": 1}), (bob, "d8-d1", {"d8": 0, "d1": 3}),
            (alice, "a1-b2", {"a1": 0, "b2": 3}), (bob, "c5-b4", {"c5": 0, "b4": 1})]
    for player, move, expected in line:
        play(player, move)
        for page in pages:
            for square, value in expected.items():
                expect_piece(page, square, value)

    for page, title in ((alice, "You win!"), (bob, "You lose"), (carol, "Bottom wins")):
        page.wait_for_selector("#end-screen:not([hidden])", timeout=SYNC_TIMEOUT_MS)
        assert page.locator("#end-title").inner_text() == title
        assert page.locator("#end-scores").inner_text() == "Bottom 1 — Top 0"

    # Rematch: sides swap on every screen, and the board is set up again.
    alice.get_by_role("button", name="Rematch").click()
    alice.wait_for_selector("#role:has-text('You play top')", timeout=SYNC_TIMEOUT_MS)
    bob.wait_for_selector("#role:has-text('You play bottom')", timeout=SYNC_TIMEOUT_MS)
    for page in pages:
        page.wait_for_selector("#end-screen[hidden]", state="attached", timeout=SYNC_TIMEOUT_MS)
        expect_piece(page, "b4", 1)
    for ctx in (alice_ctx, bob_ctx, carol_ctx):
        ctx.close()
