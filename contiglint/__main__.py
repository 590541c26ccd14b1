"""`python -m contiglint ...` is the `contiglint` command."""
import sys

from contiglint.cli import main

if __name__ == "__main__":
    sys.exit(main())
