"""Game rules and table geometry. Pure Python (shapely allowed): no OpenCV, no Flask."""
