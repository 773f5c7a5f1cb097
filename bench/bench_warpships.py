"""WarpShips referee speed (goals: beam <= 1 ms, move <= 5 ms on a 36-ship table) and
accuracy of the beam's contact distance against an independent shapely ray."""

import math
import random
import statistics
import time

import shapely

from domain import Piece, TableState
from referee.warpships import ContradictionError, advise, candidate_moves, rule_beam, rule_move, setup_table
from referee.warpships.table import _ship, _table

COLOURS = ("red", "yellow", "green", "blue")
SIZES = ("small", "medium", "large")
PITCH_MM = 80.0  # a 6 x 6 grid: crowded, every beam has several ships to consider


def table36(seed: int) -> TableState:
    rng = random.Random(seed)
    pieces = []
    for i in range(36):
        x, y = 100 + PITCH_MM * (i % 6), 100 + PITCH_MM * (i // 6)
        col, size = rng.choice(COLOURS), rng.choice(SIZES)
        if i % 3:  # a flat ship centred on its grid point
            h = rng.uniform(0, 360)
            nose = (x + 23 * math.cos(math.radians(h)), y + 23 * math.sin(math.radians(h)))
            pieces.append(Piece.flat_from_nose(f"p{i}", col, size, nose, h))
        else:
            pieces.append(Piece.upright(f"p{i}", col, size, (x, y), rng.uniform(0, 90)))
    return TableState(tuple(pieces))


def median_ms(fn, items, cold: bool) -> float:
    times = []
    for it in items:
        if cold:  # as with fresh detector states: no footprint or table cached
            _table.cache_clear()
            _ship.cache_clear()
        t = time.perf_counter()
        fn(it)
        times.append((time.perf_counter() - t) * 1000)
    return statistics.median(times)


NOISE_MM, NOISE_DEG = 0.7, 0.5  # detector-like error on every piece, 1 sigma
CALL_UNCERTAINTY_MM = 1.0


def noisy(state: TableState, rng: random.Random) -> TableState:
    out = []
    for p in state.pieces:
        dx, dy = rng.gauss(0, NOISE_MM), rng.gauss(0, NOISE_MM)
        if p.pose.value == "upright":
            out.append(p.moved(center=(p.center[0] + dx, p.center[1] + dy)))
        else:
            out.append(Piece.flat(p.id, p.color, p.size, (p.tail[0] + dx, p.tail[1] + dy),
                                  p.heading + rng.gauss(0, NOISE_DEG)))
    return TableState(tuple(out), state.coins, state.warp_diameter)


def noisy_calls(moves) -> str:
    """Rulings on noisy copies of both states against the ruling on the exact states:
    agree, too close to call, wrong (the noise flipped a ruling it called sure), refused."""
    rng = random.Random(1)
    tally = {"agree": 0, "too close to call": 0, "wrong": 0, "refused": 0}
    for before, after in moves:
        truth = rule_move(before, after).legal
        try:
            r = rule_move(noisy(before, rng), noisy(after, rng), uncertainty_mm=CALL_UNCERTAINTY_MM)
        except ContradictionError:  # noise pushed two touching pieces into each other
            tally["refused"] += 1
            continue
        key = "too close to call" if r.too_close_to_call else ("agree" if r.legal == truth else "wrong")
        tally[key] += 1
    return ", ".join(f"{k} {v}" for k, v in tally.items())


PUSH_MM = 5.0


def pushed(moves):
    """The moves with the landed ship slid PUSH_MM straight away from the warp."""
    out = []
    for before, after in moves:
        landed = next(p for p in after.pieces if before.pieces and p not in before.pieces
                      and p.pose.value == "flat")
        d = landed.direction
        out.append((before, after.with_piece(Piece.flat(landed.id, landed.color, landed.size,
                                                        (landed.tail[0] + PUSH_MM * d[0],
                                                         landed.tail[1] + PUSH_MM * d[1]),
                                                        landed.heading))))
    return out


def shapely_distance(state: TableState, sid: str) -> float | None:
    f = state.piece(sid)
    end = (f.nose[0] + 5000 * f.direction[0], f.nose[1] + 5000 * f.direction[1])
    ray = shapely.LineString([f.nose, end])
    ds = [shapely.Point(f.nose).distance(ray.intersection(shapely.Polygon(p.footprint())))
          for p in state.pieces if p.id != sid and ray.intersects(shapely.Polygon(p.footprint()))]
    return min(ds) if ds else None


def main() -> None:
    states = [table36(s) for s in range(5)]
    shots = [(st, p.id) for st in states for p in st.pieces if p.pose.value == "flat"]
    for cold in (True, False):
        ms = median_ms(lambda sp: rule_beam(*sp), shots, cold)
        print(f"beam ruling, 36 ships, {'cold (state checked)' if cold else 'warm (table cached)'}: "
              f"median {ms:.3f} ms over {len(shots)} shots (goal <= 1 ms)")

    moves = []
    for st in states:
        cands = [c for c, _ in candidate_moves(st)]
        moves += [(st, c.after) for c in random.Random(0).sample(cands, min(40, len(cands)))]
    for cold in (True, False):
        ms = median_ms(lambda ba: rule_move(*ba), moves, cold)
        print(f"move ruling, 36 ships, {'cold (both states checked)' if cold else 'warm'}: "
              f"median {ms:.3f} ms over {len(moves)} moves (goal <= 5 ms)")
    legal = sum(rule_move(*ba).legal for ba in moves)
    print(f"generated moves ruled legal: {legal}/{len(moves)}")
    print(f"the same moves with noise ({NOISE_MM} mm, {NOISE_DEG} deg per piece) ruled with "
          f"--uncertainty {CALL_UNCERTAINTY_MM}: {noisy_calls(moves)}")
    print(f"... with the landed ship {PUSH_MM} mm further out (legal or not, as the exact "
          f"states say: the warp may turn round the nose or slide along the edge): {noisy_calls(pushed(moves))}")

    errs = []
    for st, sid in shots:
        r, d = rule_beam(st, sid), shapely_distance(st, sid)
        if d is not None and r.distance is not None:
            errs.append(abs(r.distance - d))
    print(f"beam contact distance vs shapely ray: max error {max(errs):.2e} mm over {len(errs)} hits "
          "(goal <= 0.6 mm)")

    st = setup_table(seed=1)
    t = time.perf_counter()
    n = sum(1 for _ in candidate_moves(st))
    t1 = time.perf_counter()
    advise(st, top=5)
    t2 = time.perf_counter()
    print(f"advisor on the 12-nest set-up: {n} legal candidate moves generated in {t1 - t:.2f} s, "
          f"ranked with exact odds in {t2 - t1:.2f} s")


if __name__ == "__main__":
    main()
