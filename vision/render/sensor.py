"""From scene radiance to the JPEG a webcam would send: exposure, white balance,
chromatic aberration, vignetting, defocus, a Bayer sensor with shot and read noise, demosaicking, sRGB gamma,
sharpening, 8-bit quantisation, JPEG."""

from __future__ import annotations

import cv2
import numpy as np

from calibration.srgb import encode
from vision.render.scene import Sensor

EXPOSURE_PERCENTILE = 99.0   # "highlights" metering puts this percentile of luminance at...
EXPOSURE_TARGET = 0.92       # ...this linear level (paper and highlights just below clipping)
AVERAGE_TARGET = 0.2         # "average" metering puts the mean luminance here (mid grey)


def expose(radiance: np.ndarray, sensor: Sensor, illuminant: np.ndarray) -> np.ndarray:
    """Auto exposure and the camera's (imperfect) white balance, still linear."""
    wb = 1.0 / illuminant * np.array(sensor.wb_error)
    img = radiance * wb
    lum = (img @ np.array([0.2126, 0.7152, 0.0722]))[::7, ::7]
    if sensor.metering == "average":   # a webcam's usual: the picture averages mid grey
        gain = AVERAGE_TARGET / max(float(lum.mean()), 1e-9)
    else:                              # protect the highlights
        gain = EXPOSURE_TARGET / max(float(np.percentile(lum, EXPOSURE_PERCENTILE)), 1e-9)
    return img * (gain * sensor.exposure)


def vignette(img: np.ndarray, strength: float) -> np.ndarray:
    h, w = img.shape[:2]
    y, x = np.ogrid[:h, :w]
    r2 = ((x - w / 2) ** 2 + (y - h / 2) ** 2) / ((w / 2) ** 2 + (h / 2) ** 2)
    return img * (1.0 - strength * r2 ** 1.5)[..., None]


LUT_SIZE = 1 << 16
SRGB_LUT = encode(np.linspace(0.0, 1.0, LUT_SIZE))  # 16-bit linear code → sRGB pixel value


def filmic(light: np.ndarray) -> np.ndarray:
    """Linear light → pixel values (uint8) through a filmic view transform: Blender's AgX
    curve, channel by channel (its log2 encoding over [-12.47, 4.03] stops and its sigmoid,
    without the gamut matrices). Darks lifted and every contrast flattened against sRGB:
    printed ink on paper comes out ~0.3 log lighter."""
    lo, hi = -12.47393, 4.026069
    x = (np.clip(np.log2(np.maximum(light, 1e-10)), lo, hi) - lo) / (hi - lo)
    x2 = x * x
    x4 = x2 * x2
    v = 15.5 * x4 * x2 - 40.14 * x4 * x + 31.96 * x4 - 6.868 * x2 * x + 0.4298 * x2 + 0.1191 * x - 0.00232
    return np.round(np.clip(v, 0.0, 1.0) * 255).astype(np.uint8)


# 16-bit linear code → pixel value, by the sensor's development ("filmic-bright": exposed
# a stop brighter, as a filmic picture's user would to make its paper look white)
DEVELOPMENT_LUTS = {"srgb": SRGB_LUT, "filmic": filmic(np.linspace(0.0, 1.0, LUT_SIZE)),
                    "filmic-bright": filmic(np.linspace(0.0, 2.0, LUT_SIZE))}


def mosaic_noise_demosaic(img: np.ndarray, sensor: Sensor, rng: np.random.Generator) -> np.ndarray:
    """Sample an RGGB colour filter array, add shot and read noise per photosite, and
    demosaic: the noise becomes correlated between neighbours and edges fringe a little,
    as in a real camera. In and out: linear RGB in [0, 1] (out as 16-bit codes)."""
    h, w = img.shape[:2]
    raw = np.empty((h, w), np.float32)
    raw[0::2, 0::2] = img[0::2, 0::2, 0]
    raw[0::2, 1::2] = img[0::2, 1::2, 1]
    raw[1::2, 0::2] = img[1::2, 0::2, 1]
    raw[1::2, 1::2] = img[1::2, 1::2, 2]
    np.clip(raw, 0, None, out=raw)
    sigma = np.sqrt(sensor.shot_noise ** 2 * raw + (sensor.read_noise / 255.0) ** 2)
    raw += rng.standard_normal(raw.shape, dtype=np.float32) * sigma
    codes = (np.clip(raw, 0, 1) * (LUT_SIZE - 1) + 0.5).astype(np.uint16)
    # OpenCV names Bayer patterns from the second row: our RGGB is its "BG" layout
    return cv2.cvtColor(codes, cv2.COLOR_BayerBG2BGR)


def lateral_chromatic(img: np.ndarray, amount: float) -> np.ndarray:
    """The lens images red slightly larger and blue slightly smaller than green (lateral
    chromatic aberration): colour fringes growing towards the corners."""
    if amount <= 0:
        return img
    h, w = img.shape[:2]
    out = img.copy()
    for channel, scale in ((0, 1 + amount), (2, 1 - amount)):
        m = np.array([[scale, 0, (1 - scale) * (w - 1) / 2], [0, scale, (1 - scale) * (h - 1) / 2]])
        out[..., channel] = cv2.warpAffine(np.ascontiguousarray(img[..., channel]), m, (w, h),
                                           flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
    return out


def to_jpeg(linear_rgb: np.ndarray, sensor: Sensor) -> tuple[np.ndarray, bytes]:
    """Optics, sensor noise, demosaicking, development (gamma), sharpening and JPEG: (decoded BGR uint8, JPEG bytes)."""
    rng = np.random.default_rng(sensor.noise_seed)
    img = vignette(lateral_chromatic(linear_rgb, sensor.chromatic), sensor.vignette)
    if sensor.blur_px > 0:
        img = cv2.GaussianBlur(img, (0, 0), sensor.blur_px)
    bgr = DEVELOPMENT_LUTS[sensor.development][mosaic_noise_demosaic(img, sensor, rng)]
    if sensor.sharpen > 0:  # webcams sharpen: halos at edges, amplified noise
        soft = cv2.GaussianBlur(bgr, (0, 0), 1.2)
        bgr = cv2.addWeighted(bgr, 1 + sensor.sharpen, soft, -sensor.sharpen, 0)
    ok, buf = cv2.imencode(".jpg", bgr, [cv2.IMWRITE_JPEG_QUALITY, int(sensor.jpeg_quality)])
    if not ok:
        raise RuntimeError("JPEG encoding failed")
    return cv2.imdecode(buf, cv2.IMREAD_COLOR), buf.tobytes()
