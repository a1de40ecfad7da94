"""Where nbrun.py put the executed copy of a course notebook.

`docker/nbrun.py --out DIR` keeps the notebooks' folders when it is given a
folder (DIR/unit01/NAME, as `make notebooks-executed` runs it) and not when
it is given files (DIR/NAME, as predictions_test.py runs its filled-in
copies); a folder given by hand may be either.
"""
import os


def executed_copy(folder, name, unit="unit01"):
    """The path of NAME's executed copy under folder, or None if there is none."""
    for path in (os.path.join(folder, unit, name), os.path.join(folder, name)):
        if os.path.exists(path):
            return path
    return None
