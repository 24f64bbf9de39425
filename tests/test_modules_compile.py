"""Every exported module compiles without a warning (a LaTeX summary line once became an invalid escape sequence
in a module docstring: a DeprecationWarning today, a SyntaxWarning on Python 3.12)."""
import warnings
from pathlib import Path

import minitorch

PKG = Path(minitorch.__file__).parent


def test_every_module_compiles_cleanly():
    bad = []
    for f in sorted(PKG.rglob("*.py")):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            try: compile(f.read_text(), str(f), "exec")
            except (SyntaxError, SyntaxWarning, DeprecationWarning) as e: bad.append(f"{f.relative_to(PKG)}: {e}")
    assert not bad, bad
