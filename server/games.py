"""The games the dashboard can run and what each needs from the live pipeline."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from domain import Color, InputError


class UnknownGame(InputError):
    """A game name the dashboard does not know."""


class PlayerError(InputError):
    """A malformed list of players."""


@dataclass(frozen=True)
class GameKind:
    name: str
    title: str
    min_players: int
    max_players: int
    referee: Callable[..., Any]  # (shadow, options) -> an object with on_change(before, after)


def _warpships_referee(shadow: bool, options: dict[str, Any]) -> Any:
    from vision.live.turns import WarpShipsReferee
    return WarpShipsReferee.real(shadow=shadow)


def _martian_chess_referee(shadow: bool, options: dict[str, Any]) -> Any:
    """options["MARTIAN_CHESS_FORWARD"] = (url, token): also post every confirmed table to an
    online game's physical-board endpoint (/martian-chess/api/games/ID/table) as its camera."""
    from vision.live.martian_board import MartianChessReferee, online_forwarder
    link = options.get("MARTIAN_CHESS_FORWARD")
    return MartianChessReferee(shadow=shadow, forward=online_forwarder(*link) if link else None)


GAMES = {
    "warpships": GameKind("warpships", "WarpShips", 2, 4, _warpships_referee),
    "martian-chess": GameKind("martian-chess", "Martian Chess (physical board)", 2, 2, _martian_chess_referee),
}
DEFAULT_GAME = "warpships"
DEFAULT_PLAYER_COLOURS = ("red", "blue", "green", "yellow")


def game_kind(name: str) -> GameKind:
    try:
        return GAMES[name]
    except KeyError:
        raise UnknownGame(f"unknown game {name!r} (known: {', '.join(GAMES)})") from None


def check_players(kind: GameKind, players: Any) -> list[dict[str, str]]:
    """Players as [{"name", "color"}]; default two players; refuse a malformed list in one line."""
    if players is None or players == []:
        players = [{"name": f"Player {i + 1}", "color": c} for i, c in enumerate(DEFAULT_PLAYER_COLOURS[:2])]
    if not isinstance(players, list):
        raise PlayerError("players must be a list of {name, color}")
    if not kind.min_players <= len(players) <= kind.max_players:
        raise PlayerError(f"{kind.title} takes {kind.min_players}-{kind.max_players} players, got {len(players)}")
    out = []
    for i, p in enumerate(players):
        name = str(p.get("name", "")).strip() if isinstance(p, dict) else ""
        colour = str(p.get("color", "")).strip().lower() if isinstance(p, dict) else ""
        if not name or len(name) > 40:
            raise PlayerError(f"player {i + 1} needs a name of 1-40 characters")
        if colour not in {c.value for c in Color}:
            raise PlayerError(f"player {name}: unknown colour {colour!r}")
        out.append({"name": name, "color": colour})
    if len({p["name"] for p in out}) != len(out):
        raise PlayerError("two players share a name")
    return out
