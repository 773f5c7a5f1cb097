"""A hand or an arm over the table in a single picture: seen, and its fingers not read as pieces."""

import numpy as np
import pytest

from vision import hands
from vision.evaluate import Score
from vision.pipeline import Detector
from vision.scenes import rendered
from vision.segment import Foreground

H, W = 200, 300


def _foreground(labels: np.ndarray, dark: np.ndarray | None = None) -> Foreground:
    """A foreground whose components are `labels` (each one a blob with its box), with
    shade (dark, hueless pixels) where `dark` is."""
    zeros = np.zeros(labels.shape, np.float32)
    blobs = []
    for label in range(1, int(labels.max()) + 1):
        ys, xs = np.nonzero(labels == label)
        blobs.append((label, (int(xs.min()), int(ys.min()), int(np.ptp(xs)) + 1, int(np.ptp(ys)) + 1)))
    return Foreground(np.zeros((*labels.shape, 3), np.uint8), np.zeros((*labels.shape, 3), np.uint8),
                      (labels > 0).astype(np.uint8) * 255, zeros, zeros, np.zeros((*labels.shape, 2), np.float32),
                      np.zeros(labels.shape, np.uint8) if dark is None else dark.astype(np.uint8) * 255,
                      np.zeros(3), 1.0, labels, blobs, [])


def _fingers(parted_px: int, palm_rows: int = 30, off_palm_px: int | None = None) -> np.ndarray:
    """Five 14 × 80 px fingers side by side, `parted_px` apart (and `off_palm_px` above
    the palm, `parted_px` if not given), above a palm strip `palm_rows` high that runs off
    the grid's bottom edge: six components, each smaller than a hand (HAND_MM2), together
    bigger."""
    labels = np.zeros((H, W), np.int32)
    palm = H - palm_rows
    off = parted_px if off_palm_px is None else off_palm_px
    x = 40
    for k in range(1, 6):
        labels[palm - off - 80:palm - off, x:x + 14] = k
        x += 14 + parted_px
    labels[palm:H, 40:x] = 6
    return labels


def _hand(labels: np.ndarray, dark: np.ndarray | None = None, sheets: np.ndarray | None = None) -> frozenset:
    outside = np.zeros(labels.shape, bool)
    return hands.hand_labels(_foreground(labels, dark), 1.0, hands.view_edge(outside), sheets)


def test_fingers_parted_by_their_shade_make_one_hand():
    assert _hand(_fingers(1)) == frozenset(range(1, 7))


def test_blobs_further_apart_than_a_hand_s_shade_are_no_hand():
    assert _hand(_fingers(4)) == frozenset()


@pytest.mark.parametrize("palm_rows, is_hand", [(30, True), (15, False)])
def test_shade_joins_fingers_only_to_a_blob_as_big_as_a_palm(palm_rows, is_hand):
    # the fingers 4 px above the palm, shade between: a 2700 mm² palm is part of a hand and
    # the shade joins the fingers to it; a 1350 mm² strip may be pieces, and shade (wood
    # grain under one bulb, the sun's dappled shadow) does not join pieces to it
    labels = _fingers(1, palm_rows, off_palm_px=4)
    dark = np.zeros(labels.shape, bool)
    dark[H - palm_rows - 4:H - palm_rows, 40:130] = True
    assert _hand(labels, dark) == (frozenset(range(1, 7)) if is_hand else frozenset())
    assert _hand(labels) == frozenset()   # without the shade, no hand either way


def test_a_striped_cloth_s_lines_are_no_palm():
    # the palm of the test above replaced by a striped cloth's dark lines, one component
    # (2 px lines 4 px apart, joined at one end) as big as a palm but no thicker than a
    # stripe: the shade does not join the fingers to it
    palm_rows = 30
    labels = _fingers(1, palm_rows, off_palm_px=4)
    labels[labels == 6] = 0
    for row in range(H - palm_rows, H, 4):
        labels[row:row + 2, 40:230] = 6
    labels[H - palm_rows:H, 40:42] = 6
    assert np.count_nonzero(labels == 6) >= hands.HAND_PART_MM2
    dark = np.zeros(labels.shape, bool)
    dark[H - palm_rows - 4:H - palm_rows, 40:130] = True
    assert _hand(labels, dark) == frozenset()


@pytest.mark.parametrize("sleeve", [True, False])
def test_an_arm_reaching_in_over_a_marker_sheet_is_a_hand(sleeve):
    # a palm and fingers, a marker sheet (left out of the foreground) between them and the
    # picture's edge, and the sleeve beyond it: the sheet joins them. With bare table
    # beyond the sheet (pieces beside a sheet) there is nothing to join.
    labels = np.zeros((H, W), np.int32)
    labels[100:140, 40:130] = 1   # the palm, 3600 mm²
    for k in range(5):
        labels[20:99, 40 + 18 * k:54 + 18 * k] = 2 + k
    if sleeve:
        labels[190:H, 60:110] = 7
    sheet = np.zeros((H, W), bool)
    sheet[141:190, 30:140] = True
    assert _hand(labels, sheets=sheet) == (frozenset(range(1, 8)) if sleeve else frozenset())
    assert _hand(labels) == frozenset()


def test_a_cluster_bigger_than_a_hand_away_from_the_edge_is_no_hand():
    labels = _fingers(1)
    labels[H - 5:H] = 0   # the palm no longer reaches the edge of the view
    assert _hand(labels) == frozenset()


def test_boxes_are_grouped_when_they_touch_once_grown():
    boxes = np.array([(0, 0, 10, 10), (11, 0, 10, 10), (40, 40, 10, 10)])
    assert hands._box_groups(boxes, 1, 150, (100, 100)) == [(0, 0, 22, 11)]   # the third alone is too small
    assert hands._box_groups(boxes, 0, 50, (100, 100)) == [(0, 0, 10, 10), (11, 0, 21, 10), (40, 40, 50, 50)]


@pytest.mark.parametrize("seed, most_false", [(9900, 4), (9901, 4), (9902, 4), (9914, 3)])
def test_a_hand_over_the_table_is_seen_and_its_fingers_are_not_read_as_pieces(seed, most_false):
    # the fingers read as 17, 16, 12 and 12 pieces before the hand's blobs were put
    # together (9901's through the shade between its fingers and its palm, 9902's through
    # the marker sheet its arm crosses)
    r = rendered(seed, hands=1)
    detection = Detector(r.spec.layout, r.intrinsics).detect(r.image)
    score = Score()
    score.add(r.truth, detection.state, str(seed))
    assert detection.hand
    assert score.n_found - score.n_matched <= most_false, score.mistakes
    assert score.found_rate >= 0.9, score.mistakes


@pytest.mark.parametrize("seed, options", [(9200, {}), (9203, {}), (9473, {"crowd": 1.0}), (9474, {"crowd": 1.0})])
def test_no_hand_is_seen_on_a_table_without_one(seed, options):
    # 9473 and 9474: every piece beside another, one blob bigger than a hand
    r = rendered(seed, **options)
    assert not Detector(r.spec.layout, r.intrinsics).detect(r.image).hand
