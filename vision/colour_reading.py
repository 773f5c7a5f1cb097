"""A blob's colour: two readings of it, and which one (and which colour) holds.

A blob is read twice (`readings`): the median of its pixels whose hue changes most
against the bare table, and of all its pixels. `best_readings` keeps, for each blob, the
reading some colour model explains best (calibration.colour), with rules for the cases
where that misleads: a lamp's glare on a flat's top face (read white), and dark green
or blue plastic that passes so little light it reads yellow or black.
"""

from __future__ import annotations

import numpy as np

from calibration.colour import OFF_PALETTE_PRIOR, TRANSLUCENT, ColourModels
from vision import reading_kernels
from vision.segment import LOG_LUT

# A blob's colour is measured on its pixels more saturated than this percentile.
SATURATED_PERCENTILE = 75
# A flat piece's top face can mirror a lamp over most of its blob, whose whole reading is
# then white. White plastic is tinted nowhere: when another reading of the blob (its most
# tinted quarter) is plainly a tinted translucent colour, within this many spreads of its
# model, the white is that plastic's glare (a path-traced red flat and a held-out blue
# one read white; no white piece of the ten-colour renders is lost, from 0.7 to 2.5
# alike). Clear plastic is not tinted: a white flat's quarter can read clear (9101).
GLARE_PLAIN = 1.0
# The warm mirror: green plastic passes almost no red; where a green piece lies on a
# red-poor table (felt, dark wood), its faces' mirror of the warm lamps is all the red
# the camera gets, and the pixels whose hue changes most are those that mirror most: its
# most-changed quarter reads yellow while the whole blob reads green. When the two readings are
# (yellow, green) in that order, the whole blob's holds. Path-traced (66 scenes): two
# green uprights mended, nothing lost; of our renders only a blob holding a yellow and a
# green piece changes (light cloth 9608, read as one large flat either way).
# Yellow plastic passes red at least as well as green (its dye cuts only blue), so seen
# through it a table's red never falls against its green; green plastic cuts red. A blob
# read yellow whose whole reading's red fell against its green (relative to the table
# beside it), and which green explains within this many spreads of yellow, is green: a
# path-traced green upright over wood passes so little light that it reads a dark, barely
# tinted olive, nearer yellow than green. Path-traced (66 scenes): 8 green pieces mended
# (7 uprights), nothing lost; on our renders (A, held out, N, crowded, hazy, light
# cloth, ten colours, filmic) no piece changes but a white flat already read yellow
# (9305). Their yellows whose red fell are 1.1 or more spreads nearer yellow than green:
# nothing is lost up to 1.0, five pieces at 1.2.
# Where green explains nearly as well (within RED_LEVEL_GAP spreads), red merely level
# with green (risen by at most RED_LEVEL, log: a reading's noise) is enough: yellow
# plastic lifts red above green, and where it hardly does (a pale yellow flat on cloth,
# held out 9620: 0.04) green explains it much worse (0.69 spreads).
# Path traced: two green large uprights over wood mended (9208, 9211: red risen 0.00 and
# 0.03, gaps 0.30 and 0.37; under a bare bulb and the sun as well); on our renders a
# glass-clear upright read yellow reads green instead (ten colours, 9101); nothing else
# changes (RED_LEVEL 0.05 for every gap up to 0.8 lost a yellow flat of held out 9620).
YELLOW_PASSES_RED = 0.8
RED_LEVEL = 0.05
RED_LEVEL_GAP = 0.5
# Black plastic is opaque and its own colour grey: what the camera sees of it is what
# its faces mirror, the room and, at steep faces, the table beside it, so it is never
# greener (log, green against the mean of blue and red) than that table by more than
# noise, unless the room it mirrors is cooler than a warm table: then its blue rises
# against the table more than its green (a path-traced black flat on wood, 9802: 0.11
# greener, 0.36 bluer). Light that came through green plastic is greener, and no bluer.
# A blob read black that is greener than the table beside it by GREENER_THAN_TABLE, whose
# green rose against the table more than its blue, and which green explains within
# BLACK_IS_NOT_GREEN spreads of black, is green. Measured over 161 black pieces
# (path-traced with thin and refracting walls and under AgX, our Rainbow with black and
# ten colours): those whose green rose more than their blue are at most 0.07 greener
# than their table; the path-traced green uprights read black are 0.19-0.40 greener with
# thin walls, 0.01-0.27 with refracting walls (26, 23 of them with green risen more).
# At 0.15 without the blue test: thin walls' 7 mended, none with refracting walls; at
# 0.09 with it: those 7 and 15 of the 26, no black piece lost, our renders unchanged.
GREENER_THAN_TABLE = 0.09
BLACK_IS_NOT_GREEN = 0.6
# Nor is black plastic's most tinted quarter much bluer (log, blue against the mean of
# green and red) than the table beside it: it mirrors the room, which is bluer than a warm
# table, by at most 0.56 over the 161 black pieces above (our Rainbow 9802, a flat on
# wood). Light that came through blue plastic is: path traced through refracting walls,
# blue uprights pass so little that their whole blob reads black, but their most tinted
# quarter is 0.24-1.39 bluer than the table (30 read black over all sets, 11 past 0.6).
# A blob read black whose most tinted quarter is BLUER_THAN_TABLE bluer than its table,
# and which blue explains there within BLACK_IS_NOT_BLUE spreads of black, is blue: at
# 0.65, 7 refracting-wall blue uprights mended, no black piece lost, and elsewhere only
# a path-traced purple read black reads blue (0.6 mends 9, 0.55 10, leaving less room
# above the black pieces).
BLUER_THAN_TABLE = 0.65
BLACK_IS_NOT_BLUE = 0.6
# Nor, over a red-poor table (green felt, RED_POOR_TABLE), is black plastic redder than
# grey: it mirrors the room and the felt, neither red. A red flat passes the felt's
# little red and cuts its green, which is what black shows there too, so on Cycles red
# flats over felt read black. A blob read black there whose reading's red excess (log,
# red against the mean of green and blue, relative to the paper) is REDDER_THAN_BLACK or
# more, and which red explains within BLACK_IS_NOT_RED spreads of black, is red. Black
# pieces over felt (our Rainbow with black, 25): 0.05 at most (over cloth 0.06, over wood,
# which they mirror, up to 0.96); Cycles' red flats read black 0.18 and 0.22 (9245,
# 9237), and 0.29 for 9256, seen only after the bound was set. From 0.08 to 0.16 alike:
# those three mended, nothing else changes on any set (accuracy sets, ten colours, the
# Xeno stash, our Rainbow with black, the bare bulb, the light cloth).
REDDER_THAN_BLACK = 0.12
BLACK_IS_NOT_RED = 0.6
# Over a red-poor table (its red at most RED_POOR_TABLE, log of the paper's: green felt,
# ~20 %), green plastic passes almost none of the little red there is, and what the
# camera gets in red is its faces' mirror of the room: green pieces there read red or
# yellow. Two tells, both measured in the whole blob's change against the table beside
# it: red plastic stops green and passes red, so over such a table it lifts red above
# green by RED_LIFTS_RED or more; yellow plastic stops blue and passes green, so it
# drops blue below green by BLUE_BELOW_GREEN or more. A blob read red or yellow that
# falls short, and which green explains within RED_LIFT_SPREAD or BLUE_CUT_SPREAD
# spreads of that colour, is green. Measured on felt over our renders (A, held out, N,
# crowded, glassy, light cloth; since the renderer's haze is absorbed) and 60 path-traced
# scenes: the 219 blobs read red lift red 0.80 or more if red plastic, 0.11-0.68 if
# green (10, green within 0.02-1.75 spreads, red ones 2.0 or more); of the 177 read
# yellow, the green ones' blue fell -0.20 to -0.30 below green (6, within 0.13-0.95
# spreads), yellow ones' -0.30 or more, and those past -0.35 (2) are 1.45 spreads or
# more nearer yellow. Over other tables neither tell separates.
# Path traced with refracting walls (bench/pbr, walls "thick": light bent and reflected
# inside the plastic as it is), red uprights over felt pass even less and lift red by
# only 0.54-0.72, but stay 1.58 spreads or more nearer red than green, where the green
# pieces read red are within 1.11 (on today's renders, ours and both path-traced wall
# models; the 1.75 above was measured before the renderer's haze was absorbed): the
# red tell holds only within RED_LIFT_SPREAD, between the two (at 2.0, 11 red uprights
# of 66 thick-walled scenes read green; at 1.35 none, and no other piece changes on
# any set).
# The other way round: through refracting walls a red upright over felt passes so little
# that its whole blob reads green (path-traced 9210, 9225: green 0.05 spread nearer, red
# lifted above green by only 0.54-0.64, as green pieces' mirrors lift it, up to 0.62).
# But its most tinted quarter lifts red by 0.96-1.02, where no green piece's does over
# such a table (at most 0.78, over ours, both path-traced wall models and AgX: 439
# green pieces on felt); red ones lift it there by 0.75 or more (411 red pieces on felt;
# 8 of them under 1.0), but for one flat whose blob holds hardly any of it. A blob read
# green over a red-poor table whose most tinted quarter lifts red above green by
# QUARTER_LIFTS_RED, and which red explains within QUARTER_LIFT_SPREAD spreads of green,
# is red: refracting walls' colour 95.5 -> 95.8 % (3 red uprights mended), every other
# set the same piece for piece but a black piece already read green that reads red;
# 0.8-0.95 the same.
RED_POOR_TABLE = -1.2
RED_LIFTS_RED, RED_LIFT_SPREAD = 0.74, 1.35
QUARTER_LIFTS_RED, QUARTER_LIFT_SPREAD = 0.87, 1.0
BLUE_BELOW_GREEN, BLUE_CUT_SPREAD = -0.35, 1.0
# That spread was measured on flats (ours: green flats read yellow up to 0.63). Uprights
# part sooner: our green uprights over felt that need the rule are within 0.43 (A 9210,
# N 9726), while Blender's Cycles' yellow uprights there, whose red falls with their
# green (no glow of their own), come within 0.40-0.96 and were read green (12 of 84
# scenes). Once the pose is known, an upright that yellow explains better than green by
# more than BLUE_CUT_UPRIGHT is yellow again (`by_pose`).
BLUE_CUT_UPRIGHT = 0.5
# Off a red-poor table the same holds for flats with room to spare, where
# YELLOW_PASSES_RED (measured on uprights, whose steep walls mirror the table beside
# them) does not: a flat's face lies over the table, and green plastic drops its red
# 0.30 log or more below its green (off-felt green flats: Cycles -0.33, Mitsuba's thin
# and refracting walls -0.49, ours -0.30, T 9005's large flat lit by a mirrored lamp,
# else -0.57), yellow plastic at most 0.25 (Cycles' -0.23, refracting walls' -0.25).
# Cycles' yellow flats, their red cut by the Principled BSDF's tint at each surface
# nearly as much as their green (-0.16 to -0.01), were read green there (9206, 9217,
# 9292, 9294, 9302, 9304 three times). A flat read green whose red fell less than
# GREEN_FLAT_CUTS_RED below its green (between those read green: -0.30 and -0.16), which
# yellow explains within YELLOW_PASSES_RED spreads of green (the whole blob, before any
# rule), is yellow (`by_pose`).
GREEN_FLAT_CUTS_RED = -0.23
# Once the piece's pose is known, the whole blob's change over a red-poor table says red
# or green by its lean, R + B - 2G (log): red plastic cuts green and blue alike and passes
# red, green plastic passes green. Uprights (the table seen through two steep walls and
# mirrored in them) lean less than flats (the table under one face, seen through it).
# Measured on felt over four renderers (ours; Mitsuba with thin and refracting walls;
# Blender's Cycles, 9200-9223): red uprights lean +0.99 / +0.75 / +0.38 / +0.25 or more,
# green ones +0.11 at most (thin walls); red flats +1.18 or more (Cycles), green flats
# +0.70 at most (refracting walls). Between the two bounds: RED_GREEN_LEAN. It decides a
# piece read red or green that the other explains within RED_GREEN_SPREAD spreads.
RED_GREEN_LEAN = {"upright": 0.18, "flat": 0.94}
RED_GREEN_SPREAD = 1.35
# A flat piece's faces lie at a slant to the camera, and through them a green piece can
# come out paler than on white paper, its blue nearer cyan's: where a renderer tints light
# at each surface whatever its path through the wall (Blender's Principled BSDF), and
# through refracting walls. A flat piece read cyan that green explains within
# CYAN_FLAT_CHARGE spreads is green. Measured (green's distance less cyan's, priors
# included): green flats read cyan, Cycles 9224-9235 +0.12 to +0.26, Mitsuba's refracting
# walls +0.04 to +0.30; cyan flats (ours, ten colours and the Xeno stash, 9300-9311)
# +0.72 or more. Uprights are left alone: cyan uprights come within +0.27.
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
# A dark candidate read clear is taken for table (a shadow, a dark streak of the table)
# but over green felt (a red-poor table, RED_POOR_TABLE), whose hue green plastic shares:
# there a dark green piece can change the felt by a near-plain darkening as well, and is
# green where green explains it within GREEN_SHARES_FELT spreads of clear. Blender's
# Cycles 9204: a green medium flat over teal felt, clear 0.68, green 0.73 spreads.
GREEN_SHARES_FELT = 0.1
# Such a blob is a near call: green is put nearer than the nearest colour by only this
# (spreads), so the piece's colour margin, and its confidence, stay low.
NEAR_CALL = 0.05
# Translucent plastic filters: in log units it changes the table's hue by its own, so a
# blob whose reading changes the table by a plain darkening or brightening (its hue
# change against the table, the length of the change less its grey part, under
# HUELESS_TINT) is no tinted plastic: it is a shadow or dark figure of the table, or clear,
# black or white plastic, and reads as the nearest of those in use, or clear if it is a
# dark candidate (a dark blob read clear is table). Only over green felt (a red-poor
# table, RED_POOR_TABLE) can green plastic, of the felt's own hue, change it that little. Measured (found pieces, both readings):
# tinted pieces off felt change the hue by 0.06 or more over ours, Mitsuba's two wall
# models and Cycles (1393, 898, 820, 724 pieces) but one refracting-wall blue upright over
# wood already read green (0.01, now black); green pieces over felt from 0.04; the false
# pieces read green over wood 0.014-0.028 (Cycles' wood figure, 9212 twice, 9231, 9248;
# ours 9620, a brightening, now read clear). From 0.035 to 0.045 alike.
HUELESS_TINT = 0.04
# A colour model whose appearance spans less than this (log, between its channels) is
# grey: clear plastic.
GREY_APPEARANCE = 0.1


def readings(picture: np.ndarray, table: np.ndarray, where: np.ndarray, paper_log: np.ndarray) -> np.ndarray:
    """Two readings of a blob's colour, each (observed, table) log colours against the
    white paper (`paper_log`): the median of its pixels (`where` in a box of the picture
    and of the bare table's estimate, uint8 BGR) whose hue differs most from the bare
    table's, and of all of them.

    Faces mirroring a lamp or a window are paler than the plastic, and the blurred rim
    mixes in the table (which may itself be more saturated than the piece: blue plastic
    over orange wood looks greyish), so the pixels where the plastic filters the table's
    light most carry its hue. But where the plastic lets almost none of a channel
    through (green over red-poor felt), the faces' mirror of the room is all of that
    channel, and the pixels with the most hue change are those that mirror most: a
    green upright's top quarter reads yellow, its whole reads green. Which reading holds
    is decided by the colour models (the one some plastic explains best). Compiled
    (vision.reading_kernels)."""
    return reading_kernels.readings(picture, table, where, LOG_LUT[0], paper_log, SATURATED_PERCENTILE)


def best_readings(models: ColourModels, r: np.ndarray,
                  dark: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For blobs' `r` (blobs × readings × (observed, table) × 3, from `readings`), the
    reading that holds for each blob, the readings' distances to the models (blobs ×
    readings × colours) and the whole blobs' before any rule (blobs × colours): the one
    some plastic explains best; but not white where another reading is plainly a tinted
    plastic (GLARE_PLAIN), the whole blob's green over its
    most tinted quarter's yellow (the warm mirror), and green, not yellow, where the
    blob's red fell against its green or stayed level with it (YELLOW_PASSES_RED,
    RED_LEVEL), nor red or yellow over a red-poor table where the plastic would have
    lifted red or dropped blue against green more (RED_LIFTS_RED, BLUE_BELOW_GREEN), nor
    green there where its most tinted quarter lifts red as only red plastic does
    (QUARTER_LIFTS_RED), nor black where it is greener than the table and its green rose
    more than its blue (BLACK_IS_NOT_GREEN), or where its most tinted quarter is plainly
    bluer than the table (BLACK_IS_NOT_BLUE), or where it is redder than grey over felt
    (BLACK_IS_NOT_RED); and no tinted plastic where the reading
    changes the table's hue hardly at all, off green felt (HUELESS_TINT): `dark` (per
    blob) marks the dark, hueless candidates, which may then read clear even where a
    calibration picture put clear out of play (so that they are taken for table)."""
    n, k = r.shape[:2]
    d = models.distances(r[:, :, 0].reshape(n * k, 3), r[:, :, 1].reshape(n * k, 3)).reshape(n, k, -1)
    whole_d = d[:, 1].copy()                    # before any rule, for `by_pose`
    explained = d.min(axis=2)                    # blobs × readings
    best = explained.argmin(axis=1)
    nearest = d.argmin(axis=2)                   # blobs × readings (the quarter, the whole)
    names = models.names
    tinted = np.array([m.kind == TRANSLUCENT and np.ptp(m.appearance) > GREY_APPEARANCE
                       for m in models.models])   # not clear plastic, tinted nowhere either
    if "white" in names:   # white, or a lamp's glare on another plastic?
        plain = tinted[nearest] & (explained < GLARE_PLAIN)
        glare = (nearest[np.arange(n), best] == names.index("white")) & plain.any(axis=1)
        best = np.where(glare, np.where(plain, explained, np.inf).argmin(axis=1), best)
    if "green" in names:
        green, read = names.index("green"), nearest[np.arange(n), best]
        whole, table = r[:, 1, 0], r[:, 1, 1]       # the whole blob's readings, b, g, r
        change, red_poor = whole - table, _red_poor(table)
        if "yellow" in names:
            yellow = names.index("yellow")
            # green's most tinted quarter mirrors the warm lamps (the warm mirror)
            best = np.where((nearest[:, 0] == yellow) & (nearest[:, 1] == green), 1, best)
            read = nearest[np.arange(n), best]
            # no yellow plastic lowers red against green, nor leaves it level (YELLOW_PASSES_RED,
            # RED_LEVEL)
            red_rose = change[:, 2] - change[:, 1]
            gap = d[:, 1, green] - d[:, 1, yellow]
            best, d = _read_as(best, d, green, (read == yellow)
                               & (((red_rose <= 0) & (gap <= YELLOW_PASSES_RED))
                                  | ((red_rose <= RED_LEVEL) & (gap <= RED_LEVEL_GAP))))
            # over a red-poor table, yellow plastic drops blue well below green (BLUE_BELOW_GREEN)
            best, d = _read_as(best, d, green, red_poor & (read == yellow)
                               & _blue_cut_short(change)
                               & (d[:, 1, green] - d[:, 1, yellow] <= BLUE_CUT_SPREAD))
        if "red" in names:
            red = names.index("red")
            # ... and red plastic lifts red well above green (RED_LIFTS_RED)
            best, d = _read_as(best, d, green, red_poor & (read == red)
                               & (change[:, 2] - change[:, 1] < RED_LIFTS_RED)
                               & (d[:, 1, green] - d[:, 1, red] <= RED_LIFT_SPREAD))
            # ... which no green plastic does in its most tinted quarter (QUARTER_LIFTS_RED)
            quarter = r[:, 0, 0] - r[:, 0, 1]
            read = d[np.arange(n), best].argmin(axis=1)
            best, d = _read_as(best, d, red, red_poor & (read == green)
                               & (quarter[:, 2] - quarter[:, 1] >= QUARTER_LIFTS_RED)
                               & (d[:, 1, red] - d[:, 1, green] <= QUARTER_LIFT_SPREAD))
        if "black" in names:
            black = names.index("black")
            # no black plastic is greener than the table its faces mirror (BLACK_IS_NOT_GREEN)
            greener = (_excess(whole, 1) - _excess(table, 1) >= GREENER_THAN_TABLE) \
                & (change[:, 1] > change[:, 0])
            best, d = _read_as(best, d, green, (read == black) & greener
                               & (d[:, 1, green] - d[:, 1, black] <= BLACK_IS_NOT_GREEN))
    if "black" in names and "blue" in names:
        black, blue = names.index("black"), names.index("blue")
        read = d[np.arange(n), best].argmin(axis=1)
        # no black plastic's most tinted quarter is plainly bluer than its table (BLACK_IS_NOT_BLUE)
        bluer = _excess(r[:, 0, 0], 0) - _excess(r[:, 0, 1], 0) >= BLUER_THAN_TABLE
        best, d = _read_as(best, d, blue, (read == black) & bluer
                           & (d[:, 0, blue] - d[:, 0, black] <= BLACK_IS_NOT_BLUE), reading=0)
    # the last two rules read each blob by the reading chosen for it (`best`), which
    # their near calls keep
    rows = np.arange(n)
    chosen = r[rows, best]                       # blobs × (observed, table) × 3
    if "black" in names and "red" in names:
        black, red = names.index("black"), names.index("red")
        # over felt, no black plastic is redder than grey (BLACK_IS_NOT_RED)
        at = d[rows, best]
        redder = (at.argmin(axis=1) == black) & (_excess(chosen[:, 0], 2) >= REDDER_THAN_BLACK) \
            & _red_poor(chosen[:, 1]) & (at[:, red] - at[:, black] <= BLACK_IS_NOT_RED)
        best, d = _read_as(best, d, red, redder, reading=best)
    change = chosen[:, 0] - chosen[:, 1]
    tint = np.linalg.norm(change - change.mean(axis=1, keepdims=True), axis=1)
    plain = tinted[d[rows, best].argmin(axis=1)] & (tint < HUELESS_TINT) & ~_red_poor(chosen[:, 1])
    if plain.any():
        # a plain change of the table is no tinted plastic, but for green over green felt
        # (HUELESS_TINT): the nearest untinted colour (clear, black, white) in use, or
        # clear for a dark candidate (table)
        in_use = ~tinted & (np.array([m.prior for m in models.models]) < OFF_PALETTE_PRIOR)
        allowed = np.tile(in_use, (n, 1))
        if dark is not None and "clear" in names:
            allowed[:, names.index("clear")] |= dark
        nearest_plain = np.where(allowed, d[rows, best], np.inf).argmin(axis=1)
        best, d = _read_as(best, d, nearest_plain, plain & allowed.any(axis=1), reading=best)
    return best, d, whole_d


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
    if "green" not in names or "clear" not in names or not _red_poor(table):
        return False
    green = names.index("green")
    return bool(prior[green] <= 0 and distances[green] - distances[names.index("clear")] <= GREEN_SHARES_FELT)


def _red_poor(table: np.ndarray) -> np.ndarray | bool:
    """Whether each table colour (b, g, r log, last axis) is red-poor, green felt's
    (RED_POOR_TABLE)."""
    return table[..., 2] <= RED_POOR_TABLE


def _blue_cut_short(change: np.ndarray) -> np.ndarray | bool:
    """Whether each change against the table (b, g, r log, last axis) dropped blue less
    below green than yellow plastic does over felt (BLUE_BELOW_GREEN)."""
    return change[..., 0] - change[..., 1] > BLUE_BELOW_GREEN


def _excess(bgr: np.ndarray, channel: int) -> np.ndarray:
    """How much more (log) of `channel` (0 blue, 1 green, 2 red) than the mean of the
    other two each colour has."""
    others = [c for c in range(3) if c != channel]
    return bgr[:, channel] - (bgr[:, others[0]] + bgr[:, others[1]]) / 2


def _read_as(best: np.ndarray, d: np.ndarray, colour: int | np.ndarray, is_it: np.ndarray,
             reading: int | np.ndarray = 1) -> tuple[np.ndarray, np.ndarray]:
    """`best` and `d` (blobs × readings × colours) with the blobs `is_it` read by their
    `reading` (1: the whole blob, 0: its most tinted quarter; or one per blob), in which
    `colour` (or one per blob) is made nearer than every other colour by only NEAR_CALL:
    a near call, said with a small colour margin."""
    if not is_it.any():
        return best, d
    rows = np.flatnonzero(is_it)
    at = np.broadcast_to(reading, best.shape)[rows]
    to = np.broadcast_to(colour, best.shape)[rows]
    d = d.copy()
    others = d[rows, at].copy()
    others[np.arange(len(rows)), to] = np.inf
    d[rows, at, to] = others.min(axis=1) - NEAR_CALL
    return np.where(is_it, reading, best), d


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
    if not _red_poor(table):
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
            and _red_poor(whole[1]) and whole[0][2] - whole[1][2] < PURPLE_LIFTS_RED \
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
    if whole is None or d is None or "yellow" not in names or _red_poor(whole[1]):
        return False
    change = whole[0] - whole[1]
    return bool(change[2] - change[1] > GREEN_FLAT_CUTS_RED
                and d[names.index("yellow")] - d[names.index("green")] <= YELLOW_PASSES_RED)


def _yellow_upright(names: list[str], whole: np.ndarray | None, d: np.ndarray | None) -> bool:
    """Is an upright read green over felt (its whole reading `whole`, at distances `d`
    to the models before any rule) one that yellow explains better than green by more
    than BLUE_CUT_UPRIGHT, its blue fallen short of BLUE_BELOW_GREEN (so `best_readings`
    turned it green)?"""
    if whole is None or d is None or "yellow" not in names or not _red_poor(whole[1]) \
            or not _blue_cut_short(whole[0] - whole[1]):
        return False
    yellow, green = names.index("yellow"), names.index("green")
    return bool(d.argmin() == yellow and d[green] - d[yellow] > BLUE_CUT_UPRIGHT)
