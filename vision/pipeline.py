"""Frames to table states: `Detector(layout).detect(image_bgr) -> Detection`.

Steps (each timed in `Detection.timings_ms`):
1. register — the markers give the camera pose (calibration.registration); a previous
   registration can be passed in to skip this on video.
2. segment — the frame is warped onto a 1 mm grid of the table plane (vision.rectify);
   its log ratio against the bare table gives blobs by hue change, darkness beyond
   shadows and brightness; touching pieces are split and each piece's edge found (vision.segment, vision.parts).
3. fit — every plausible 3-D model (upright/flat × small/medium/large, coins) is fitted
   to each blob's outline with the camera's perspective and the piece's height
   (vision.fit).
4. decide — the best model of each blob by the physical checks of vision.decide, its
   colour against the colour models (calibration.colour), shadows of pieces dropped,
   flat pieces' poses refit with the camera's side open (vision.heading), ids given in
   reading order.
5. shadows — the main lamp from the shade beside the pieces read (vision.light); their
   predicted shadows are taken out of the foreground and the blobs that lost pixels are
   cut, fitted and decided again, with the lamp's shadow direction (SHADOW_READINGS
   times); a piece read in the others' shadows that looks like them there and has weak
   edges goes with them (SHADOW_LIKE_EDGES).
See docs/detection.md.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from typing import Any, NamedTuple, Sequence

import cv2
import numpy as np

from calibration import development, view_transforms, white_balance
from calibration.camera import Intrinsics
from calibration.colour import TRANSLUCENT, ColourModels
from calibration.markers import MarkerLayout
from domain import Coin, Color, Piece, TableState
from vision import coins as coin_rules
from vision import decide, edge_steps, edges, shadows
from vision import fit as fitting
from vision import hands, light, memory
from vision.blob_fits import fit_blobs, refine_flats
from vision.blobs import Blob, BlobReader
from vision.colour_reading import NEAR_CALL
from vision.faint_faces import faint_faces_decide, pale_flat_decide
from vision.confidence import ConfidenceModel
from vision.geometry import COIN, FLAT, piece_params, to_piece
from vision.light import Lamp
from vision.rectify import Rectifier, TableGrid
from vision.pictures import BadImageError, check_colour, check_image
from vision.piece_colour import black_or_blue, blue_rise, by_pose, green_on_felt
from vision.places import one_per_place, place_colour
from vision.segment import PIECE_MIN_MM2, BackgroundFiller, Foreground, foreground
from vision.sheets import table_mask
from vision.threads import one_opencv_thread

# How much costlier the runner-up (another pose or size) must be for full confidence.
COST_GAP_CONFIDENT = 0.5
# A piece that looks like other pieces' shadows where it lies (vision.light.shadow_like)
# is taken out with them unless its pyramid's edges say it is one: an edge score (the
# mean step along its model's edges, vision.edges) of SHADOW_LIKE_EDGES or more. The
# five false pieces it took out scored 0.07-0.12; a green upright on felt in a
# neighbour's shadow, 0.18, is kept (at 0.2 it is lost); at 0.13 one false piece stays,
# 0.17 reads as 0.15.
SHADOW_LIKE_EDGES = 0.15
# How many times the pieces' predicted shadows are taken out of the picture and it is
# read again (vision.light): a piece read wrong before, read right once its shadow is
# gone, casts the shadow to take out next. Mistakes over our sets and both path-traced
# wall models: 298 read once, 272 with one reading without shadows, 253 with two, 257
# and 252 with three and four (250 with two since the later readings decide with the
# lamp's shadow direction); each reading ~16 ms a frame.
SHADOW_READINGS = 2
# A piece read from a hand's blobs (vision.hands) is reported only with at least this
# confidence: the hand's fingers and palm read as pieces, and a piece it touches shares a
# blob with it. On the 15 hand renders (the `hands` set), found / false: 90.3 / 38.4 %
# with every such piece reported, 87.6 / 22.8 at 0.8, 85.7 / 11.8 at 0.9, 84.3 / 8.0
# at 0.95 (size and pose a little worse), 80.6 / 7.9 with none.
HAND_KEEP_CONF = 0.9


@dataclass
class PieceFit:
    """What the detector decided about one blob (for drawing and diagnostics)."""

    id: str
    colour: str
    fit: fitting.Fit
    colour_margin: float
    confidence: float
    pose_margin: float = 0.0   # cost (mm) by which the runner-up of another size or pose lost
    reading: tuple[np.ndarray, np.ndarray] | None = None   # a piece's colour reading: (observed, table)


@dataclass
class Detection:
    state: TableState
    registration: Any
    timings_ms: dict[str, float]
    fits: list[PieceFit] = field(default_factory=list)
    grid: TableGrid | None = None
    layout: MarkerLayout | None = None
    lamp: Lamp | None = None   # the main lamp, found from the pieces' shadows (vision.light)
    hand: bool = False         # a hand or an arm over the table (vision.hands)


class Detector:
    """Finds every pyramid and coin in pictures of one table; reusable across frames."""

    def __init__(self, layout: MarkerLayout, intrinsics: Intrinsics | None = None,
                 colours_path: str | None = None, models: ColourModels | None = None):
        self.layout, self.intrinsics = layout, intrinsics
        self.models = models or ColourModels.load(colours_path)
        self._hued = np.array([m.kind == TRANSLUCENT and m.name != Color.CLEAR.value for m in self.models.models])
        self.confidence = ConfidenceModel.load()
        self.grid = TableGrid.around(layout)
        self._rectifier: Rectifier | None = None
        self._usable: np.ndarray | None = None
        self._view_edge: np.ndarray | None = None      # the cells at the view's edge (vision.hands)
        self._table_px: np.ndarray | None = None       # the usable cells (bool; _usable > 0)
        self._sheets: np.ndarray | None = None         # and the marker sheets' cells, seen
        memory.keep_freed_heap()   # frames of large temporary arrays: reuse their pages

    # -- steps -----------------------------------------------------------------------
    def register(self, image: np.ndarray):
        """The camera pose from the markers in this picture."""
        from calibration.registration import register
        return register(image, self.layout, self._intrinsics_for(image))

    def _intrinsics_for(self, image: np.ndarray) -> Intrinsics | None:
        """The given lens, rescaled if the picture was resized with the same aspect ratio."""
        intr = self.intrinsics
        h, w = image.shape[:2]
        if intr is None or (intr.width, intr.height) == (w, h):
            return intr
        if abs(intr.width * h - intr.height * w) > max(w, h):
            raise BadImageError(f"the camera file describes {intr.width}×{intr.height} pictures; "
                                f"this one is {w}×{h}")
        return intr.scaled_to(w, h)

    def _rectifier_for(self, view) -> Rectifier:
        if self._rectifier is None or self._rectifier.view is not view:
            self._rectifier = Rectifier(view, self.grid)
            self._usable = None   # the table left around the sheets: from its first picture
        return self._rectifier

    def segment(self, image: np.ndarray, registration) -> Foreground:
        rect = self._rectifier_for(registration.view)
        table = rect.warp(image)
        paper = registration.paper_white_bgr
        if registration.view_transform is not None:   # a renderer's view transform undone
            table, paper = view_transforms.views()[registration.view_transform].developed(table, paper)
        elif registration.ink_black_bgr is not None:   # a flattened development's contrasts restored
            gamma = development.contrast_gamma(registration.ink_black_bgr, paper)
            if gamma != 1.0:
                table = cv2.LUT(table, development.restore_contrast(gamma, paper))
        balanced = white_balance.balance(paper) if table.ndim == 3 else None
        if balanced is not None:   # a colour cast taken out (calibration.white_balance.CAST_TOLERANCE)
            table = cv2.LUT(table, balanced[0])
            paper = balanced[1]
        if self._usable is None:
            visible = rect.visible()
            outside_view = visible == 0
            self._view_edge = hands.view_edge(outside_view)
            self._usable = table_mask(self.grid, self.layout, visible, table, paper)
            self._table_px = self._usable > 0
            self._table_px.flags.writeable = False   # shared by the frames of this pose
            self._sheets = ~self._table_px & ~outside_view   # the markers' paper, seen
            self._filler = BackgroundFiller(self._usable, self.grid)
        fg = foreground(table, self._usable, self._filler, paper)
        fg.hand = hands.hand_labels(fg, self.grid.res, self._view_edge, self._sheets)
        return fg

    def blob_reader(self) -> BlobReader:
        """Reads the foregrounds `segment` makes into blobs."""
        return BlobReader(self.grid, self.models)

    def detect(self, image_bgr: np.ndarray, registration=None, palette: Sequence[str] | None = None) -> Detection:
        """Everything on the table in one frame. Pass the previous frame's registration to
        reuse its camera pose (a fixed camera on video), and the colours the game in play
        uses as `palette` (others then need a clear reading: OFF_PALETTE_PRIOR)."""
        image = check_image(image_bgr)
        prior = self.models.palette_prior(palette)
        t = [time.perf_counter()]
        reg = registration or self.register(image)
        check_colour(image)   # after the markers: a blank picture's first fault is their absence
        t.append(time.perf_counter())
        fg = self.segment(image, reg)
        t.append(time.perf_counter())
        with one_opencv_thread:
            reader = self.blob_reader()
            found = reader.read(fg)
            camera = np.asarray(reg.view.position, float)
            fits = fit_blobs(found, self.grid, camera)
            found, fits = reader.without_own_shadows(fg, found, fits, camera)
            t.append(time.perf_counter())
            emap = edges.edge_map(fg.table, self.grid, [])   # one a picture, filled box by box as the readings ask
            memo: dict = {}   # each blob's own decisions, one a picture
            state, piece_fits = self._state(found, fits, camera, fg, prior, emap=emap, memo=memo)
            t.append(time.perf_counter())
            lamp, state, piece_fits = self._without_shadows(fg, reader, found, fits, state, piece_fits, camera, prior,
                                                            emap, memo)
            if state.coins:   # coins in play: those the segmentation missed, by their rims
                state, piece_fits = self._with_more_coins(fg, state, piece_fits, emap, camera)
        t.append(time.perf_counter())
        names = ("register", "segment", "fit", "decide", "shadows")
        timings = {n: (b - a) * 1000 for n, a, b in zip(names, t, t[1:])}
        timings["total"] = (t[-1] - t[0]) * 1000
        return Detection(state, reg, timings, piece_fits, self.grid, self.layout, lamp, bool(fg.hand))

    def _without_shadows(self, fg: Foreground, reader: BlobReader, found: list[Blob], fits: list[list[fitting.Fit]],
                         state: TableState, piece_fits: list[PieceFit], camera: np.ndarray, prior: np.ndarray,
                         emap: edges.EdgeMap, memo: dict) -> tuple[Lamp | None, TableState, list[PieceFit]]:
        """The main lamp, found from the shade beside the pieces read (`state`), and the
        reading once their shadows are taken out of the foreground `fg` (in place) and the
        blobs that lost pixels read again, with the lamp's shadow direction,
        SHADOW_READINGS times (vision.light); pieces read in other pieces' shadows that look
        like those shadows there and have weak edges (SHADOW_LIKE_EDGES) are not kept from
        the take-out. Also under a hand: with its fingers no longer
        read as pieces (HAND_KEEP_CONF) the lamp found from the rest helps (on the 15 hand
        renders size 92.5 → 95.2 %, pose 96.3 → 97.8 %, false 12.6 → 11.8 %, found
        86.2 → 85.7 % against not looking for it)."""
        seen = light.outlines(state.pieces, self.grid, camera)
        body = light.bodies(seen, state.coins, self.grid)
        usable = self._table_px
        lamp = light.find_lamp(state.pieces, body, fg.lum, usable, self.grid)
        for reading in range(SHADOW_READINGS if lamp is not None else 0):
            if reading:
                seen = light.outlines(state.pieces, self.grid, camera)
                body = light.bodies(seen, state.coins, self.grid)
            casts = light.predicted_shadows(state.pieces, seen, lamp, fg.hue, self.grid)
            weak = self._weakly_edged(state, emap, camera)
            ghosts = light.shadow_like(casts, seen, weak, body, fg.lum, fg.hue, usable, self.grid) if weak else set()
            if ghosts:   # pieces read in other pieces' shadows, which look like them: not kept from the take-out
                body = light.bodies([px for k, px in enumerate(seen) if k not in ghosts], state.coins, self.grid)
            changed = fg.take_out(light.cast_shadows(casts, body, fg.lum, fg.hue, usable))
            if not changed:
                break
            found, fits = reader.read_again(fg, changed, found, fits, camera)
            state, piece_fits = self._state(found, fits, camera, fg, prior, lamp.shadow_direction, emap,
                                            memo)
        return lamp, state, piece_fits

    @staticmethod
    def _weakly_edged(state: TableState, emap: edges.EdgeMap, camera: np.ndarray) -> list[int]:
        """The pieces of `state` whose pyramid's edges score under SHADOW_LIKE_EDGES."""
        if not state.pieces:
            return []
        kinds, params = zip(*(piece_params(p) for p in state.pieces))
        score = edges.scores(emap, kinds, [p.size for p in state.pieces], np.array(params), camera)
        return [k for k, v in enumerate(score) if v < SHADOW_LIKE_EDGES]

    def _with_more_coins(self, fg: Foreground, state: TableState, piece_fits: list[PieceFit], emap: edges.EdgeMap,
                         camera: np.ndarray) -> tuple[TableState, list[PieceFit]]:
        """The state with the coins found by their rims alone (vision.coins.more_coins)."""
        coins, fits = list(state.coins), list(piece_fits)
        for fit, gap in coin_rules.more_coins(state, fg.table, fg.background, fg.paper_log, self._table_px, emap,
                                              self.grid):
            coin, piece_fit = _coin(f"c{len(coins) + 1}", fit, gap, camera)
            coins.append(coin)
            fits.append(piece_fit)
        return replace(state, coins=tuple(coins)), fits

    def _checked(self, b: Blob, options: list[fitting.Fit], camera: np.ndarray,
                 direction: np.ndarray | None) -> tuple[Blob, fitting.Fit, float] | None:
        """A blob's winning fit by the checks that look at it alone (vision.decide,
        vision.coins, vision.shadows), with how clearly it won (the gap); None if no fit
        covers it well enough (decide.IOU_MIN)."""
        options.sort(key=decide.cost)
        best = decide.not_explaining_shadow(options, b, self.grid, camera, direction)
        best = coin_rules.kind_decide(best, options, b)
        best = coin_rules.lies_flat_decide(best, options, b, self.grid, direction)
        best = shadows.stands_decide(best, options, b, self.grid, direction)
        best = shadows.shadow_side_decide(best, options, b, self.grid, camera, direction)
        best = decide.faces_decide(best, options, b, self.grid, camera)
        best = decide.dark_faces_decide(best, options, b, self.grid, camera)
        if best.iou < decide.IOU_MIN:
            return None
        rival = next((decide.cost(f) for f in options[1:] if (f.hypothesis.kind, f.hypothesis.size)
                      != (best.hypothesis.kind, best.hypothesis.size)), decide.cost(best) + COST_GAP_CONFIDENT)
        gap = rival - decide.cost(best)
        if best.hypothesis.kind == COIN:   # the other metal is a rival too
            gap = min(gap, coin_rules.metal_margin(best, options, b))
        return b, best, gap

    def _state(self, found: list[Blob], fits: list[list[fitting.Fit]], camera: np.ndarray,
               fg: Foreground, prior: np.ndarray,
               direction: np.ndarray | None = None, emap: edges.EdgeMap | None = None,
               memo: dict | None = None) -> tuple[TableState, list[PieceFit]]:
        """The pieces and coins the fits explain in the foreground `fg` (read, not changed);
        `prior`: what the colours not in play add to the colour distances; `direction`:
        the shadows' (a unit vector), if known (else the shade around the blobs gives it,
        shadows.picture_direction); `emap`: the picture's edges worked out so far, which
        this reading adds to and reuses; `memo`: each blob's own decisions so far (its
        checks and its edge steps, which look at that blob alone), by the shadow direction
        they were made under, which a later reading of the picture that keeps the blob
        takes again."""
        pieces, coins, decided = [], [], []
        chosen, chosen_options = [], []
        if direction is None:
            direction = shadows.picture_direction(found, fg.lum, self.grid.res)
        memo = {} if memo is None else memo
        under = b"" if direction is None else direction.tobytes()
        for b, options in zip(found, fits):
            if not options:
                continue
            key = ("checks", id(b), under)
            if key not in memo:   # (the blob is kept with its decision, so its id is not reused)
                memo[key] = (b, self._checked(b, options, camera, direction))
            if memo[key][1] is not None:
                chosen.append(memo[key][1])
                chosen_options.append(options)
        # each blob's box has blobs.CROP_MARGIN_MM to spare around it: room for every hypothesis
        boxes = [(*(int(v) for v in b.origin_px), b.part.mask.shape[1], b.part.mask.shape[0]) for b, _, _ in chosen]
        emap = edges.edge_map(fg.table, self.grid, boxes, emap)
        keys = [("steps", id(b), id(best), under) for b, best, _ in chosen]
        todo = [k for k, key in enumerate(keys) if key not in memo]
        stepped_all = edge_steps.steps_decide([chosen[k] for k in todo], [chosen_options[k] for k in todo],
                                              emap, camera, COST_GAP_CONFIDENT, direction)
        for k, stepped in zip(todo, stepped_all):
            memo[keys[k]] = (chosen[k], stepped)
        chosen = [memo[key][1] for key in keys]
        chosen = [(b, pale_flat_decide(faint_faces_decide(best, b, self.grid, camera, emap), options, b, self.grid,
                                       camera), gap) for (b, best, gap), options in zip(chosen, chosen_options)]
        rims = [("rim", id(b), id(best)) for b, best, _ in chosen]   # each blob's winner's rim, once
        for key, c in zip(rims, chosen):
            if key not in memo:
                memo[key] = (c, coin_rules.rim_decide(c, emap, self.grid))
        chosen = [memo[key][1] for key in rims]
        edgeless = edges.edgeless(chosen, emap, camera, PIECE_MIN_MM2)
        chosen = [c for k, c in enumerate(chosen) if k not in edgeless]
        chosen = shadows.without_shadows(chosen, camera, edges.ridged_dark(chosen, emap, camera), self.grid, direction)
        chosen = shadows.without_cast_shadows(
            chosen, self.grid, camera, direction,
            lambda rows, chosen=chosen: edges.ridged(chosen, rows, emap, camera, edges.CAST_SHADOW_EDGES))
        chosen = refine_flats(chosen, self.grid, camera, direction)
        chosen = edges.with_edges(chosen, emap, camera)
        # reading order (top to bottom, then left to right) gives stable ids
        chosen.sort(key=lambda c: (round(float(c[1].params[1]) / 20), float(c[1].params[0])))
        names, plain, margins, weighed = [], [], [], []
        if chosen:
            distances = np.array([c[0].colour_distances for c in chosen])
            plain = self.models.nearest(distances)[0]   # what the blob looks like, game or not
            weighed = distances + prior
            names, margins = self.models.nearest(weighed)
        placed: list[_Placed] = []
        for (b, best, gap), name, looks, margin, row in zip(chosen, names, plain, margins, weighed):
            h = best.hypothesis
            if h.kind == COIN:
                coin, piece_fit = _coin(f"c{len(coins) + 1}", best, gap, camera)
                coins.append(coin)
                decided.append(piece_fit)
                continue
            if b.dark and looks == "clear":
                if not green_on_felt(self.models.names, b.colour_distances, b.table, prior):
                    continue   # a dark, hueless blob that looks like table through clear plastic is table
                name, margin = "green", NEAR_CALL
            name, margin = by_pose(self.models.names, name, margin, h.kind, b.whole, b.colour_distances, prior,
                                   b.whole_distances)
            piece = to_piece("", name, h.kind, h.size, best.params, self._confidence(best, gap, margin))  # type: ignore[arg-type]
            if b.by_hand and piece.confidence < HAND_KEEP_CONF:
                continue   # most likely a finger: a piece the hand touches is reported only if clear
            placed.append(_Placed(piece, best, float(margin), gap, (b.observed, b.table), row, b))
        for k, others in sorted(one_per_place([p.piece for p in placed]).items()):
            piece, best, margin, gap, reading, _, blob = placed[k]
            readings = [placed[j] for j in (k, *others)]
            by = place_colour([r.distances for r in readings], [r.margin for r in readings],
                              self._hued) if others else None
            if by is not None:   # the colour of another reading of its place (places.place_colour)
                margin, reading = readings[by].margin, readings[by].reading
                piece = replace(piece, color=readings[by].piece.color, confidence=self._confidence(best, gap, margin))
            if piece.color is Color.BLACK:   # told once its place is kept (black yields a place: vision.places)
                name, margin = black_or_blue(self.models.names, "black", margin, piece.pose.value,
                                             blue_rise(*blob.own_pixels(best, fg, self.grid, camera)), prior)
                if name != "black":
                    piece = replace(piece, color=Color(name), confidence=self._confidence(best, gap, margin))
            pid = f"p{len(pieces) + 1}"
            pieces.append(replace(piece, id=pid))
            decided.append(PieceFit(pid, piece.color.value, best, margin, piece.confidence, gap, reading))
        return TableState(tuple(pieces), tuple(coins)), decided

    def _confidence(self, best: fitting.Fit, gap: float, colour_margin: float) -> float:
        """A piece's confidence from its outline's cover, its pose gap and its colour margin."""
        return round(self.confidence.probability(best.iou, gap, float(colour_margin), best.hypothesis.kind == FLAT), 3)


class _Placed(NamedTuple):
    """A piece read from one blob, before one piece is kept a place (vision.places)."""

    piece: Piece
    fit: fitting.Fit
    margin: float                             # its colour margin (ColourModels.nearest)
    gap: float                                # its pose gap
    reading: tuple[np.ndarray, np.ndarray]    # its colour reading: (observed, table)
    distances: np.ndarray                     # its colour distances, the palette's prior added
    blob: Blob                                # the blob it was read from


def _coin(cid: str, fit: fitting.Fit, gap: float, camera: np.ndarray) -> tuple[Coin, PieceFit]:
    """A coin fit as reported: where it lies (vision.coins.on_table) and its confidence,
    the weaker of its outline's cover and its metal's margin (too few coins are rendered
    to fit a confidence model)."""
    conf = min(float(np.clip((fit.iou - decide.IOU_MIN) / (0.9 - decide.IOU_MIN), 0, 1)),
               float(np.clip(gap / COST_GAP_CONFIDENT, 0, 1)))
    kind = fit.hypothesis.coin
    return Coin(cid, kind, coin_rules.on_table(fit.params, kind, camera), conf), \
        PieceFit(cid, kind.value, fit, 0.0, conf, gap)  # type: ignore[arg-type, union-attr]
