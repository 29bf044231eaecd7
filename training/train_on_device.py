#!/usr/bin/env python3
"""``python3 training/train_on_device.py ...`` runs ``python3 -m sketchwise_training.train_on_device ...``: the old path, kept.
Python puts this script's folder first on the path, so the package imports without being installed."""
from sketchwise_training.train_on_device import main

if __name__ == "__main__":
    main()
