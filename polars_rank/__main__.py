"""``python -m polars_rank``: the ``polars-rank`` command."""

import sys

from polars_rank.cli import main

sys.exit(main())
