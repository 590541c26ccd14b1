"""mkfix.py DIR OLD NEW [OLD NEW ...] : derive fixed.py from buggy.py (and
optionally FILE=name to patch a sibling module into a fixed copy)."""
import sys
from pathlib import Path

d = Path(sys.argv[1])
args = sys.argv[2:]
src_name, dst_name = "buggy.py", "fixed.py"
if args and args[0].startswith("FILE="):
    src_name, dst_name = args[0][5:].split(":")
    args = args[1:]
src = (d / src_name).read_text()
assert src.count("# bug-line") <= 1
for old, new in zip(args[::2], args[1::2]):
    n = src.count(old)
    assert n == 1, (old, n)
    src = src.replace(old, new)
src = src.replace("  # bug-line", "")
(d / dst_name).write_text(src)
print("wrote", d / dst_name)
