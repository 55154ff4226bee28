"""``python -m recbias audit|prepare``: audit your own evaluation (see :mod:`recbias.bookkit.audit_cli`)."""

import sys

from recbias.bookkit.audit_cli import main

sys.exit(main())
