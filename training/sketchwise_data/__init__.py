"""Sketchwise training-data utilities (Python side of the Swift pipeline)."""
