"""The Flask dashboard."""
