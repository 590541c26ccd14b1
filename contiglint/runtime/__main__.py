"""`python -m contiglint.runtime script.py [args]`, the same as `contiglint run`."""
import sys

from contiglint.runtime.cli import main

if __name__ == "__main__":
    sys.exit(main())
