"""Blobs: the foreground's components (vision.segment) cut into parts that may each be
one piece (vision.parts, vision.touching), each with its colour read (vision.colour_reading).
Step 3 of vision.pipeline; read again where the pieces' shadows are taken out.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import cv2
import numpy as np

from calibration.colour import ColourModels
from vision import colour_reading, decide, segment_kernels
from vision import fit as fitting
from vision.blob_fits import fit_blobs
from vision.geometry import polygon_centroid
from vision.parts import Part, refine
from vision.rectify import TableGrid
from vision.segment import MIN_BLOB_MM2, Foreground, blob_mask

# A blob too big for any piece is a piece and its coloured shadow
# (BlobReader.without_own_shadows): the shadow is what is darker than the table and tinted
# under decide.TINT_SHARE of this percentile of the blob's tint (the median is the
# shadow's own when it is the bigger part). Such blobs are rare: over every set, 2 in N
# and 2 crowded (low lamps), 5 under a bare bulb, 4 beside the hands of the hand renders,
# none path traced. On N's (9708, 9724) the median frees 1 of their 3 pieces, the 90th
# percentile 2 (one a size small), the 75th 2 right (an upright under a flat's shadow
# stays lost); under the bulb 7 more pieces are found and 5 fewer false, most of the
# found ones misread (colour, size or pose: 11 more mistakes).
OWN_SHADOW_TINT_PERCENTILE = 75
# Crop margin around a blob, mm: room for the refined mask and any hypothesis's silhouette.
CROP_MARGIN_MM = 25.0
# Pixels eroded off a blob before measuring its colour: its rim mixes with the table.
COLOUR_ERODE_PX = 2
# A winner's own pixels (Blob.own_pixels) lie this many pixels inside its silhouette.
OWN_PIXELS_ERODE_PX = 2
_OWN_PIXELS_KERNEL = np.ones((2 * OWN_PIXELS_ERODE_PX + 1,) * 2, np.uint8)


@dataclass
class Blob:
    """One part of a foreground component that may be one piece, in its box on the grid."""

    part: Part             # mask, undecided pixels and outline in its box
    origin_px: np.ndarray  # crop's top-left grid pixel (col, row)
    area_mm2: float
    observed: np.ndarray   # median log colour relative to paper white (b, g, r)
    table: np.ndarray      # the bare table's, under the piece
    colour_pixels: np.ndarray   # bool, in the box: where its colour was read (its mask eroded)
    lum: np.ndarray        # darkening against the table (log), in the box
    chroma: np.ndarray     # hue change against the table (log), in the box
    hue: np.ndarray        # its hue part (two axes), in the box
    dark: bool = False     # a dark, hueless candidate: black plastic or a shadow
    beside: bool = False   # such a candidate beside a coloured blob it also covered (segment)
    colour_distances: np.ndarray | None = None   # of `observed` to each colour model
    label: int = 0         # its component's in the foreground (vision.segment.Foreground.labels)
    by_hand: bool = False  # its component is part of a hand's (vision.hands.hand_labels)
    neighbours: np.ndarray | None = None   # bool, in the box: other coloured components' pixels
    whole: np.ndarray | None = None        # the whole blob's colour reading: (observed, table)
    whole_distances: np.ndarray | None = None   # its distances to each colour model, before any rule

    @cached_property
    def centre_px(self) -> np.ndarray:
        """Its centroid (grid pixels): its convex outline's, worked out once (the shadow
        rules ask ~30 times a frame for ~15 blobs)."""
        return polygon_centroid(self.part.outline) + self.origin_px

    @cached_property
    def shadow(self) -> np.ndarray:
        """bool, in the box: darker than the table and paler than the piece
        (decide.tinted_shadow): worked out when asked (only a blob with a smaller rival
        is; making it for every blob cost ~0.25 ms a frame)."""
        return decide.tinted_shadow(self.lum, self.chroma, self.colour_pixels)

    def own_pixels(self, fit: fitting.Fit, fg: Foreground, grid: TableGrid,
                   camera: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The picture's and the bare table's pixels (N×3 uint8, b, g, r) inside a fit's
        silhouette, OWN_PIXELS_ERODE_PX in from its edge (off its blurred rim and its
        shadow's), in this blob's box of `fg`."""
        shape = self.part.mask.shape
        inside = decide._model_mask(fit, shape, grid.corner_mm(self.origin_px), grid.res, camera)
        inside = cv2.erode(inside.astype(np.uint8), _OWN_PIXELS_KERNEL) > 0
        x, y = (int(v) for v in self.origin_px)
        crop = np.s_[y:y + shape[0], x:x + shape[1]]
        return fg.table[crop][inside], fg.background[crop][inside]


@dataclass(frozen=True)
class BlobReader:
    """Reads a frame's foreground into blobs."""

    grid: TableGrid
    models: ColourModels

    def read(self, fg: Foreground, labels: set[int] | None = None) -> list[Blob]:
        """The pieces' blobs in the foreground's components (only those whose label is in
        `labels`, if given), in the components' order, each with its component's label."""
        res, margin = self.grid.res, int(round(CROP_MARGIN_MM / self.grid.res))
        out, readings = [], []
        kernel = np.ones((2 * COLOUR_ERODE_PX + 1,) * 2, np.uint8)
        candidates = [(label, box, False, False) for label, box in fg.blobs] + \
            [(label, box, True, label in fg.beside) for label, box in fg.dark_blobs]
        coloured = np.zeros(int(fg.labels.max()) + 1, bool)
        coloured[[label for label, _ in fg.blobs]] = True
        for label, box, dark, beside in candidates:
            if labels is not None and label not in labels:
                continue
            weak, box = blob_mask(fg, label, box, margin)
            crop = np.s_[box[1]:box[1] + box[3], box[0]:box[0] + box[2]]
            around = fg.labels[crop]
            neighbours = coloured[around] & (around != label)
            hue = fg.hue[crop]
            chroma = np.empty(hue.shape[:2], np.float32)   # shared by the blob's parts, read only
            segment_kernels.hue_length(hue, chroma)
            for part in refine(fg, weak, box, chroma):
                area = np.count_nonzero(part.mask) * res * res
                if area < MIN_BLOB_MM2:
                    continue
                inner = cv2.erode(part.mask, kernel)
                sel = inner > 0 if np.count_nonzero(inner) >= 10 else part.mask > 0
                readings.append(colour_reading.readings(fg.table[crop], fg.background[crop], sel, fg.paper_log))
                out.append(Blob(part, np.array(box[:2]), area, readings[-1][0], readings[-1][1], sel,
                                fg.lum[crop], chroma, hue, dark, beside=beside, label=label,
                                by_hand=label in fg.hand, neighbours=neighbours))
        return self.with_best_readings(out, readings)

    def read_again(self, fg: Foreground, changed: set[int], found: list[Blob], fits: list[list[fitting.Fit]],
                   camera: np.ndarray) -> tuple[list[Blob], list[list[fitting.Fit]]]:
        """The blobs and their fits once the components `changed` have lost pixels: those
        components' blobs cut and fitted again, the others' kept, in the components' order."""
        fresh = self.read(fg, changed)
        fresh_fits = fit_blobs(fresh, self.grid, camera)
        order = {label: k for k, (label, _) in enumerate(fg.blobs + fg.dark_blobs)}
        kept = [(b, f) for b, f in zip(found, fits) if b.label not in changed]
        merged = sorted(kept + list(zip(fresh, fresh_fits)), key=lambda bf: order[bf[0].label])   # stable
        return [b for b, _ in merged], [f for _, f in merged]

    def without_own_shadows(self, fg: Foreground, found: list[Blob], fits: list[list[fitting.Fit]],
                            camera: np.ndarray) -> tuple[list[Blob], list[list[fitting.Fit]]]:
        """The blobs and fits once each blob too big for any piece (none fitted: vision.fit
        AREA_FACTOR) has lost its tinted shadow (decide.tinted_shadow, against the tint of
        its most tinted part, OWN_SHADOW_TINT_PERCENTILE) and been read again. Under a low
        lamp a piece's coloured shadow can be bigger than the piece, and the two one blob
        too big to fit; the shadow readings (vision.light) cannot take out the shadow of a
        piece not read."""
        unfit = [b for b, f in zip(found, fits) if not f and not b.dark and not b.by_hand]
        if not unfit:
            return found, fits
        pixels = np.zeros(fg.labels.shape, bool)
        for b in unfit:
            h, w = b.part.mask.shape
            x, y = (int(v) for v in b.origin_px)
            shadow = decide.tinted_shadow(b.lum, b.chroma, b.colour_pixels, OWN_SHADOW_TINT_PERCENTILE)
            pixels[y:y + h, x:x + w] |= shadow & (b.part.mask > 0)
        changed = fg.take_out(pixels)
        return self.read_again(fg, changed, found, fits, camera) if changed else (found, fits)

    def with_best_readings(self, blobs: list[Blob], readings: list[np.ndarray]) -> list[Blob]:
        """The blobs, each given (in place) the colour reading that colour_reading.best_readings
        picks and that reading's distances to the colour models."""
        if not blobs:
            return blobs
        r = np.array(readings)                       # blobs × readings × (observed, table) × 3
        best, d, whole = colour_reading.best_readings(self.models, r, np.array([b.dark for b in blobs]))
        for i, b in enumerate(blobs):   # set, not dataclasses.replace: copying a 12-field blob is ~40× dearer (~2 µs)
            b.observed, b.table, b.colour_distances = r[i, best[i], 0], r[i, best[i], 1], d[i, best[i]]
            b.whole, b.whole_distances = r[i, 1], whole[i]
        return blobs
