"""WarpShips referee: beam and move rulings, die odds, the game, an advisor.

>>> from referee.warpships import rule_beam, rule_move, WarpShipsGame
>>> WarpShipsGame.new(["ann", "bob", "cy"], seed=1).to_move
'ann'
"""

from referee.warpships.advisor import Candidate, advise, candidate_moves
from referee.warpships.beam import BeamRuling, rule_beam
from referee.warpships.game import GameError, Result, Turn, WarpShipsGame
from referee.warpships.move import MoveRuling, rule_move
from referee.warpships.odds import FACES, ShotOdds, resolve_shot, shot_odds
from referee.warpships.setup import setup_table
from referee.warpships.table import ContradictionError, ShipError

__all__ = ["BeamRuling", "Candidate", "ContradictionError", "FACES", "GameError", "MoveRuling", "Result",
           "ShipError", "ShotOdds", "Turn", "WarpShipsGame", "advise", "candidate_moves", "resolve_shot",
           "rule_beam", "rule_move", "setup_table", "shot_odds"]
