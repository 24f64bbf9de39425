"""The rendered book: every chapter page exists, shows its code without nbdev directives, and has its figures."""
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
NBS, HTML = ROOT / "nbs", ROOT / "book" / "_build" / "html"
CHAPTERS = sorted(NBS.glob("*.ipynb"))


@pytest.fixture(scope="module")
def built_book() -> Path:
    "Build the book unless a build newer than every notebook is already there."
    newest = max(p.stat().st_mtime for p in CHAPTERS)
    stamp = HTML / "index.html"
    if not stamp.exists() or stamp.stat().st_mtime < newest:
        res = subprocess.run([sys.executable, str(ROOT / "book" / "build.py")], cwd=ROOT,
                             capture_output=True, text=True)
        assert res.returncode == 0, res.stdout[-5000:] + res.stderr[-5000:]
    return HTML


def code_cells(html: str) -> list[str]:
    "The text of the code cells' inputs in a Jupyter Book page."
    return re.findall(r'<div class="cell_input.*?</pre>', html, flags=re.S)


def uses_matplotlib(nb: dict) -> bool:
    return any(c["cell_type"] == "code" and re.search(r"\bplt\.|\.plot\(|imshow\(|\.hist\(", "".join(c["source"]))
               for c in nb["cells"])


@pytest.mark.parametrize("chapter", CHAPTERS, ids=lambda p: p.stem)
def test_chapter_page(built_book, chapter):
    page = built_book / f"{chapter.stem}.html"
    assert page.exists(), f"{page} was not rendered"
    html = page.read_text()
    for cell in code_cells(html):
        text = re.sub(r"<[^>]+>", "", cell)
        assert not re.search(r"^\s*#\s?\|", text, flags=re.M), f"nbdev directive left in {page.name}:\n{text[:300]}"
    executed = ROOT / "_proc" / f"{chapter.stem}.ipynb"   # executed by book/build.py
    nb = json.loads(chapter.read_text())
    if uses_matplotlib(nb):
        assert executed.exists()
        n_png = sum(1 for c in json.loads(executed.read_text())["cells"] if c["cell_type"] == "code"
                    for o in c.get("outputs", []) if "image/png" in o.get("data", {}))
        n_img = len(re.findall(r"<img [^>]*src=\"_images/", html))
        assert n_png >= 1, f"{chapter.name} draws plots but its executed notebook has no figure"
        assert n_img >= n_png, f"{page.name} shows {n_img} figures, the chapter made {n_png}"


def test_api_page(built_book):
    html = (built_book / "api.html").read_text()
    assert "API reference" in html
    modules = [p.stem for p in (ROOT / "minitorch").glob("*.py") if not p.stem.startswith("_")]
    for m in modules:
        if m in ("__init__",):
            continue
        mod = __import__(f"minitorch.{m}", fromlist=["__all__"])
        if getattr(mod, "__all__", None):
            assert f"minitorch.{m}" in html, f"API page lacks module minitorch.{m}"


def test_toc_in_reading_order(built_book):
    html = (built_book / "index.html").read_text()
    positions = [html.find(f'href="{p.stem}.html"') for p in CHAPTERS if p.stem != "index"]
    assert all(p >= 0 for p in positions), "a chapter is missing from the table of contents"
    assert positions == sorted(positions), "the table of contents is not in reading order"


def test_formulas_render_offline(built_book):
    "MathJax is shipped with the book (no CDN): a chapter with formulas loads it from _static."
    html = (built_book / "01_scalar.html").read_text()
    assert "$" in json.dumps(json.loads((NBS / "01_scalar.ipynb").read_text())["cells"])  # the chapter has formulas
    scripts = re.findall(r'<script[^>]*src="([^"]*mathjax[^"]*)"', html, flags=re.I)
    assert scripts and all(not s.startswith(("http:", "https:", "//")) for s in scripts), scripts
    assert all((built_book / s).exists() for s in scripts), scripts


def test_index_chapter_table_is_a_table(built_book):
    "The front page's generated chapter table renders as an HTML table with a row per chapter."
    html = (built_book / "index.html").read_text()
    assert html.count("<table") >= 2 and 'href="01_scalar.html"' in html
    assert "|---|" not in html and "|—|" not in html


def test_reader_metrics_page(built_book):
    "The build measures every chapter for the reader (prose, exported lines, longest cell, figures)."
    html = (built_book / "metrics.html").read_text()
    for chapter in CHAPTERS:
        if chapter.stem != "index":
            assert f"<td><p>{chapter.stem}</p></td>" in html or f"<td>{chapter.stem}</td>" in html, chapter.stem


def test_no_chapter_rewrites_the_package():
    "The book executes chapters in parallel: a chapter calling nbdev_export would rewrite the package under the others."
    for nb in CHAPTERS:
        for cell in json.loads(nb.read_text())["cells"]:
            if cell["cell_type"] == "code":
                assert "nbdev_export()" not in "".join(cell["source"]), nb.name
