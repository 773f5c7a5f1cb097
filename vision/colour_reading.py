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
    whole_d = d[:, 1].copy()                    # before any rule, for vision.piece_colour.by_pose
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
        change, over_felt = whole - table, red_poor(table)
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
            best, d = _read_as(best, d, green, over_felt & (read == yellow)
                               & blue_cut_short(change)
                               & (d[:, 1, green] - d[:, 1, yellow] <= BLUE_CUT_SPREAD))
        if "red" in names:
            red = names.index("red")
            # ... and red plastic lifts red well above green (RED_LIFTS_RED)
            best, d = _read_as(best, d, green, over_felt & (read == red)
                               & (change[:, 2] - change[:, 1] < RED_LIFTS_RED)
                               & (d[:, 1, green] - d[:, 1, red] <= RED_LIFT_SPREAD))
            # ... which no green plastic does in its most tinted quarter (QUARTER_LIFTS_RED)
            quarter = r[:, 0, 0] - r[:, 0, 1]
            read = d[np.arange(n), best].argmin(axis=1)
            best, d = _read_as(best, d, red, over_felt & (read == green)
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
            & red_poor(chosen[:, 1]) & (at[:, red] - at[:, black] <= BLACK_IS_NOT_RED)
        best, d = _read_as(best, d, red, redder, reading=best)
    change = chosen[:, 0] - chosen[:, 1]
    tint = np.linalg.norm(change - change.mean(axis=1, keepdims=True), axis=1)
    plain = tinted[d[rows, best].argmin(axis=1)] & (tint < HUELESS_TINT) & ~red_poor(chosen[:, 1])
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


def red_poor(table: np.ndarray) -> np.ndarray | bool:
    """Whether each table colour (b, g, r log, last axis) is red-poor, green felt's
    (RED_POOR_TABLE)."""
    return table[..., 2] <= RED_POOR_TABLE


def blue_cut_short(change: np.ndarray) -> np.ndarray | bool:
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
