"""The C heap's policy for a detector's per-frame arrays.

A frame makes hundreds of temporary arrays of 1-10 MB (the rectified table and each of
its evidence planes is 760×560×3 float32, 5 MB). glibc's malloc gives freed memory
above its trim threshold back to the system, and the next frame faults those pages in
afresh: ~3300 page faults and 10-13 ms of kernel time a video frame (seeds 9200-9209),
against 2 faults and 2-5 ms with this policy. `keep_freed_heap` keeps up to
KEEP_FREE_MB of freed heap for reuse and serves arrays up to MMAP_THRESHOLD_MB from the
heap. Elsewhere (no glibc) it does nothing.
"""

from __future__ import annotations

import ctypes

# glibc's mallopt parameters (malloc.h)
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3
# Arrays up to this size come from the heap (glibc's own ceiling for its adaptive threshold).
MMAP_THRESHOLD_MB = 32
# Freed heap kept for the next frame: more than a frame's peak (~170 MB process, ~60 MB
# of it the frame's temporaries).
KEEP_FREE_MB = 256


def keep_freed_heap() -> bool:
    """Set the policy above; whether the C library took it.

    >>> import sys
    >>> keep_freed_heap() if sys.platform.startswith("linux") else True
    True
    """
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False
    return bool(mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD_MB << 20)) and bool(mallopt(_M_TRIM_THRESHOLD, KEEP_FREE_MB << 20))
