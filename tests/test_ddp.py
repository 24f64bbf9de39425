"""DistributedDataParallel on real processes: equal to single-process training after every step, PyTorch's bucket
boundaries, no_sync, unused parameters and communication hooks; bucket assignment against torch's own function."""
import os
import sys

import pytest
import torch
import torch.distributed as tdist

import minitorch as mt
from minitorch.nn.parallel import compute_bucket_assignment_by_size

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dist_launch import launch_cases  # noqa: E402

pytestmark = pytest.mark.dist


def launch(nproc, case, timeout=150):
    launch_cases("ddp.py", nproc, [case], timeout)


@pytest.mark.parametrize("nproc,case", [(2, "equal"), (3, "equal"), (2, "bucket_view"), (3, "tiny_buckets"),
                                        (2, "buckets"), (2, "no_sync"), (2, "unused"), (2, "hooks")])
def test_ddp(nproc, case):
    launch(nproc, case)


@pytest.mark.parametrize("sizes,limits", [
    ([4000000, 4000, 1200000, 1200, 12000, 40], [1 << 20, 25 << 20]),
    ([40, 12000, 1200, 1200000, 4000, 4000000], [1 << 20, 25 << 20]),
    ([400] * 50, [1000, 5000]),
    ([8, 16, 1 << 22, 4, 1 << 10], [1 << 12]),
])
def test_bucket_assignment_matches_torch(sizes, limits):
    mine = compute_bucket_assignment_by_size([mt.empty(s // 4) for s in sizes], limits)
    theirs = tdist._compute_bucket_assignment_by_size([torch.empty(s // 4) for s in sizes], limits)
    assert mine == (theirs[0], list(theirs[1]))


def test_bucket_assignment_separates_dtypes():
    ts = [mt.empty(10), mt.empty(10, dtype=mt.float64), mt.empty(10)]
    tts = [torch.empty(10), torch.empty(10, dtype=torch.float64), torch.empty(10)]
    assert compute_bucket_assignment_by_size(ts, [1 << 20])[0] == tdist._compute_bucket_assignment_by_size(tts, [1 << 20])[0]
