"""Markers, camera and colours: everything that ties pixels to table millimetres."""
