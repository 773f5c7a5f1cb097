"""Settings shared by every test.

Property tests (hypothesis) draw the same examples on every run of `make test`, so a
run's verdict is about the code, not the draw; `pytest --hypothesis-profile=explore`
draws fresh ones each run, to look for new failures (keep what it finds as a plain
test, as test_geometry does).
"""

from hypothesis import settings

settings.register_profile("repeatable", derandomize=True)
settings.register_profile("explore", derandomize=False)
settings.load_profile("repeatable")
