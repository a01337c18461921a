"""What the oldest Python the package supports (3.9) lacks, in one place."""

from importlib import metadata


def entry_points(group):
    """The installed entry points of one group. `metadata.entry_points(group=...)` is Python 3.10+;
    3.9 only returns a dict of all groups."""
    eps = metadata.entry_points()
    if hasattr(eps, "select"):
        return eps.select(group=group)
    return eps.get(group, ())
