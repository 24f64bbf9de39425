"""Build the book: `nbs/*.ipynb` → `_proc/` (nbdev directives → Jupyter Book cell tags) → `book/_build/html`.

Directives are read from the top of each code cell and stripped from what the reader sees:
`#| hide` and `#| default_exp` cells are removed; `#| export` code is shown; cells flagged `#| gpu` or
`#| dist` (they need hardware or processes the build machine may not have) or `#| eval: false` are shown but
not executed. `#| slow` cells run: they draw the figures that take a while (training curves, full sweeps);
`#| echo: false` hides the input and `#| output: false` the output. Every other cell runs, so plots appear.
An API reference page is generated from the exported package's docstrings, and a page (also printed) that
measures how each chapter reads: prose words, exported lines, the longest exported cell, figures.

The chapters are executed here, each in a fresh kernel and `--jobs` of them at a time (default: one per CPU
core), and Jupyter Book renders the executed notebooks without running them again. A cell that raises fails the
build, so the build is also the notebook test run of `make test`.
"""
from __future__ import annotations

import argparse
import configparser
import importlib
import inspect
import json
import os
import shutil
import subprocess
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NBS, PROC, OUT = ROOT / "nbs", ROOT / "_proc", ROOT / "book"


def tst_flags() -> set[str]:
    "The cell flags that mark cells not to execute in the book: settings.ini's `tst_flags` except `slow`."
    cfg = configparser.ConfigParser()
    cfg.read(ROOT / "settings.ini")
    return set(cfg["DEFAULT"].get("tst_flags", "").split()) - {"slow"}


def split_directives(source: str) -> tuple[list[list[str]], str]:
    "Split the leading `#| ...` lines of a code cell from the code: ([['export'], ['eval:', 'false']], code)."
    lines, directives = source.splitlines(), []
    while lines and (lines[0].lstrip().startswith("#|") or lines[0].lstrip().startswith("# |")):
        directives.append(lines.pop(0).strip().lstrip("#").strip().lstrip("|").split())
    while lines and not lines[0].strip():
        lines.pop(0)
    return directives, "\n".join(lines)


def tags_for(directives: list[list[str]], flags: set[str]) -> list[str]:
    "Jupyter Book tags for a cell with these nbdev directives."
    tags = []
    for d in directives:
        name = d[0].rstrip(":") if d else ""
        value = " ".join(d[1:]).lower()
        if name in ("hide", "default_exp", "exporti") or (name == "include" and value == "false"):
            tags.append("remove-cell")
        elif name in flags or (name == "eval" and value == "false"):
            tags.append("skip-execution")
        elif name == "echo" and value == "false":
            tags.append("remove-input")
        elif name == "output" and value == "false":
            tags.append("remove-output")
    return tags


def convert_notebook(src: Path, dst: Path, flags: set[str]) -> None:
    "Copy one chapter, turning directives into tags and removing the directive lines."
    nb = json.loads(src.read_text())
    for cell in nb["cells"]:
        if cell["cell_type"] != "code":
            continue
        directives, code = split_directives("".join(cell["source"]))
        tags = tags_for(directives, flags)
        cell["source"] = code
        if tags:
            cell.setdefault("metadata", {}).setdefault("tags", []).extend(tags)
        if not code.strip() and "remove-cell" not in tags:
            cell.setdefault("metadata", {}).setdefault("tags", []).append("remove-cell")
    dst.write_text(json.dumps(nb, indent=1))


def reader_metrics(chapters: list[Path]) -> str:
    """What a reader meets in each chapter, as a markdown table: words of prose, exported lines, the longest
    exported cell and the figures drawn (counted in the executed copy in `_proc/`)."""
    rows = ["# How the chapters read", "",
            "Measured on every build: prose words (markdown cells), exported lines (`#| export` cells, blank lines "
            "and directives not counted), the longest exported cell, and the figures the executed chapter draws.", "",
            "| chapter | prose words | exported lines | longest exported cell | figures |", "|---|---|---|---|---|"]
    for nb in chapters:
        cells = json.loads(nb.read_text())["cells"]
        words = sum(len("".join(c["source"]).split()) for c in cells if c["cell_type"] == "markdown")
        sizes = []
        for c in cells:
            directives, code = split_directives("".join(c["source"])) if c["cell_type"] == "code" else ([], "")
            if any(d and d[0] in ("export", "exporti") for d in directives):
                sizes.append(sum(1 for line in code.splitlines() if line.strip()))
        executed = PROC / nb.name
        figures = sum(1 for c in json.loads(executed.read_text())["cells"] if c["cell_type"] == "code"
                      for o in c.get("outputs", []) if "image/png" in o.get("data", {})) if executed.exists() else 0
        rows.append(f"| {nb.stem} | {words} | {sum(sizes)} | {max(sizes, default=0)} | {figures} |")
    return "\n".join(rows) + "\n"


def docstring(doc: str | None) -> str:
    "The docstring as a paragraph (empty if none)."
    return inspect.cleandoc(doc) if doc else ""


def execute(path: Path) -> tuple[str, float, str | None]:
    "Run one converted chapter in a fresh kernel, in place (skip-execution cells stay unrun): name, seconds, error."
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError
    start, error = time.perf_counter(), None
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(nb, timeout=900, kernel_name="python3", resources={"metadata": {"path": str(PROC)}})
    try:
        client.execute()
    except CellExecutionError as e:
        error = str(e)[-3000:]
    except Exception as e:  # a dead kernel or a timeout: report it like a failing cell
        error = f"{type(e).__name__}: {e}"[-3000:]
    nbformat.write(nb, path)
    return path.stem, time.perf_counter() - start, error


def execute_all(paths: list[Path], jobs: int) -> list[str]:
    "Execute the chapters, `jobs` at a time; the names of those that failed (with their errors printed)."
    failed = []
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        for name, seconds, error in pool.map(execute, paths):
            print(f"executed {name} in {seconds:.1f} s" + (" FAILED" if error else ""), flush=True)
            if error:
                print(f"--- execution error in {name} ---\n{error}", flush=True)
                failed.append(name)
    return failed


def api_page() -> str:
    "An API reference in MyST markdown, generated from the exported modules' `__all__` and docstrings."
    sys.path.insert(0, str(ROOT))
    modidx = importlib.import_module("minitorch._modidx").d["syms"]
    out = ["# API reference", "",
           "Generated from the docstrings of the exported package. Each name links back to the chapter that "
           "builds it: the module is named after the chapter.", ""]
    for modname in sorted(modidx):
        if modname.endswith("__init__") or modname.endswith("_modidx"):
            continue
        mod = importlib.import_module(modname)
        names = getattr(mod, "__all__", [])
        if not names:
            continue
        out += [f"## `{modname}`", ""]
        if mod.__doc__:
            out += [docstring(mod.__doc__), ""]
        for name in names:
            obj = getattr(mod, name, None)
            if obj is None:
                continue
            out += entry(name, obj, level=3)
            if inspect.isclass(obj):
                for mname, member in sorted(vars(obj).items()):
                    if mname.startswith("_") and mname not in ("__init__", "__call__"):
                        continue
                    func = member.__func__ if isinstance(member, (staticmethod, classmethod)) else member
                    if isinstance(func, property):
                        func = func.fget
                    if callable(func) and getattr(func, "__doc__", None):
                        out += entry(f"{name}.{mname}", func, level=4)
    return "\n".join(out) + "\n"


def entry(name: str, obj, level: int) -> list[str]:
    "One API entry: a heading with the signature and the docstring."
    py = getattr(obj, "py_func", obj)  # numba dispatchers keep the Python function
    try:
        sig = str(inspect.signature(py)) if callable(py) else ""
    except (TypeError, ValueError):
        sig = "(...)"
    doc = docstring(getattr(py, "__doc__", None)) if (callable(py) or inspect.isclass(py)) else ""
    kind = "class " if inspect.isclass(obj) else ""
    lines = [f"{'#' * level} `{kind}{name}{sig}`", ""]
    if doc:
        lines += [doc, ""]
    return lines


CONFIG = """\
title: "minitorch: deep learning systems, built to be read"
author: the minitorch authors
only_build_toc_files: true
execute:
  execute_notebooks: "off"
  timeout: 900
  allow_errors: false
  run_in_temp: false
html:
  use_repository_button: false
  home_page_in_navbar: true
sphinx:
  extra_extensions: ["sphinx-mathjax-offline"]   # MathJax ships with the book: formulas render offline
  config:
    mathjax_path: mathjax/tex-chtml.js
    nb_render_markdown_format: myst   # Markdown outputs of cells (tables, links) render like the chapters' own text
    html_show_copyright: false
    suppress_warnings: ["mystnb.unknown_mime_type", "myst.header"]
parse:
  myst_enable_extensions: [dollarmath, amsmath, colon_fence]
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="chapters executed at once")
    args = parser.parse_args()
    flags = tst_flags()
    if PROC.exists():
        shutil.rmtree(PROC)
    PROC.mkdir()
    chapters = sorted(p for p in NBS.glob("*.ipynb") if p.name != "index.ipynb")
    convert_notebook(NBS / "index.ipynb", PROC / "index.ipynb", flags)
    for nb in chapters:
        convert_notebook(nb, PROC / nb.name, flags)
    (PROC / "api.md").write_text(api_page())
    toc = ["format: jb-book", "root: index", "chapters:"]
    toc += [f"- file: {nb.stem}" for nb in chapters] + ["- file: api", "- file: metrics"]
    (PROC / "_toc.yml").write_text("\n".join(toc) + "\n")
    (PROC / "_config.yml").write_text(CONFIG)
    failed = execute_all([PROC / "index.ipynb"] + [PROC / nb.name for nb in chapters], args.jobs)
    if failed:
        print(f"book build FAILED: {len(failed)} chapter(s) raised: {', '.join(failed)}")
        return 1
    metrics = reader_metrics(chapters)
    (PROC / "metrics.md").write_text(metrics)
    print(metrics)
    # Chapters read files relative to nbs/ (e.g. ../kernels/results): _proc/ sits at the same depth.
    build = OUT / "_build"
    if build.exists():
        shutil.rmtree(build)
    cmd = [str(Path(sys.executable).parent / "jupyter-book"), "build", str(PROC), "--path-output", str(OUT)]
    res = subprocess.run(cmd, cwd=ROOT)
    reports = sorted((build / "html" / "reports").glob("*.log")) if (build / "html" / "reports").exists() else []
    for r in reports:
        print(f"--- execution error in {r.stem} ---\n{r.read_text()[-3000:]}")
    if res.returncode or reports:
        print("book build FAILED")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
