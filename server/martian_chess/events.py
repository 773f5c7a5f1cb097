"""Live updates: a per-game version counter that server-sent-event streams wait on.

One process, many threads: a move bumps the game's version and wakes every stream of that
game; each stream then sends the new public state. A stream also wakes every
HEARTBEAT_S seconds to send a comment, so dead connections are noticed and closed.
"""

from __future__ import annotations

import threading
from typing import Callable, Iterator

# Seconds between keep-alive comments on an idle stream.
HEARTBEAT_S = 15.0


class Broker:
    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._versions: dict[str, int] = {}

    def publish(self, game_id: str, version: int) -> None:
        with self._cond:
            self._versions[game_id] = max(version, self._versions.get(game_id, -1))
            self._cond.notify_all()

    def wait(self, game_id: str, seen: int, timeout: float) -> int:
        """Block until the game's version passes `seen` (or timeout); the version known then."""
        with self._cond:
            self._cond.wait_for(lambda: self._versions.get(game_id, -1) > seen, timeout=timeout)
            return self._versions.get(game_id, -1)

    def stream(self, game_id: str, snapshot: Callable[[], tuple[int, str]]) -> Iterator[str]:
        """SSE text: the state now, then every newer state. `snapshot()` -> (version, JSON)."""
        seen, data = snapshot()
        yield f"data: {data}\n\n"
        while True:
            latest = self.wait(game_id, seen, HEARTBEAT_S)
            if latest <= seen:
                yield ": keep-alive\n\n"
                continue
            seen, data = snapshot()
            yield f"data: {data}\n\n"
