"""A piece's colour told again once its pose is known (`by_pose`) and once its fitted
silhouette is (`black_or_blue`), and a dark candidate read clear over green felt taken for
green (`green_on_felt`).

vision.colour_reading reads a blob's colour before anything says what the blob is; some
colours part only by the pose, as light crosses an upright's two steep walls and a flat's
one face differently: over felt red or green by the whole blob's lean, a flat read cyan
or purple that green or blue nearly explains, a green upright over felt that yellow
plainly explains, a green flat off felt whose red fell too little for green plastic.
Others part only on the piece's own pixels, off the shade and rim the blob holds: an
upright read black that is plainly bluer than its table is blue. A piece turned by a rule
is a near call (NEAR_CALL), and never into a colour out of play.
"""

from __future__ import annotations

import numpy as np

from vision.colour_reading import NEAR_CALL, YELLOW_PASSES_RED, blue_cut_short, red_poor
from vision.segment import LOG_LUT

# Over felt, a blob read yellow whose blue fell short of BLUE_BELOW_GREEN is green where
# green explains it within BLUE_CUT_SPREAD (vision.colour_reading). That spread was
# measured on flats (ours: green flats read yellow up to 0.63). Uprights part sooner:
# our green uprights over felt that need the rule are within 0.43 (A 9210, N 9726),
# while Blender's Cycles' yellow uprights there, whose red falls with their green (no
# glow of their own), come within 0.40-0.96 and were read green (12 of 84 scenes). Once
# the pose is known, an upright that yellow explains better than green by more than
# BLUE_CUT_UPRIGHT is yellow again (`by_pose`).
BLUE_CUT_UPRIGHT = 0.5
# Off a red-poor table, green plastic's cut of red tells it from yellow on flats with
# room to spare, where YELLOW_PASSES_RED (vision.colour_reading, measured on uprights,
# whose steep walls mirror the table beside them) does not: a flat's face lies over the
# table, and green plastic drops its red 0.30 log or more below its green (off-felt
# green flats: Cycles -0.33, Mitsuba's thin and refracting walls -0.49, ours -0.30,
# T 9005's large flat lit by a mirrored lamp, else -0.57), yellow plastic at most 0.25
# (Cycles' -0.23, refracting walls' -0.25). Cycles' yellow flats, their red cut by the
# Principled BSDF's tint at each surface nearly as much as their green (-0.16 to -0.01),
# were read green there (9206, 9217, 9292, 9294, 9302, 9304 three times). A flat read
# green whose red fell less than GREEN_FLAT_CUTS_RED below its green (between those read
# green: -0.30 and -0.16), which yellow explains within YELLOW_PASSES_RED spreads of
# green (the whole blob, before any rule), is yellow (`by_pose`).
GREEN_FLAT_CUTS_RED = -0.23
# Once the piece's pose is known, the whole blob's change over a red-poor table says red
# or green by its lean, R + B - 2G (log): red plastic cuts green and blue alike and
# passes red, green plastic passes green. Uprights (the table seen through two steep
# walls and mirrored in them) lean less than flats (the table under one face, seen
# through it). Measured on felt over four renderers (ours; Mitsuba with thin and
# refracting walls; Blender's Cycles, 9200-9223): red uprights lean +0.99 / +0.75 /
# +0.38 / +0.25 or more, green ones +0.11 at most (thin walls); red flats +1.18 or more
# (Cycles), green flats +0.70 at most (refracting walls). Between the two bounds:
# RED_GREEN_LEAN. It decides a piece read red or green that the other explains within
# RED_GREEN_SPREAD spreads.
RED_GREEN_LEAN = {"upright": 0.18, "flat": 0.94}
RED_GREEN_SPREAD = 1.35
# A flat piece's faces lie at a slant to the camera, and through them a green piece can
# come out paler than on white paper, its blue nearer cyan's: where a renderer tints
# light at each surface whatever its path through the wall (Blender's Principled BSDF),
# and through refracting walls. A flat piece read cyan that green explains within
# CYAN_FLAT_CHARGE spreads is green. Measured (green's distance less cyan's, priors
# included): green flats read cyan, Cycles 9224-9235 +0.12 to +0.26, Mitsuba's
# refracting walls +0.04 to +0.30; cyan flats (ours, ten colours and the Xeno stash,
# 9300-9311) +0.72 or more. Uprights are left alone: cyan uprights come within +0.27.
CYAN_FLAT_CHARGE = 0.45
# So can a blue flat come out nearer purple, paler in red: over green felt (a red-poor
# table, RED_POOR_TABLE), blue plastic cuts the felt's little red and only its faces'
# mirror of the room brings some back, up to about the felt's own level; purple plastic
# passes red and scatters the lamps' red back, lifting it above the felt's. A flat read
# purple over such a table whose whole blob's red rose against the table by less than
# PURPLE_LIFTS_RED (log), and which blue explains within PURPLE_FLAT_CHARGE spreads, is
# blue. Measured on felt (red change; blue's distance less purple's): blue flats read
# purple, Cycles 9224-9243 -0.09 to -0.37 (0.23-0.64), Mitsuba's refracting walls -0.42
# and -0.54 (0.48, 0.75); purple flats (ours, ten colours and the Xeno stash) +0.27 or
# more (0.78-1.60). Uprights are left alone: ours lift red by -0.16 to +0.68.
PURPLE_LIFTS_RED = 0.15
PURPLE_FLAT_CHARGE = 1.0
# Black plastic is opaque: inside its silhouette (off its rim and shadow) the camera sees
# what its faces mirror, the room and the table beside it, so an upright's own pixels are
# no bluer (log, blue less red, medians) than the bare table under them but for the
# room's coolness. Over four renderers' tables (ours, Mitsuba's two wall models, Cycles)
# the black uprights read black rise 0.19 at most (Cycles 9815, over wood under a cool
# room; 0.11 over cloth and felt). Light that came through blue plastic is bluer:
# Cycles' blue uprights over wood read black rise 0.27-0.47 (6 of them: 9215, 9238
# twice, 9250, 9267, 9294) or 0.00-0.18 (3). An upright read black whose own pixels
# rise BLACK_UPRIGHT_BLUE_RISE or more is blue: those 6 and two of Mitsuba's
# refracting-wall blue uprights (9235) mended, and no piece read right changes over the
# accuracy sets, ten colours, the Xeno stash, the bare bulb, the light cloth and the
# Rainbow stash with black, ours and Cycles' (whose black pieces read blue rise up to
# 0.36: the whole blob's reading had turned them already).
BLACK_UPRIGHT_BLUE_RISE = 0.25
# A dark candidate read clear is taken for table (a shadow, a dark streak of the table)
# but over green felt (a red-poor table, RED_POOR_TABLE), whose hue green plastic
# shares: there a dark green piece can change the felt by a near-plain darkening as
# well, and is green where green explains it within GREEN_SHARES_FELT spreads of clear.
# Blender's Cycles 9204: a green medium flat over teal felt, clear 0.68, green 0.73
# spreads.
GREEN_SHARES_FELT = 0.1


def green_on_felt(names: list[str], distances: np.ndarray, table: np.ndarray, prior: np.ndarray) -> bool:
    """Is a dark candidate read clear (its colour `distances`, one per model of `names`,
    over `table`, b, g, r log) rather green plastic over green felt than table
    (GREEN_SHARES_FELT)? Never where green is out of play (`prior`).

    >>> names = ["green", "clear"]
    >>> green_on_felt(names, np.array([0.73, 0.68]), np.array([-1.16, -0.98, -1.48]), np.zeros(2))
    True
    >>> green_on_felt(names, np.array([0.73, 0.68]), np.array([-0.6, -0.5, -0.4]), np.zeros(2))
    False
    """
    if "green" not in names or "clear" not in names or not red_poor(table):
        return False
    green = names.index("green")
    return bool(prior[green] <= 0 and distances[green] - distances[names.index("clear")] <= GREEN_SHARES_FELT)


def red_or_green(whole: np.ndarray, pose: str) -> str | None:
    """Over a red-poor table (RED_POOR_TABLE), "red" or "green" by the lean of a piece's
    whole-blob change (`whole`: its (observed, table) reading) for its `pose`
    (RED_GREEN_LEAN); None over other tables.

    >>> felt = np.array([-0.95, -0.55, -1.45])            # b, g, r
    >>> red_or_green(np.array([felt + [-0.6, -0.6, -0.3], felt]), "upright")
    'red'
    >>> red_or_green(np.array([felt + [-0.6, -0.6, -0.3], felt]), "flat")
    'green'
    """
    observed, table = whole
    if not red_poor(table):
        return None
    change = observed - table
    return "red" if change[2] + change[0] - 2 * change[1] >= RED_GREEN_LEAN[pose] else "green"


def by_pose(names: list[str], name: str, margin: float, pose: str, whole: np.ndarray | None,
            distances: np.ndarray, prior: np.ndarray, whole_distances: np.ndarray | None = None) -> tuple[str, float]:
    """A piece's colour `name` and margin told again once its `pose` is known, from its
    blob's whole reading (`whole`, and its distances to the models before any rule,
    `whole_distances`) and colour `distances` (one per model of `names`):
    an upright read green over felt that yellow plainly explains, yellow
    (BLUE_CUT_UPRIGHT); a flat read green off felt whose red fell too little for green
    plastic, yellow (GREEN_FLAT_CUTS_RED); red or green, where the other explains nearly
    as well (RED_GREEN_SPREAD), by the lean (`red_or_green`); a flat read cyan that green
    explains within CYAN_FLAT_CHARGE, green; a flat read purple over felt that did not
    lift its red (PURPLE_LIFTS_RED), blue. A turned piece is a near call; never into a
    colour out of play (`prior`, the palette's)."""
    def at(colour: str) -> float:
        return distances[names.index(colour)]

    told = None
    if name == "green" and pose == "upright" and _yellow_upright(names, whole, whole_distances):
        told = "yellow"
    elif name == "green" and pose == "flat" and _yellow_flat(names, whole, whole_distances):
        told = "yellow"
    elif name in ("red", "green") and whole is not None and pose in RED_GREEN_LEAN \
            and {"red", "green"} <= set(names) and abs(at("red") - at("green")) <= RED_GREEN_SPREAD:
        told = red_or_green(whole, pose)
    elif name == "cyan" and pose == "flat" and "green" in names and at("green") - at("cyan") < CYAN_FLAT_CHARGE:
        told = "green"
    elif name == "purple" and pose == "flat" and whole is not None and "blue" in names \
            and red_poor(whole[1]) and whole[0][2] - whole[1][2] < PURPLE_LIFTS_RED \
            and at("blue") - at("purple") < PURPLE_FLAT_CHARGE:
        told = "blue"
    if told in (None, name) or prior[names.index(told)] > 0:
        return name, margin
    return told, NEAR_CALL


def _yellow_flat(names: list[str], whole: np.ndarray | None, d: np.ndarray | None) -> bool:
    """Is a flat read green off a red-poor table (its whole reading `whole`, at distances
    `d` to the models before any rule) one whose red fell too little against its green
    for green plastic (GREEN_FLAT_CUTS_RED), and which yellow nearly explains
    (YELLOW_PASSES_RED)?"""
    if whole is None or d is None or "yellow" not in names or red_poor(whole[1]):
        return False
    change = whole[0] - whole[1]
    return bool(change[2] - change[1] > GREEN_FLAT_CUTS_RED
                and d[names.index("yellow")] - d[names.index("green")] <= YELLOW_PASSES_RED)


def _yellow_upright(names: list[str], whole: np.ndarray | None, d: np.ndarray | None) -> bool:
    """Is an upright read green over felt (its whole reading `whole`, at distances `d`
    to the models before any rule) one that yellow explains better than green by more
    than BLUE_CUT_UPRIGHT, its blue fallen short of BLUE_BELOW_GREEN (so `best_readings`
    turned it green)?"""
    if whole is None or d is None or "yellow" not in names or not red_poor(whole[1]) \
            or not blue_cut_short(whole[0] - whole[1]):
        return False
    yellow, green = names.index("yellow"), names.index("green")
    return bool(d.argmin() == yellow and d[green] - d[yellow] > BLUE_CUT_UPRIGHT)


def blue_rise(seen: np.ndarray, bare: np.ndarray) -> float:
    """How much bluer than the bare table under them some pixels are (log, the median of
    blue less red, against the table's): `seen` and `bare`, N×3 uint8 (b, g, r); 0 for
    no pixels (a silhouette too small to have any inside its rim).

    >>> wood = np.array([[60, 110, 170]] * 4, np.uint8)
    >>> mirrored, through_blue = wood // 3, np.array([[40, 30, 45]] * 4, np.uint8)
    >>> round(blue_rise(mirrored, wood), 1), round(blue_rise(through_blue, wood), 1), blue_rise(wood[:0], wood[:0])
    (0.1, 0.9, 0.0)
    """
    if not len(seen):
        return 0.0

    def b_less_r(px: np.ndarray) -> float:
        logs = LOG_LUT[0, px]
        return float(np.median(logs[:, 0] - logs[:, 2]))
    return b_less_r(seen) - b_less_r(bare)


def black_or_blue(names: list[str], name: str, margin: float, pose: str, rise: float,
                  prior: np.ndarray) -> tuple[str, float]:
    """An upright read black whose own pixels are bluer than its table by
    BLACK_UPRIGHT_BLUE_RISE (`rise`, `blue_rise`) is blue, a near call; never where blue
    is out of play (`prior`)."""
    if name != "black" or pose != "upright" or "blue" not in names or prior[names.index("blue")] > 0 \
            or rise < BLACK_UPRIGHT_BLUE_RISE:
        return name, margin
    return "blue", NEAR_CALL
