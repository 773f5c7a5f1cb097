"""Foreground on the rectified table: what differs from the bare table, and how.

Each pixel is compared with a robust estimate of the bare table under the same light
(a coarse median, which pieces cover only sparsely). The comparison is the per-channel
log ratio L = log(pixel / table):

* translucent plastic is a colour filter over the table, so L is its transmission: a
  strong hue shift whatever the table's colour (and independent of white balance, which
  scales pixel and table alike);
* a shadow dims every channel alike: L is grey and only moderately negative;
* black plastic is darker than any shadow; white plastic and highlights are brighter
  than the table.

So a pixel is foreground when L has chroma, or is darker than the darkest plausible
shadow, or brighter than the table by more than the light varies.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from calibration.development import LEVEL_OFFSET
from vision import segment_kernels as kernels
from vision.mask_kernels import components, label_counts
from vision.rectify import TableGrid
from vision.touching import MIN_BLOB_MM2

# Background: median over a window about 4× the largest piece (~45 mm across on the
# table), computed on a 4 mm grid so it is cheap; pieces cover far less than half of it.
BG_CELL_MM = 4.0
BG_WINDOW_MM = 130.0
# Chroma (length of the hue part of L, natural-log units) that counts as "tinted": 0.18
# is a ~20 % change of one channel against the others, well above table texture and
# sensor noise after smoothing, well below any coloured plastic (≥ 0.6).
CHROMA_MIN = 0.18
# The hue threshold is at least this multiple of the table's median hue difference
# (texture and sensor noise after the 3×3 smoothing), over the whole table and over the
# table around each pixel (the background's window, BackgroundFiller.texture_scale): a
# corner of felt that the lamps leave dim is noisier in log units than the lit middle
# (our felt lit from one side: median hue change 0.09 in the dim half, 0.036 lit, 0.05
# over the table), and its texture made pieces there (16 false ones on seed 9604 alone).
NOISE_FACTOR = 4.0
# Darkest plausible shadow: a lamp blocked leaves the ambient light and the other lamps,
# rarely less than 30 % of the lit table (log 0.3 ≈ −1.2). Black plastic is ~5-10 %.
SHADOW_LOG_MIN = -1.2
# Darker than this (log, ~82 %) over DARK_SMOOTH_PX² and on its own, a grey blob is a
# candidate piece: black plastic, or coloured plastic over a table of its own hue (green
# on green felt darkens the felt like a shadow). A shadow always touches the piece that
# casts it, so the candidates touching a piece are dropped (vision.pipeline). The
# smoothing averages the table's texture down (smoothed, table texture stays above about
# -0.12 on the darkest 1 % of wood and felt).
DARK_CANDIDATE_LOG = -0.2
DARK_SMOOTH_PX = 5
BLACK_OPEN_PX = 5
# The opening also shaves a turned square's corners (a piece turned 30-45°: ~2 px a
# corner, the fit then prefers a size smaller or a shifted square); the candidates are
# grown back by this many pixels within their dark pixels. The corners return, and a
# plank's seam the opening cut off comes back no longer than this.
DARK_REGROW_PX = 2
# A dark blob sharing more than this share of its pixels with a coloured blob is that
# piece, unless what lies beyond the coloured blobs is itself a piece's footprint
# (PIECE_MIN_MM2): a dark piece beside a coloured one (path-traced 9201: a grey-looking
# green upright against a red flat), or a hollow piece's dark rim around its lit core.
# Such a candidate is marked `beside`: on its neighbour's shadow side it is that
# neighbour's shadow (vision.shadows.without_shadows).
BLACK_OVERLAP_MAX = 0.3
# A dark blob with more than this share of its pixels at a marker sheet's edge is the
# sheet's (its shadow, or print at the cut); a black piece set down beside a sheet only
# touches it with its rim (all ten colours, seed 9305: a black large upright 12 mm from a
# sheet was missed).
AT_SHEET_SHARE = 0.1
# Smallest footprint of a whole piece, mm²: a small upright's base (14.3 mm square) seen
# from above. A coloured blob smaller than this is part of a piece, not all of it.
PIECE_MIN_MM2 = 200.0
# Such a blob and the dark candidate it touches are one piece only if the blob is at
# least this share of both: the faces towards the lamp are about half a pyramid's
# footprint; a dark rest much bigger than them is the piece's shadow as well.
FACES_SHARE_MIN = 0.4
# ... unless the dark candidate surrounds it: this share of the ring just outside it is
# dark candidate (a piece's apex or lit faces inside its darkened rest).
ENCLOSED_RING = 0.8
# Together they must cover this share of PIECE_MIN_MM2: a small upright's shaded faces
# are only partly darker than DARK_CANDIDATE_LOG (path-traced ones: 170-190 mm² with
# the lit faces), the rest passes for shadow.
WHOLE_SHARE_MIN = 0.8
# Brighter than the table by more than its own brightness texture: white plastic,
# specular highlights, light piped through coloured plastic (green on green felt). The
# threshold is NOISE_FACTOR times the table's robust brightness spread, kept between
# BRIGHT_LOG_FLOOR (~8 %, an even cloth) and BRIGHT_LOG_MIN (~25 %, a blotchy felt or
# a grainy wood, where only strong brightening is not the table).
BRIGHT_LOG_MIN = 0.22
BRIGHT_LOG_FLOOR = 0.08
# Hysteresis: pixels with this fraction of the evidence join a blob that has at least
# MIN_SEED_MM2 of full-evidence pixels.
WEAK = 0.5
MIN_SEED_MM2 = 15.0
# Levels (of 255) of sensor noise and JPEG rounding: a channel this dark says little.
NOISE_FLOOR_LEVELS = 8.0
# The table's noise and texture are measured on every this many usable pixels.
NOISE_SAMPLE_STEP = 7
# A darker pixel whose hue changes less than this fraction of its darkening is shadow:
# lamps and daylight differ in colour, so shadows are a little bluish or yellowish, but
# far less than any coloured plastic changes the hue of what is behind it.
SHADOW_HUE_RATIO = 0.3
# Shadow-like pixels darker than this (log) may be a piece's own shaded face as well as a
# shadow on the table: the model fit treats them as neither piece nor table.
DARK_LOG_MAX = -0.15

LOG_LUT = np.log(np.arange(256, dtype=np.float32) + LEVEL_OFFSET).reshape(1, 256)

# Unit vectors spanning the hue plane of (b, g, r) log space (orthogonal to grey).
HUE_AXES = np.array([[-1.0, -1.0, 2.0], [-1.0, 2.0, -1.0]], np.float32)
HUE_AXES /= np.linalg.norm(HUE_AXES, axis=1, keepdims=True)
HUE_AXES[1] -= HUE_AXES[0] * float(HUE_AXES[0] @ HUE_AXES[1])
HUE_AXES[1] /= np.linalg.norm(HUE_AXES[1])


@dataclass
class Foreground:
    """Per-pixel evidence on the rectified grid."""

    table: np.ndarray       # H×W×3 uint8, the rectified picture
    background: np.ndarray  # H×W×3 uint8, the bare-table estimate
    mask: np.ndarray        # H×W uint8 0/255, hysteresis foreground
    score: np.ndarray       # H×W float32, evidence (1 = full; shadows 0)
    lum: np.ndarray         # H×W float32, grey part of the log ratio (darkening < 0)
    hue: np.ndarray         # H×W×2 float32, hue part of the log ratio
    dark: np.ndarray        # H×W uint8 0/255, shadow-like: a shadow or a piece's shaded face
    paper_log: np.ndarray   # log of the markers' white paper, b, g, r
    res: float              # mm per pixel
    labels: np.ndarray      # H×W int32, connected components of the weak evidence
    blobs: list             # (label, (x, y, w, h)) of the components kept, big enough
    dark_blobs: list        # the same for dark, hueless blobs: black plastic, or shadows
    beside: frozenset = frozenset()   # labels of the dark blobs that also cover a coloured one
    hand: frozenset = frozenset()     # labels of the components a hand or an arm is made of (vision.hands)

    def take_out(self, pixels: np.ndarray) -> set[int]:
        """Make `pixels` (bool, on the grid) bare table, in place: no evidence there and
        no blob's. The labels of the components that lost some."""
        lost = set(np.unique(self.labels[pixels]).tolist()) - {0}
        for evidence in (self.labels, self.mask, self.dark, self.score):
            evidence[pixels] = 0
        return lost


class BackgroundFiller:
    """Fills the cells of a coarse table picture that the camera misses or the markers
    cover from their nearest usable cell (fixed per camera pose, so computed once).
    Also keeps the pose's other fixed masks: the pixels sampled for the table's noise
    and the ring around the marker sheets."""

    def __init__(self, usable: np.ndarray, grid: TableGrid):
        self.sample = np.flatnonzero(usable.ravel())[::NOISE_SAMPLE_STEP]
        self.near_sheet = cv2.dilate(~usable, np.ones((5, 5), np.uint8)) > 0
        self.f = max(1, int(round(BG_CELL_MM / grid.res)))
        self.res = grid.res
        self.shape = (grid.height // self.f, grid.width // self.f)
        self.out_size = (grid.width, grid.height)
        ok = cv2.resize(usable, self.shape[::-1], interpolation=cv2.INTER_NEAREST) > 0
        self.index: np.ndarray | None = None
        if ok.any() and not ok.all():
            _, labels = cv2.distanceTransformWithLabels((~ok).astype(np.uint8), cv2.DIST_L2, 3,
                                                        labelType=cv2.DIST_LABEL_PIXEL)
            idx = np.zeros(labels.max() + 1, int)
            idx[labels[ok]] = np.flatnonzero(ok.ravel())
            self.index = idx[labels]
        # whole cells of 3 px or more: OpenCV's area mean and the filling in one compiled pass
        self.whole_cells = self.f >= 3 and (grid.height, grid.width) == (self.shape[0] * self.f, self.shape[1] * self.f)
        self.source = np.arange(ok.size) if self.index is None else self.index.ravel()
        self.window = min(int(BG_WINDOW_MM / (self.f * grid.res)) | 1, 255)

    def background(self, table: np.ndarray) -> np.ndarray:
        """The bare table under the same light: a coarse median."""
        if self.whole_cells:
            small = np.empty(self.shape + (3,), np.uint8)
            kernels.area_mean(np.ascontiguousarray(table), self.f, self.source, small)
        else:
            small = cv2.resize(table, self.shape[::-1], interpolation=cv2.INTER_AREA)
            if self.index is not None:
                small = small.reshape(-1, 3)[self.index]
        bg = cv2.medianBlur(small, self.window)
        return cv2.resize(bg, self.out_size, interpolation=cv2.INTER_LINEAR)

    def texture_scale(self, chroma: np.ndarray, chroma_min: float) -> np.ndarray:
        """Per pixel, what to divide `chroma` by so that CHROMA_MIN's rule holds locally:
        the hue threshold at least NOISE_FACTOR times the median hue change of the table
        around (the background's window), not only of the whole table's (a dim corner of
        felt is noisier in log units than its lit middle). 1 where the whole's holds."""
        small = cv2.resize(chroma, self.shape[::-1], interpolation=cv2.INTER_AREA)
        if self.index is not None:
            small = small.ravel()[self.index].reshape(self.shape)
        # on cells twice the background's (lighting changes slowly; a quarter of the cost)
        coarse = cv2.resize(small, (self.shape[1] // 2, self.shape[0] // 2), interpolation=cv2.INTER_AREA)
        levels = cv2.medianBlur(np.clip(coarse * _CHROMA_LEVELS, 0, 255).astype(np.uint8), (self.window // 2) | 1)
        inverse = np.float32(chroma_min * _CHROMA_LEVELS / NOISE_FACTOR) / np.maximum(levels, 1).astype(np.float32)
        return cv2.resize(np.minimum(inverse, np.float32(1.0)), self.out_size, interpolation=cv2.INTER_LINEAR)


# The coarse hue-change medians are taken on 8-bit levels of this many per log unit
# (up to 0.51: the threshold caps near there anyway).
_CHROMA_LEVELS = 500.0


# Rows of the colour transform giving (hue 1, hue 2, grey mean) of a log (b, g, r) vector.
_HUE_LUM = np.vstack([HUE_AXES, np.full((1, 3), 1 / 3, np.float32)])


def foreground(table: np.ndarray, usable: np.ndarray, filler: BackgroundFiller,
               paper_white_bgr: np.ndarray) -> Foreground:
    """Segment what lies on the table in a rectified BGR picture.

    Evidence (`score`, 1 = the thresholds above) is the strongest of: hue change, darkness
    beyond shadows, brightness. Pixels that are darker with hardly any hue change are
    shadows, whatever their darkness above the black-plastic level, and never count.
    Hysteresis: pixels with WEAK evidence belong to the foreground when they touch enough
    pixels with full evidence; faint pieces (green on green felt) are caught by their
    strongest parts, lone faint patches (table texture) are not.
    """
    bg = filler.background(table)
    parts, lum, grey, chroma, (chroma_sampled, lum_sampled) = _log_ratio_parts(table, bg, filler.sample)
    hue = parts[..., :2]   # a view, no copy
    # a dark, saturated table (felt) is noisy in log units: the hue threshold must clear
    # its own texture and noise, measured where most pixels are bare table
    chroma_min = max(CHROMA_MIN, NOISE_FACTOR * kernels.median_of(chroma_sampled))
    bright_min = float(np.clip(NOISE_FACTOR * _robust_spread(lum_sampled), BRIGHT_LOG_FLOOR, BRIGHT_LOG_MIN))
    local = cv2.multiply(chroma, filler.texture_scale(chroma, chroma_min))
    score, dark, full, weak = _evidence(lum, grey, local, usable, chroma_min, bright_min)
    strong = cv2.morphologyEx(full, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    weak = cv2.morphologyEx(weak, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    n, labels, stats = components(weak)
    seeds = label_counts(labels, strong, n)
    keep = seeds >= MIN_SEED_MM2 / filler.res ** 2
    keep[0] = False
    min_px = MIN_BLOB_MM2 / filler.res ** 2
    areas = stats[:, cv2.CC_STAT_AREA]
    boxes = stats[:, :4].tolist()
    blobs = [(int(i), tuple(boxes[i])) for i in np.flatnonzero(keep & (areas >= min_px))]
    # black plastic under a bright room can be no darker than a deep shadow; but every
    # shadow on the table touches the piece that casts it: dark blobs are candidates,
    # kept if they touch no piece found (vision.pipeline); their evidence is their
    # darkness (opened wide enough to drop a plank's seam)
    black, darker = dark_candidates(lum, usable)
    m, black_labels, black_stats = components(black)
    # a coloured blob smaller than any piece is only some faces of one (green on green
    # felt: the faces that pass the lamp's light, the rest darkened like a shadow): the
    # dark candidate it touches takes it in when together they make a piece (`whole`
    # below), else, if it covers much of the candidate, the candidate is its shadow. One
    # too small to be fitted on their own (MIN_BLOB_MM2: a few lit specks of a dark
    # green upright on felt, path-traced) is taken in anyway and makes no shadow of it.
    small = keep & (areas < PIECE_MIN_MM2 / filler.res ** 2)
    classes = keep.astype(np.uint8) + small + (small & (areas >= min_px))   # see dark_overlaps
    mask = np.empty(labels.shape, np.uint8)
    on_class, on_sheet, pairs = kernels.dark_overlaps(labels, classes, black_labels, m, filler.near_sheet,
                                                      int(areas[small].sum()), mask)
    at_sheet = {j for j in range(1, m) if on_sheet[j] > AT_SHEET_SHARE * black_stats[j, cv2.CC_STAT_AREA]}
    overlap, overlap_small = on_class[:, 1], on_class[:, 3]   # on big blobs; on small fitted ones
    absorbed: dict[int, set] = {}
    for j, i in set(map(tuple, pairs.tolist())):
        absorbed.setdefault(j, set()).add(i)
    dark_blobs, beside = [], set()
    for j in range(1, m):
        area = black_stats[j, cv2.CC_STAT_AREA]
        # a dark coloured piece is already a blob; what a shadow is decides the fit
        covers = overlap[j] >= BLACK_OVERLAP_MAX * area
        if j in at_sheet or area < min_px or (covers and area - overlap[j] < PIECE_MIN_MM2 / filler.res ** 2):
            continue
        if covers:
            beside.add(n + j)
        box = _union_box([black_stats[j, :4]] + [stats[i, :4] for i in absorbed.get(j, ())])
        crop = np.s_[box[1]:box[1] + box[3], box[0]:box[0] + box[2]]
        region = (black_labels[crop] == j) & (mask[crop] == 0)
        faces = _labelled(labels[crop], absorbed.get(j, ()))
        # together nearly a piece's footprint, or they are no piece's two halves
        union = np.count_nonzero(region | faces)
        whole = j in absorbed and union >= WHOLE_SHARE_MIN * PIECE_MIN_MM2 / filler.res ** 2 \
            and (np.count_nonzero(faces) >= FACES_SHARE_MIN * union or _enclosed(faces, region))
        if not whole and overlap_small[j] >= BLACK_OVERLAP_MAX * area:
            continue
        lb, sc, lm = labels[crop], score[crop], lum[crop]
        if not whole:   # only the faces too small to be fitted on their own
            tiny = [i for i in absorbed.get(j, ()) if stats[i, cv2.CC_STAT_AREA] < min_px]
            faces = _labelled(lb, tiny)
            box = _union_box([black_stats[j, :4]] + [stats[i, :4] for i in tiny])
        if faces.any():   # their evidence: their tint or their darkness, the stronger
            lb[faces] = n + j
            blobs = [b for b in blobs if b[0] not in absorbed[j]] if whole else blobs
            sc[faces] = np.maximum(sc[faces], lm[faces] * (1 / DARK_CANDIDATE_LOG))
        lb[region] = n + j
        sc[region] = lm[region] * (1 / DARK_CANDIDATE_LOG)
        mask[crop][region] = 255
        # its outline: the corners the opening shaved, grown back (the decisions above are
        # the opened candidate's)
        grown = _padded(black_stats[j, :4], DARK_REGROW_PX, labels.shape)
        around = np.s_[grown[1]:grown[1] + grown[3], grown[0]:grown[0] + grown[2]]
        rim = regrown(black_labels[around] == j, darker[around] > 0) & (black_labels[around] == 0) \
            & (mask[around] == 0)
        labels[around][rim] = n + j
        score[around][rim] = lum[around][rim] * (1 / DARK_CANDIDATE_LOG)
        mask[around][rim] = 255
        dark_blobs.append((n + j, _union_box([box, grown])))
    paper_log = np.log(np.asarray(paper_white_bgr, np.float32) + LEVEL_OFFSET)
    return Foreground(table, bg, mask, score, lum, hue, dark, paper_log,
                      filler.res, labels, blobs, dark_blobs, frozenset(beside))


# A channel's weight by the table's level v: v / (v + NOISE_FLOOR_LEVELS).
_LEVELS = np.arange(256, dtype=np.float32).reshape(1, 256)
_WEIGHT_LUT = _LEVELS / (_LEVELS + NOISE_FLOOR_LEVELS)


def _log_ratio_parts(table: np.ndarray, bg: np.ndarray, sample: np.ndarray) -> tuple[np.ndarray, ...]:
    """The log ratio of picture to bare table, smoothed over 3×3 pixels (averaging sensor
    noise over ~1 mm²): its (hue 1, hue 2, grey mean) parts, the grey mean alone, and
    each pixel's darkening and hue change. The darkening is the channels' mean log
    ratio, the hue change their spread about it (the length of the hue part), each
    channel counting by how far the table's level is above the sensor's noise floor: a
    dark channel (blue on green felt) is mostly noise and JPEG rounding in log units,
    not hue. Also the hue change and grey mean at the pixels `sample` (ascending flat
    indices), 2×N. One compiled pass (vision.segment_kernels)."""
    parts = np.empty(table.shape, np.float32)
    lum, grey, chroma = (np.empty(table.shape[:2], np.float32) for _ in range(3))
    sampled = np.empty((2, sample.size), np.float32)
    kernels.log_ratio_parts(np.ascontiguousarray(table), np.ascontiguousarray(bg), LOG_LUT[0], _WEIGHT_LUT[0],
                            _HUE_LUM, parts, lum, grey, chroma, sample, sampled)
    return parts, lum, grey, chroma, sampled


def _evidence(lum: np.ndarray, grey: np.ndarray, chroma: np.ndarray, usable: np.ndarray,
              chroma_min: float, bright_min: float) -> tuple[np.ndarray, ...]:
    """Each pixel's evidence (`foreground`'s score: the strongest of hue change, darkness
    beyond shadows and brightness, none for a shadow or off the usable table), whether it
    is shadow-like and dark, and whether its evidence is full (> 1) and WEAK (uint8 0/255
    each). Compiled (vision.segment_kernels); its constants as float32, as numpy took them."""
    score = np.empty_like(lum)
    dark, full, weak = (np.empty(lum.shape, np.uint8) for _ in range(3))
    limits = tuple(np.float32(v) for v in (1 / chroma_min, 1 / SHADOW_LOG_MIN, 1 / bright_min, SHADOW_LOG_MIN,
                                           -SHADOW_HUE_RATIO, DARK_LOG_MAX, WEAK))
    kernels.evidence(lum, grey, chroma, np.ascontiguousarray(usable), limits, score, dark, full, weak)
    return score, dark, full, weak


def _labelled(labels: np.ndarray, wanted) -> np.ndarray:
    """Where `labels` holds one of the labels `wanted`: np.isin's mask, ~6× cheaper for
    the few labels a dark candidate takes in."""
    out = np.zeros(labels.shape, bool)
    for i in wanted:
        out |= labels == i
    return out


def _padded(box, pad: int, shape: tuple[int, int]) -> tuple[int, int, int, int]:
    """A box (x, y, w, h) grown by `pad` pixels each way, within an image of `shape`."""
    x, y, w, h = (int(v) for v in box)
    x0, y0 = max(x - pad, 0), max(y - pad, 0)
    return x0, y0, min(x + w + pad, shape[1]) - x0, min(y + h + pad, shape[0]) - y0


def _union_box(boxes: list) -> tuple[int, int, int, int]:
    """The smallest box (x, y, w, h) holding all these boxes."""
    b = np.array(boxes)
    x0, y0 = b[:, :2].min(axis=0)
    x1, y1 = (b[:, :2] + b[:, 2:4]).max(axis=0)
    return int(x0), int(y0), int(x1 - x0), int(y1 - y0)


def _robust_spread(values: np.ndarray) -> float:
    """Standard deviation estimated from the median absolute deviation (outliers —
    the pieces — barely move it)."""
    return 1.4826 * kernels.median_deviation(values)


def dark_candidates(lum: np.ndarray, usable: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Where the table is darker than DARK_CANDIDATE_LOG over DARK_SMOOTH_PX² (uint8 0/255):
    opened (BLACK_OPEN_PX), the candidates; and as it is, where they may grow back."""
    # (cv2.compare compares in float32, as numpy compares a float32 array with a float)
    darker = cv2.compare(cv2.blur(lum, (DARK_SMOOTH_PX, DARK_SMOOTH_PX)), DARK_CANDIDATE_LOG, cv2.CMP_LT)
    darker = cv2.bitwise_and(darker, usable)
    return cv2.morphologyEx(darker, cv2.MORPH_OPEN, np.ones((BLACK_OPEN_PX, BLACK_OPEN_PX), np.uint8)), darker


def regrown(candidate: np.ndarray, darker: np.ndarray) -> np.ndarray:
    """A candidate (bool) grown back by DARK_REGROW_PX within the `darker` pixels (bool)."""
    grown = cv2.dilate(candidate.view(np.uint8), np.ones((3, 3), np.uint8), iterations=DARK_REGROW_PX)
    return (grown > 0) & darker


def blob_masks(fg: Foreground, margin: int, dark: bool = False) -> list[tuple[np.ndarray, tuple[int, int, int, int]]]:
    """Each kept component (or dark candidate): its mask in its box padded by `margin`
    pixels and clipped to the grid, and that box (x, y, w, h)."""
    return [blob_mask(fg, label, box, margin) for label, box in (fg.dark_blobs if dark else fg.blobs)]


def blob_mask(fg: Foreground, label: int, box, margin: int) -> tuple[np.ndarray, tuple[int, int, int, int]]:
    """One component's mask (uint8 0/255) in its box padded by `margin` pixels and clipped
    to the grid, and that box (x, y, w, h)."""
    x0, y0, w, h = _padded(box, margin, fg.labels.shape)
    return (fg.labels[y0:y0 + h, x0:x0 + w] == label).astype(np.uint8) * 255, (x0, y0, w, h)


def _enclosed(faces: np.ndarray, region: np.ndarray) -> bool:
    """Does `region` surround `faces` (ENCLOSED_RING of the ring just outside them)? A
    piece's lit faces or apex inside its darkened rest; a shadow lies beside its piece."""
    ring = cv2.dilate(faces.astype(np.uint8), np.ones((5, 5), np.uint8)) > 0
    ring &= ~faces
    return bool(ring.any() and np.count_nonzero(ring & region) >= ENCLOSED_RING * np.count_nonzero(ring))
