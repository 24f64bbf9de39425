"""The course tools: course.toml agrees with the notebooks and tests, the student edition hides the solutions,
and the grader scores each task on its own (a full solution 100%, blanked tasks 0, one broken task loses its points,
a hang or a crash scores 0 and grading goes on)."""
import json
import os
import shutil
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from minitorch import course as C
from minitorch.course_tasks import _example_settings

ROOT = Path(__file__).resolve().parent.parent
# Marker comments and marks are spelled in pieces: this file is scanned for marks, and must declare none.
B, E, M = "# BEGIN " + "SOLUTION", "# END " + "SOLUTION", "mark." + "task"


# ---------------------------------------------------------------------------------------------------------------
# A tiny course: one chapter, two tasks, their tests. Fast to export, check and grade.

# The chapter's example course (90_course: package `tiny`, tasks 0.1 and 0.2 and their tests), with a longer
# per-task timeout than the book's example (a loaded CI machine).
SETTINGS = _example_settings()
CODE, TESTS = C.EXAMPLE_CODE, C.EXAMPLE_TESTS
TOML = C.EXAMPLE_TOML.replace("timeout = 20", "timeout = 30")
assert "timeout = 30" in TOML


def cell(src: str, outputs=()) -> dict:
    return {"cell_type": "code", "execution_count": 1 if outputs else None, "metadata": {},
            "outputs": list(outputs), "source": src}


def git_add_all(root: Path):
    if not (root / ".git").exists(): subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    subprocess.run(["git", "add", "-A"], cwd=root, check=True)


def make_tiny(root: Path, export: bool = True) -> Path:
    (root / "nbs").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "notes").mkdir()
    (root / "settings.ini").write_text(SETTINGS)
    (root / "course.toml").write_text(TOML)
    (root / "README.md").write_text("# tiny\n\n`pip install -e .`\n")
    (root / "notes" / "private.md").write_text("instructor notes\n")
    out = {"output_type": "stream", "name": "stdout", "text": ["total = x + y  # the sum of both arguments\n"]}
    nb = {"cells": [{"cell_type": "markdown", "metadata": {}, "source": "# Core\n\n> Two tiny tasks."},
                    cell("#| default_exp core"), cell(CODE), cell("add(1, 2)", [out])],
          "metadata": {"kernelspec": {"display_name": "python3", "name": "python3"}},
          "nbformat": 4, "nbformat_minor": 5}
    C.write_notebook(nb, root / "nbs" / "00_core.ipynb")
    (root / "tests" / "test_core.py").write_text(TESTS)
    git_add_all(root)
    if export: C.nbdev_export_in(root)
    return root


@pytest.fixture(scope="module")
def tiny(tmp_path_factory) -> Path:
    return make_tiny(tmp_path_factory.mktemp("tiny") / "course")


def copy_repo(src: Path, dst: Path) -> Path:
    shutil.copytree(src, dst, symlinks=True)
    return dst


def break_package(pkg: Path, stubs: dict[str, str]) -> list[str]:
    "Replace the solution regions of the given tasks in the exported modules of `pkg` by `stubs[task]`."
    changed = []
    for py in pkg.rglob("*.py"):
        text = py.read_text()
        new, removed = C.blank_source(text, {}, set(stubs), str(py), stub=lambda t, ind: ind + stubs[t])
        if removed:
            py.write_text(new)
            changed += [r.task for r in removed]
    return changed


# ---------------------------------------------------------------------------------------------------------------
# The repository itself

def test_course_toml_agrees_with_notebooks_and_tests():
    "Every task has a region and tests; every region and mark has a task; markers are well formed."
    problems = C.check(ROOT)
    assert problems == [], "\n".join(problems)


def test_command_line_entry():
    res = subprocess.run([sys.executable, "-m", "minitorch.course", "--help"], capture_output=True, text=True,
                         cwd=ROOT)
    assert res.returncode == 0 and "student" in res.stdout and "grade" in res.stdout, res.stderr


# ---------------------------------------------------------------------------------------------------------------
# Markers

def test_find_regions_and_problems():
    ok = f"def f(x):\n    {B} 1.2\n    y = x\n    return y\n    {E} 1.2\n"
    regions, problems = C.find_regions(ok)
    assert problems == [] and [(r.task, r.start, r.end) for r in regions] == [("1.2", 1, 4)]
    bad = {
        "never closed": f"    {B} 1.1\n    pass\n",
        "without a BEGIN": f"    pass\n    {E} 1.1\n",
        "inside the region": f"    {B} 1.1\n    {B} 1.2\n    pass\n    {E} 1.2\n    {E} 1.1\n",
        "closes the region": f"    {B} 1.1\n    pass\n    {E} 1.2\n",
        "indentation": f"    {B} 1.1\n    pass\n{E} 1.1\n",
        "empty": f"    {B} 1.1\n\n    {E} 1.1\n",
        "malformed": "    # BEGIN SOLUTION: 1.1\n    pass\n",
    }
    for what, src in bad.items():
        _, problems = C.find_regions(src, "x")
        assert any(what in p for p in problems), (what, problems)


def test_blank_source_keeps_markers_and_indentation():
    new, removed = C.blank_source(CODE, {"0.1": "Addition", "0.2": "Countdown"})
    lines = new.splitlines()
    assert [r.task for r in removed] == ["0.1", "0.2"]
    assert lines[lines.index(f"    {B} 0.1") + 1] == '    raise NotImplementedError("Task 0.1: Addition")'
    assert lines[lines.index(f"        {B} 0.2") + 1] == \
        '        raise NotImplementedError("Task 0.2: Countdown")'
    assert '"Add two numbers."' in new and "def countdown(n: int) -> list[int]:" in new
    compile(new.replace("#| export", ""), "x", "exec")
    assert C.blank_source(CODE, {}, blank={"0.1"})[0].count("NotImplementedError") == 1


def test_blanked_tasks_edition_semantics():
    t = lambda i, a: C.Task(i, i, 1, "", a)
    course = C.Course(Path("."), [C.Assignment(1, "", 1, [], [t("1.1", 1), t("1.2", 1)]),
                                  C.Assignment(2, "", 2, [], [t("2.1", 2)]),
                                  C.Assignment(3, "", 3, [], [t("3.1", 3)])])
    ids = lambda ts: [x.id for x in ts]
    assert ids(C.blanked_tasks(course)) == ["1.1", "1.2", "2.1", "3.1"]
    assert ids(C.blanked_tasks(course, [2])) == ["2.1", "3.1"]        # the edition of assignment 2
    assert ids(C.blanked_tasks(course, [2], only=True)) == ["2.1"]
    assert ids(C.blanked_tasks(course, tasks=["1.2"])) == ["1.2"]
    with pytest.raises(ValueError): C.blanked_tasks(course, [7])


# ---------------------------------------------------------------------------------------------------------------
# The tiny course: check, student edition, grader

def test_tiny_check_finds_every_inconsistency(tiny, tmp_path):
    assert C.check(tiny) == []
    repo = copy_repo(tiny, tmp_path / "r")
    (repo / "course.toml").write_text(TOML.replace('id = "0.2"', 'id = "0.3"'))
    (repo / "tests" / "test_extra.py").write_text(f"import pytest\n\n@pytest.{M}0_9\ndef test_x(): pass\n")
    problems = "\n".join(C.check(repo))
    assert "task 0.3 (Countdown) has no solution region" in problems
    assert "task 0.3 (Countdown) has no test marked task0_3" in problems
    assert "region of task 0.2 has no task in course.toml" in problems
    assert "mark task0_9 has no task in course.toml" in problems


def test_tiny_check_rejects_a_region_that_is_not_a_block(tiny, tmp_path):
    repo = copy_repo(tiny, tmp_path / "r")
    nb = C.read_notebook(repo / "nbs" / "00_core.ipynb")
    nb["cells"][2]["source"] = nb["cells"][2]["source"].replace(
        f"    while n > 0:\n        {B} 0.2", f"    {B} 0.2\n    while n > 0:").replace(
        f"        {E} 0.2\n    return out", f"    {E} 0.2\n        return out")
    C.write_notebook(nb, repo / "nbs" / "00_core.ipynb")
    assert any("not valid Python once task(s) 0.2 are blanked" in p for p in C.check(repo))


@pytest.fixture(scope="module")
def tiny_student(tiny, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("tiny_student") / "student"
    ed = C.student_edition(tiny, out)
    assert [t.id for t in ed.blanked] == ["0.1", "0.2"] and ed.traces >= 2
    return out


def test_tiny_student_edition_contents(tiny, tiny_student):
    out = tiny_student
    assert (out / "README.md").exists() and (out / "tests" / "test_core.py").exists()
    assert not (out / "notes" / "private.md").exists() and not (out / ".git").exists()
    nb = C.read_notebook(out / "nbs" / "00_core.ipynb")
    assert all(c["outputs"] == [] and c["execution_count"] is None for c in nb["cells"] if c["cell_type"] == "code")
    assert nb["cells"][0]["source"] == "# Core\n\n> Two tiny tasks."
    code = nb["cells"][2]["source"]
    assert 'raise NotImplementedError("Task 0.1: Addition")' in code and '"Add two numbers."' in code
    assert "return total" not in code and "out.append(n)" not in code
    module = (out / "tiny" / "core.py").read_text()      # regenerated from the student's notebook
    assert 'raise NotImplementedError("Task 0.2: Countdown")' in module and "out.append(n)" not in module
    assert C.check(out) == []                              # markers stay: the edition is still a course


def test_tiny_student_edition_has_no_trace_of_solutions(tiny, tiny_student):
    solution = [l.strip() for l in CODE.splitlines()[3:6] + CODE.splitlines()[13:16] if B not in l and E not in l]
    for path in tiny_student.rglob("*"):
        if path.is_file():
            text = path.read_text(errors="ignore")
            for line in solution:
                if len(line) > 8: assert line not in text, (path, line)


def test_tiny_student_edition_refuses_to_leak(tiny, tmp_path):
    repo = copy_repo(tiny, tmp_path / "r")
    (repo / "scratch.py").write_text("def answer(n):\n    n = n - 1  # one step closer to zero\n")
    git_add_all(repo)
    with pytest.raises(RuntimeError, match="scratch.py:2"):
        C.student_edition(repo, tmp_path / "student", export=False)


def test_tiny_grade_solution_and_student(tiny, tiny_student, tmp_path):
    res = subprocess.run([sys.executable, "-m", "minitorch.course", "--root", str(tiny), "grade", "--jobs", "2",
                          "--json", str(tmp_path / "results.json")], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    assert "15/15" in res.stdout and "(100.0%)" in res.stdout
    results = json.loads((tmp_path / "results.json").read_text())
    assert results["score"] == 15 and set(results) >= {"score", "tests", "execution_time"}
    assert [(t["name"], t["score"], t["max_score"]) for t in results["tests"]] == \
        [("Task 0.1: Addition", 5, 5), ("Task 0.2: Countdown", 10, 10)]
    assert all(isinstance(t["output"], str) for t in results["tests"])
    student = C.grade(tiny, repo=tiny_student, jobs=2)
    assert student.score == 0 and [r.status for r in student.results] == ["failed", "failed"]
    assert all("NotImplementedError" in r.output for r in student.results)


def test_tiny_grade_survives_a_hang_and_a_crash(tiny, tmp_path):
    pkg = shutil.copytree(tiny / "tiny", tmp_path / "r" / "tiny")
    assert sorted(break_package(pkg, {"0.1": "import os; os._exit(3)", "0.2": "pass"})) == ["0.1", "0.2"]
    t0 = time.monotonic()
    rep = C.grade(tiny, repo=tmp_path / "r", timeout=3, jobs=2)
    assert time.monotonic() - t0 < 25
    assert [(r.task.id, r.status, r.score) for r in rep.results] == [("0.1", "error", 0), ("0.2", "timeout", 0)]
    assert "killed after 3 s" in rep.results[1].output


def test_tiny_grade_import_error_and_proportional(tiny, tmp_path):
    "(Without `preload`: every task in a fresh interpreter.)"
    tiny = copy_repo(tiny, tmp_path / "course")
    (tiny / "course.toml").write_text(TOML.replace("preload = []\n", ""))
    pkg = shutil.copytree(tiny / "tiny", tmp_path / "r" / "tiny")
    break_package(pkg, {"0.1": "return 5"})
    rep = C.grade(tiny, repo=tmp_path / "r", scoring="proportional", jobs=2)
    assert [(r.passed, r.total, r.score) for r in rep.results] == [(1, 2, 2.5), (1, 1, 10)]  # add(2, 3) == 5 passes
    (pkg / "core.py").write_text("def broken(:\n")
    rep = C.grade(tiny, repo=tmp_path / "r", jobs=2)
    assert [(r.status, r.score) for r in rep.results] == [("error", 0), ("error", 0)]
    assert "SyntaxError" in rep.results[0].output


# ---------------------------------------------------------------------------------------------------------------
# The first real assignment: the full solution, a fresh student edition, one broken task

COURSE = C.load_course(ROOT) if (ROOT / "course.toml").exists() else None
FIRST = COURSE.assignments[0] if COURSE and COURSE.assignments else None
needs_first = pytest.mark.skipif(FIRST is None or not all(t.id in C.find_marks(ROOT / "tests") for t in FIRST.tasks),
                                 reason="the first assignment has no tests yet")
JOBS = 2


@pytest.mark.slow
@needs_first
def test_first_assignment_full_solution_scores_100():
    rep = C.grade(ROOT, assignments=[FIRST.number], jobs=JOBS)
    assert rep.score == rep.max_score == FIRST.points, rep.table() + "\n" + "\n".join(
        r.output for r in rep.results if r.score < r.task.points)


@needs_first
def test_first_assignment_edition_has_no_trace_of_any_solution(tmp_path):
    "The edition handed out with the first assignment blanks every task, and no solution line survives."
    ed = C.student_edition(ROOT, tmp_path / "student", assignments=[FIRST.number], export=False)
    assert [t.id for t in ed.blanked] == list(COURSE.tasks) and ed.traces > 20


@pytest.fixture(scope="module")
def first_edition(tmp_path_factory):
    "A fresh student edition: every task blanked except the first half of the first assignment."
    kept = [t.id for t in FIRST.tasks[:max(1, len(FIRST.tasks) // 2)]]
    blank = [t for t in COURSE.tasks if t not in kept]
    out = tmp_path_factory.mktemp("edition") / "student"
    C.student_edition(ROOT, out, tasks=blank)
    return out, kept, blank


@needs_first
def test_first_assignment_student_edition_imports_and_has_no_solutions(first_edition):
    out, kept, blank = first_edition
    res = subprocess.run([sys.executable, "-c", "import minitorch, sys; print(minitorch.__file__)"],
                         cwd=out, env={**os.environ, "PYTHONPATH": str(out)}, capture_output=True, text=True)
    assert res.returncode == 0 and res.stdout.startswith(str(out)), res.stderr[-3000:]
    assert not (out / "tests" / "test_course.py").exists()
    # every line of a blanked solution longer than a trivial token, searched in every file of the edition
    public = set()
    for nb in (out / "nbs").glob("*.ipynb"):
        public |= {l.strip() for c in C.read_notebook(nb)["cells"] for l in c["source"].splitlines()}
    for py in (ROOT / "tests").rglob("*.py"):
        public |= {l.strip() for l in py.read_text().splitlines()}
    inv = C.scan(ROOT)
    secret = {l.strip() for t in blank for r in inv.regions[t] for l in r.body
              if len(l.strip()) >= 12 and l.strip() not in public}
    assert len(secret) > 10
    assert C.find_traces(out, secret) == []
    stubs = "".join(p.read_text() for p in (out / "minitorch").rglob("*.py"))
    for t in blank:  # (an edition holds the notebooks git tracks)
        if (out / "nbs" / f"{COURSE.tasks[t].chapter}.ipynb").exists():
            assert f'raise NotImplementedError("Task {t}: {COURSE.tasks[t].title}")' in stubs, t


@pytest.mark.slow
@needs_first
def test_first_assignment_student_edition_scores_blanked_0_kept_full(first_edition):
    out, kept, blank = first_edition
    rep = C.grade(ROOT, repo=out, assignments=[FIRST.number], jobs=JOBS)
    for r in rep.results:
        if r.task.id in kept: assert r.score == r.task.points, r.output
        else:
            assert r.score == 0 and r.passed == 0, r.output
            assert "NotImplementedError" in r.output and f"Task {r.task.id}" in r.output, r.output


@pytest.mark.slow
@needs_first
def test_first_assignment_one_broken_task_loses_exactly_its_points(tmp_path):
    victim = FIRST.tasks[-1]
    shutil.copytree(ROOT / "minitorch", tmp_path / "minitorch")
    assert victim.id in break_package(tmp_path / "minitorch",
                                      {victim.id: "raise ArithmeticError('broken on purpose')"})
    rep = C.grade(ROOT, repo=tmp_path, assignments=[FIRST.number], jobs=JOBS)
    lost = {r.task.id: r.task.points - r.score for r in rep.results}
    assert lost == {t.id: (t.points if t is victim else 0) for t in FIRST.tasks}, rep.table()
