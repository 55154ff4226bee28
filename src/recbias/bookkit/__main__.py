"""``python -m recbias.bookkit``: build the book (see :mod:`recbias.bookkit.pipeline`)."""

import sys

from recbias.bookkit.pipeline import main

sys.exit(main())
