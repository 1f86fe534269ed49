"""pytest configuration shared by all tests."""
from __future__ import annotations

from hypothesis import settings

# Property tests check behaviour, not speed: a loaded CI machine must not turn a slow example into
# a failure (hypothesis' default deadline is 200 ms per example). The database is off so runs do
# not depend on earlier runs; failing examples are printed with their reproduction blob.
settings.register_profile("project", deadline=None, database=None, print_blob=True)
settings.load_profile("project")
