"""`python -m largemargin`: the `largemargin` command."""

import sys

from .cli import main

sys.exit(main())
