"""Photos as a spec's ``image`` input takes them, and scikit-image's sample photos to check with.

:func:`preprocess` is the reference of ``ImageInput`` (Sources/SketchwiseNN/ModelSpec.swift): the
shorter side scaled to ``resize`` (Pillow's bilinear, antialiased when shrinking), the centre
``size``×``size`` square cut out, each value fed as ``(v / 255 - mean) / std``, ``[3, size, size]``.
"""
from __future__ import annotations

import numpy as np

#: scikit-image's sample photos that show an ImageNet class, and the class indices that are a
#: right answer (grey photos are fed as three equal planes).
SAMPLES = {
    "chelsea": (281, 282, 285),  # a tabby cat: tabby, tiger cat, Egyptian cat
    "coffee": (967, 968, 504),  # a cup of coffee on a saucer: espresso, cup, coffee mug
    "rocket": (657, 744, 812),  # a Saturn V on its pad: missile, projectile, space shuttle
    "stereo_motorcycle": (665, 670),  # a motorbike in a workshop: moped, motor scooter
    "clock": (409, 892),  # a clock: analog clock, wall clock
    "camera": (872, 759),  # a cameraman: tripod, reflex camera
}


def sample_photo(name: str) -> np.ndarray:
    """scikit-image's sample ``name`` as ``[H, W, 3]`` uint8 RGB."""
    from skimage import data

    image = getattr(data, name)()
    image = image[0] if isinstance(image, tuple) else image
    if image.ndim == 2:
        image = np.stack([image] * 3, axis=-1)
    return np.ascontiguousarray(image[..., :3].astype(np.uint8))


def preprocess(rgb: np.ndarray, image: dict) -> np.ndarray:
    """``[H, W, 3]`` uint8 RGB -> the model input ``[3, size, size]`` float32, as ``image`` (a spec's
    ``input.image``) says."""
    from PIL import Image

    size, resize = image["size"], image.get("resize", image["size"])
    h, w = rgb.shape[:2]
    scale = resize / min(h, w)
    nh, nw = max(size, round(h * scale)), max(size, round(w * scale))
    resized = np.asarray(Image.fromarray(rgb).resize((nw, nh), Image.BILINEAR), dtype=np.float32)
    top, left = (nh - size) // 2, (nw - size) // 2
    crop = resized[top:top + size, left:left + size] / 255.0
    x = (crop - np.asarray(image["mean"], np.float32)) / np.asarray(image["std"], np.float32)
    return np.ascontiguousarray(x.transpose(2, 0, 1), dtype=np.float32)
