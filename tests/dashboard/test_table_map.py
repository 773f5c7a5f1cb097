"""The table map flags the pieces the camera is unsure of; a player's correction settles them."""

from calibration.markers import MarkerLayout
from domain import Piece, TableState
from server.table_map import table_map
from vision.confidence import UNSURE_BELOW
from vision.live.tracking import Tracker


def test_pieces_read_with_little_confidence_are_flagged_for_the_players():
    table = TableState((Piece.upright("p1", "red", "large", (200, 200), confidence=0.97),
                        Piece.flat("p2", "green", "small", (300, 200), 0.0, confidence=UNSURE_BELOW - 0.2)))
    drawn = {p["id"]: p for p in table_map(table, [], MarkerLayout.default())["pieces"]}
    assert not drawn["p1"]["unsure"] and drawn["p1"]["confidence"] == 0.97
    assert drawn["p2"]["unsure"] and drawn["p2"]["confidence"] == 0.55


def test_a_corrected_piece_is_sure():
    tracker = Tracker(TableState((Piece.upright("p1", "yellow", "large", (200, 200), confidence=0.4),)))
    fixed = tracker.correct("p1", {"color": "green"})
    assert fixed.piece("p1").confidence == 1.0
    assert not table_map(fixed, [], MarkerLayout.default())["pieces"][0]["unsure"]
