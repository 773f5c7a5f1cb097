"""Shots, chain reactions, the FAQ case, exact odds, colonies, the end, records."""

import json
import random
from fractions import Fraction

import pytest

from domain import Piece, TableState
from referee.geometry import add, unit
from referee.warpships import GameError, WarpShipsGame, advise, resolve_shot, setup_table, shot_odds
from referee.warpships.colony import complete, population_divided
from referee.warpships.odds import RollError, roller
from referee.warpships.placement import FLUSH_TOLERANCE_MM as TOL
from referee.warpships.setup import GAP_MAX_MM, GAP_MIN_MM, min_gap


def shoot(state, rolls):
    return resolve_shot(state, "a", roller(rolls))


# A (red large) points +x at B (blue small, flying, pointing +y) which points at C (green medium).
A = Piece.flat_from_nose("a", "red", "large", (0.0, 0.0), 0.0)
B = Piece.flat("b", "blue", "small", (60.0, -8.0), 90.0)
C = Piece.upright("c", "green", "medium", (60.0 + 0.0, 120.0))
CHAIN = TableState((A, B, C))


def test_miss_ends_the_shot():
    shot = shoot(CHAIN, ["M"])
    assert shot.teleported == () and len(shot.steps) == 1


def test_bonus_takes_both_and_the_chain_goes_on():
    shot = shoot(CHAIN, ["S+L", "M"])
    assert shot.teleported == ("b", "a", "c")
    assert [s.bonus for s in shot.steps] == [True, False]


def test_chain_stops_on_a_failed_roll():
    shot = shoot(CHAIN, ["S", "L"])
    assert shot.teleported == ("b",)


def test_chain_odds_exact():
    # first roll: S or S+M (1/3) -> B only, then chain at medium C: 1/2 -> +1
    #             S+L (1/6) -> B and A (bonus), then chain: 1/2 -> +1
    dist = shot_odds(CHAIN, "a").distribution
    assert dist == {0: Fraction(1, 2), 1: Fraction(1, 6), 2: Fraction(1, 6) + Fraction(1, 12),
                    3: Fraction(1, 12)}
    assert sum(dist.values()) == 1


def test_chain_obeys_the_colour_rule_per_pair():
    same = TableState((A, B, C.moved(color=B.color)))
    assert shoot(same, ["S"]).teleported == ("b",)  # B will not fire at another blue ship


# FAQ: the target points straight back at the active ship.
def faq_state():
    a = Piece.flat_from_nose("a", "red", "large", (0.0, 0.0), 0.0)
    b = Piece.flat_from_nose("b", "blue", "small", (80.0, 0.0), 180.0)  # nose 80 mm ahead, facing back
    return TableState((a, b))


def test_faq_success_without_bonus_rolls_again_with_the_active_ship_as_target():
    st = faq_state()
    assert shoot(st, ["S", "L"]).teleported == ("b", "a")
    assert shoot(st, ["S", "M"]).teleported == ("b",)


def test_faq_bonus_first_takes_both_with_no_second_roll():
    shot = shoot(faq_state(), ["S+L"])
    assert shot.teleported == ("b", "a") and len(shot.steps) == 1


def test_faq_odds_exact():
    dist = shot_odds(faq_state(), "a").distribution
    assert dist == {0: Fraction(1, 2), 1: Fraction(1, 6), 2: Fraction(1, 3)}


def test_bad_faces_and_missing_rolls_are_clear_errors():
    with pytest.raises(RollError, match="not a Pyramid Die face"):
        shoot(CHAIN, ["X"])
    with pytest.raises(RollError, match="needs roll number 2"):
        shoot(CHAIN, ["S"])


def test_win_conditions_and_population_divided():
    trio = [("red", "small"), ("red", "medium"), ("red", "large")]
    assert complete(trio + [("blue", s) for _, s in trio]) == "twin cities"
    assert complete([(c, "small") for c in ("red", "yellow", "green", "blue")] * 2) == "diverse community"
    assert complete(trio + [("blue", "small")] * 5) is None
    # 3 players, 2 blues left on the table and each player short of everything
    colonies = {"a": [("red", "small")] * 5, "b": [("green", "large")] * 5, "c": [("yellow", "small")]}
    assert population_divided(colonies, [("blue", "small"), ("blue", "medium")])
    assert not population_divided(colonies, [("blue", s) for s in ("small", "medium", "large")] * 3
                                  + [("red", "small")] * 3)


def test_setup_is_twelve_nests_spaced_four_to_five_inches():
    st = setup_table(seed=11)
    assert len(st.pieces) == 12
    assert sorted(p.color.value for p in st.pieces) == sorted(["red", "yellow", "green", "blue"] * 3)
    assert all(len(p.stack) == 3 for p in st.pieces)
    assert GAP_MIN_MM <= min_gap(st) <= GAP_MAX_MM
    assert setup_table(seed=11) == st and setup_table(seed=12) != st


def launch(game, nest_index, out_deg):
    n = game.table.pieces[nest_index]
    out = n.rotation + out_deg
    tail = add(n.center, unit(out), n.size.base / 2 + game.table.warp_diameter)
    left = n.moved(size=n.stack[1], stack=n.stack[1:])
    return game.table.with_piece(left).with_piece(Piece.flat(f"{n.id}.1", n.color, n.size, tail, out))


def test_illegal_move_and_wrong_roll_count_leave_the_game_unchanged():
    game = WarpShipsGame.new(["ann", "bob"], seed=5)
    n = game.table.pieces[0]
    cheat = game.table.with_piece(n.moved(size=n.stack[1], stack=n.stack[1:])).with_piece(
        Piece.flat("x", n.color, n.size, add(n.center, unit(n.rotation + 180), 300.0), n.rotation + 180))
    with pytest.raises(GameError, match="illegal launch"):
        game.apply(cheat, rolls=[])
    with pytest.raises(GameError, match="rolls given"):
        game.apply(launch(game, 0, 180), rolls=["S"])
    assert game.to_move == "ann" and game.history == ()


def test_a_too_close_to_call_move_stands():
    game = WarpShipsGame.new(["ann", "bob"], seed=5)
    n = game.table.pieces[0]
    after = launch(game, 0, 180)
    late = after.piece(f"{n.id}.1")
    shift = add((0.0, 0.0), unit(late.heading), TOL + 1.0)  # landed 1 mm further off than flush allows
    after = after.with_piece(late.moved(tail=add(late.tail, shift), nose=add(late.nose, shift)))
    with pytest.raises(GameError, match="illegal"):
        game.apply(after, rolls=[])
    played = game.apply(after, rolls=[], uncertainty_mm=2.0)
    assert played.history[-1].ruling.call == "too close to call"
    again = WarpShipsGame.replay(played.to_record())
    assert again.to_move == "bob"


def test_players_must_be_two_to_four():
    with pytest.raises(GameError):
        WarpShipsGame.new(["solo"])
    with pytest.raises(GameError):
        WarpShipsGame.new(list("abcde"))


def play(seed: int, turns: int) -> WarpShipsGame:
    """Three players follow the advisor; dice from a seeded RNG."""
    rng = random.Random(seed)
    game = WarpShipsGame.new(["ann", "bob", "cy"], seed=seed)
    for _ in range(turns):
        if game.over:
            break
        best = advise(game.table, top=1)
        game = game.apply(best[0].after if best else game.legal_actions()[0].after, rng=rng)
    return game


def test_a_played_game_saves_loads_and_replays_to_the_same_colonies(tmp_path):
    game = play(seed=3, turns=3)  # bob gains two by a chain reaction
    assert sum(len(game.colony(p)) for p in game.players) > 0
    path = tmp_path / "game.json"
    game.save(str(path))
    again = WarpShipsGame.load(str(path))
    assert again.colonies == game.colonies and again.table.to_dict() == game.table.to_dict()
    assert [t.notation() for t in again.history] == [t.notation() for t in game.history]
    record = json.loads(path.read_text())
    turn = next(t for t in record["turns"] if t["gained"])
    turn["gained"] = turn["gained"][1:]
    with pytest.raises(GameError, match="gains"):
        WarpShipsGame.replay(record)
    turn["rolls"] = []
    with pytest.raises(GameError, match="needs roll number 1"):
        WarpShipsGame.replay(record)
