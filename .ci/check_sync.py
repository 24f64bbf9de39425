"""Fail if `minitorch/` differs from a fresh `nbdev_export` or if a notebook is not `nbdev_clean`."""
import hashlib, subprocess, sys
from pathlib import Path

root = Path(__file__).resolve().parent.parent

def snapshot(folder: str, pattern: str) -> dict[str, str]:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted((root / folder).rglob(pattern)) if "__pycache__" not in p.parts}

def changed(before: dict, after: dict) -> list[str]:
    return sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))

bin_dir = Path(sys.executable).parent
failures = []
before = snapshot("minitorch", "*.py")
subprocess.run([bin_dir / "nbdev_export"], cwd=root, check=True)
if diff := changed(before, snapshot("minitorch", "*.py")):
    failures.append("minitorch/ differed from a fresh nbdev_export (now re-exported; commit it): " + ", ".join(diff))
before = snapshot("nbs", "*.ipynb")
subprocess.run([bin_dir / "nbdev_clean"], cwd=root, check=True)
if diff := changed(before, snapshot("nbs", "*.ipynb")):
    failures.append("notebooks were not clean (now cleaned; commit them): " + ", ".join(diff))
for f in failures:
    print("FAIL:", f)
if failures:
    sys.exit(1)
print("ok: minitorch/ matches nbdev_export and every notebook is clean")
