"""Blender's Cycles as a second independent renderer of the scene specs (bench_cycles)."""
