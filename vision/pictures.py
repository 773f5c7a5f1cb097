"""What a picture must be for the detector to read it: 8-bit BGR, big enough, in colour."""

from __future__ import annotations

from typing import Any

import numpy as np

from domain import InputError


class BadImageError(InputError):
    """An image that is not a usable colour picture."""


# A picture whose three channels agree everywhere (to JPEG's rounding; every 8th pixel
# looked at) is greyscale: a monochrome camera or a converted file. Pieces would all
# read black or white.
GREY_TOLERANCE = 2
GREY_SAMPLE_STEP = 8


def check_colour(image: np.ndarray) -> None:
    """BadImageError for a greyscale picture (see GREY_TOLERANCE)."""
    sample = image[::GREY_SAMPLE_STEP, ::GREY_SAMPLE_STEP].astype(np.int16)
    if np.abs(sample[..., 0] - sample[..., 1]).max() <= GREY_TOLERANCE \
            and np.abs(sample[..., 1] - sample[..., 2]).max() <= GREY_TOLERANCE:
        raise BadImageError("the picture is greyscale: the pieces' colours cannot be read from it")


def check_image(image: Any) -> np.ndarray:
    """`image` itself, if it is an 8-bit BGR picture at least 64 pixels a side; else BadImageError."""
    if not isinstance(image, np.ndarray) or image.dtype != np.uint8 or image.ndim != 3 or image.shape[2] != 3:
        raise BadImageError("expected a BGR colour picture (H×W×3 uint8)")
    if min(image.shape[:2]) < 64:
        raise BadImageError(f"picture too small ({image.shape[1]}×{image.shape[0]})")
    return image
