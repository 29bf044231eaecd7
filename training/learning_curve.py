#!/usr/bin/env python3
"""``python3 training/learning_curve.py ...`` runs ``python3 -m sketchwise_training.learning_curve ...``: the old path, kept.
Python puts this script's folder first on the path, so the package imports without being installed."""
from sketchwise_training.learning_curve import main

if __name__ == "__main__":
    main()
