"""Makes `import sleighsweep` work for the scripts beside this file when
the package is not on Python's path already (scripts/setup.sh registers
the source tree's python/ with Debian's python3; `cmake --install` puts
the package in PREFIX/lib/python3/dist-packages): the source tree's
python/ (../python) or the installed tree's package directory
(../../../lib/python3/dist-packages), whichever holds it."""
import importlib.util
import os
import sys

if importlib.util.find_spec("sleighsweep") is None:
    HERE = os.path.dirname(os.path.abspath(__file__))
    for cand in (os.path.join(HERE, "..", "python"),
                 os.path.join(HERE, "..", "..", "..", "lib", "python3",
                              "dist-packages")):
        if os.path.isfile(os.path.join(cand, "sleighsweep", "__init__.py")):
            sys.path.insert(0, os.path.abspath(cand))
            break
