"""``python -m pufferfish``: the ``pufferfish`` command (:func:`pufferfish.cli.main.main`), for an
environment where the script is not on the ``PATH``.

``python -m pufferfish audit quickstart.json`` is ``pufferfish audit quickstart.json``.
"""

import sys

from pufferfish.cli.main import main

if __name__ == "__main__":
    sys.exit(main())
