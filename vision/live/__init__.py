"""The live pipeline: frame sources, motion gate, debouncing, tracking, turns, sessions, the loop.

Import the pieces from their modules (`vision.live.loop.LiveLoop`,
`vision.live.sources.open_source`, ...); nothing here touches Flask.
"""
