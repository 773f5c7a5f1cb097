"""Frames to pieces: find every pyramid and coin in a registered picture of the table."""
