"""WarpShips referee: beam and move rulings, die odds, the game, an advisor.

>>> from referee.warpships import rule_beam, rule_move
"""

from referee.warpships.beam import BeamRuling, rule_beam
from referee.warpships.move import MoveRuling, rule_move
from referee.warpships.table import ContradictionError, ShipError

__all__ = ["BeamRuling", "ContradictionError", "MoveRuling", "ShipError", "rule_beam", "rule_move"]
