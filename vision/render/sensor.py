"""From scene radiance to the JPEG a webcam would send: exposure, white balance,
vignetting, defocus, shot and read noise, sRGB gamma, 8-bit quantisation, JPEG."""

from __future__ import annotations

import cv2
import numpy as np

from vision.render.scene import Sensor

EXPOSURE_PERCENTILE = 99.0   # auto-exposure puts this percentile of luminance at...
EXPOSURE_TARGET = 0.92       # ...this linear level (paper and highlights just below clipping)


def expose(radiance: np.ndarray, sensor: Sensor, illuminant: np.ndarray) -> np.ndarray:
    """Auto exposure and the camera's (imperfect) white balance, still linear."""
    wb = 1.0 / illuminant * np.array(sensor.wb_error)
    img = radiance * wb
    lum = img @ np.array([0.2126, 0.7152, 0.0722])
    level = np.percentile(lum[::7, ::7], EXPOSURE_PERCENTILE)
    return img * (EXPOSURE_TARGET * sensor.exposure / max(level, 1e-9))


def vignette(img: np.ndarray, strength: float) -> np.ndarray:
    h, w = img.shape[:2]
    y, x = np.ogrid[:h, :w]
    r2 = ((x - w / 2) ** 2 + (y - h / 2) ** 2) / ((w / 2) ** 2 + (h / 2) ** 2)
    return img * (1.0 - strength * r2 ** 1.5)[..., None]


def to_jpeg(linear_rgb: np.ndarray, sensor: Sensor) -> tuple[np.ndarray, bytes]:
    """Noise, gamma, quantisation and compression: (decoded BGR uint8, JPEG bytes)."""
    rng = np.random.default_rng(sensor.noise_seed)
    img = vignette(linear_rgb, sensor.vignette)
    if sensor.blur_px > 0:
        img = cv2.GaussianBlur(img, (0, 0), sensor.blur_px)
    img = np.clip(img, 0, None)
    # shot noise (variance proportional to signal) plus read noise, on the raw linear signal
    sigma = np.sqrt(sensor.shot_noise ** 2 * img + (sensor.read_noise / 255.0) ** 2)
    img = img + rng.standard_normal(img.shape).astype(np.float32) * sigma
    img = np.clip(img, 0, 1)
    srgb = np.where(img <= 0.0031308, 12.92 * img, 1.055 * np.power(img, 1 / 2.4) - 0.055)
    bgr = np.round(srgb[..., ::-1] * 255).astype(np.uint8)
    ok, buf = cv2.imencode(".jpg", bgr, [cv2.IMWRITE_JPEG_QUALITY, int(sensor.jpeg_quality)])
    if not ok:
        raise RuntimeError("JPEG encoding failed")
    data = buf.tobytes()
    return cv2.imdecode(buf, cv2.IMREAD_COLOR), data
