"""scripts/chaos: see p2puno/node/chaos.py (kills, resumes and cut links in whole games)."""

import sys

from p2puno.node.chaos import main

sys.exit(main())
