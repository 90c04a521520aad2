import sys

from hopbench.harness.cli import main

sys.exit(main())
