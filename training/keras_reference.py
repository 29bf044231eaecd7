#!/usr/bin/env python3
"""``python3 training/keras_reference.py ...`` runs ``python3 -m sketchwise_training.keras_reference ...``: the old path, kept.
Python puts this script's folder first on the path, so the package imports without being installed."""
from sketchwise_training.keras_reference import main

if __name__ == "__main__":
    main()
