"""The engine against a slow, separately written reference of the rules (coordinates and
plain loops, no ray tables, no undo stack), over random games with captures, merges,
no-undo bans and the clock, and by perft from mid-game positions."""

from __future__ import annotations

import random

from referee.martian_chess import Position

STEPS = {1: [(1, 1), (1, -1), (-1, 1), (-1, -1)],
         2: [(1, 0), (-1, 0), (0, 1), (0, -1)],
         3: [(1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (1, -1), (-1, 1), (-1, -1)]}
REACH = {1: 1, 2: 2, 3: 7}


def parse(text):
    fields = text.split()
    grid = {}
    for i, row in enumerate(fields[0].split("/")):
        for f, c in enumerate(row):
            grid[(f, 7 - i)] = ".123".index(c)
    last = None if fields[3] == "-" else fields[3]
    clock = int(fields[4][5:]) if len(fields) == 5 else None
    return grid, ("b", "t").index(fields[1]), last, clock


def name(f, r):
    return "abcd"[f] + str(r + 1)


def mine(r, side):
    return (r < 4) == (side == 0)


def reference_moves(grid, side, last, clock):
    def empty_half(s):
        return all(v == 0 for (f, r), v in grid.items() if mine(r, s))
    if clock == 0 or empty_half(0) or empty_half(1):
        return []
    have = {v for (f, r), v in grid.items() if mine(r, side)}
    moves = []
    for (f, r), piece in grid.items():
        if not piece or not mine(r, side):
            continue
        for df, dr in STEPS[piece]:
            for k in range(1, REACH[piece] + 1):
                t = (f + df * k, r + dr * k)
                if t not in grid:
                    break
                target = grid[t]
                ok = target == 0 or not mine(t[1], side) or \
                    (sorted((piece, target)) == [1, 2] and 3 not in have) or \
                    (piece == target == 1 and 2 not in have)
                text = f"{name(f, r)}-{name(*t)}"
                if ok and not (last and text == "-".join(reversed(last.split("-")))):
                    moves.append(text)
                if target:
                    break
    return sorted(moves)


def reference_perft(grid, side, last, clock, depth):
    moves = reference_moves(grid, side, last, clock)
    if depth == 1:
        return len(moves)
    total = 0
    for text in moves:
        a, b = text.split("-")
        fa, fb = ("abcd".index(a[0]), int(a[1]) - 1), ("abcd".index(b[0]), int(b[1]) - 1)
        g = dict(grid)
        capture = g[fb] and not mine(fb[1], side)
        g[fb] = g[fa] if capture else g[fa] + g[fb]
        g[fa] = 0
        crossed = mine(fa[1], side) != mine(fb[1], side)
        c = None if clock is None else (7 if capture else clock - 1)
        total += reference_perft(g, 1 - side, text if crossed else None, c, depth - 1)
    return total


def test_legal_moves_agree_with_the_reference_over_random_games():
    rng = random.Random(2024)
    checked = 0
    for _ in range(60):
        pos = Position.setup()
        while not pos.is_game_over():
            if pos.clock is None and rng.random() < 0.03:
                pos.call_clock()
            assert [str(m) for m in pos.legal_moves()] == reference_moves(*parse(pos.notation()))
            checked += 1
            pos.push(rng.choice(pos.legal_moves()))
        assert reference_moves(*parse(pos.notation())) == []
    assert checked > 1000


def test_perft_agrees_with_the_reference_from_mid_game_positions():
    rng = random.Random(7)
    for _ in range(6):
        pos = Position.setup()
        for _ in range(rng.randrange(4, 30)):
            if pos.is_game_over():
                break
            if pos.clock is None and rng.random() < 0.1:
                pos.call_clock()
            pos.push(rng.choice(pos.legal_moves()))
        assert pos.perft(3) == reference_perft(*parse(pos.notation()), 3), pos.notation()
    assert Position.setup().perft(4) == reference_perft(*parse(Position.setup().notation()), 4)
