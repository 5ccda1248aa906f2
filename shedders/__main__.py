import sys

from shedders.cli import main

sys.exit(main())
