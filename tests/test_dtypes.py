"""Dtypes (chapter 3): the dtype objects, finfo/iinfo, promote_types, result_type, can_cast, default dtype.

torch is the oracle everywhere: the full 13x13 tables and every pair of operand kinds are compared.
"""
import copy
import pickle
import warnings

import ml_dtypes
import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import minitorch.dtypes as mt

pytestmark = pytest.mark.filterwarnings("ignore:ComplexHalf support is experimental")

ALL = [mt.bool, mt.uint8, mt.int8, mt.int16, mt.int32, mt.int64, mt.float16, mt.bfloat16,
       mt.float32, mt.float64, mt.complex32, mt.complex64, mt.complex128]
TORCH = {d: getattr(torch, d.name) for d in ALL}
FLOAT_DEFAULTS = [mt.float32, mt.float64, mt.float16, mt.bfloat16]


@pytest.fixture
def restore_default():
    "Restore both libraries' default dtype after a test that changes it."
    yield
    mt.set_default_dtype(mt.float32)
    torch.set_default_dtype(torch.float32)


class FakeTensor:
    "Just what result_type reads: a dtype and a number of dimensions."
    def __init__(self, dtype, ndim):
        self.dtype, self.ndim = dtype, ndim


SCALARS = {mt.bool: True, mt.int64: 7, mt.float32: 2.5, mt.complex64: 1.5j}
KINDS = [(d, k) for d in ALL for k in ("dim", "0d")] + [(d, "scalar") for d in SCALARS]


def mt_operand(d, kind):
    return SCALARS[d] if kind == "scalar" else FakeTensor(d, 1 if kind == "dim" else 0)


def torch_operand(d, kind):
    if kind == "scalar":
        return SCALARS[d]
    return torch.zeros((3,) if kind == "dim" else (), dtype=TORCH[d])


# ---------------------------------------------------------------- the dtype objects
def test_names_and_aliases():
    assert [d.name for d in ALL] == [str(TORCH[d]).removeprefix("torch.") for d in ALL]
    assert mt.half is mt.float16 and mt.float is mt.float32 and mt.double is mt.float64
    assert mt.chalf is mt.complex32 and mt.cfloat is mt.complex64 and mt.cdouble is mt.complex128
    assert repr(mt.float32) == "minitorch.float32" and repr(mt.chalf) == "minitorch.complex32"


@pytest.mark.parametrize("d", ALL, ids=lambda d: d.name)
def test_flags_match_torch(d):
    t = TORCH[d]
    assert (d.itemsize, d.is_floating_point, d.is_complex, d.is_signed) == \
        (t.itemsize, t.is_floating_point, t.is_complex, t.is_signed)


def test_singletons_hash_pickle():
    for d in ALL:
        assert pickle.loads(pickle.dumps(d)) is d
        assert copy.deepcopy(d) is d and copy.copy(d) is d
    assert len({*ALL}) == 13 and {mt.float: 1}[mt.float32] == 1
    assert mt.float32 == mt.float and mt.float32 != mt.float64


def test_numpy_dtypes():
    expected = [np.bool_, np.uint8, np.int8, np.int16, np.int32, np.int64, np.float16,
                ml_dtypes.bfloat16, np.float32, np.float64, None, np.complex64, np.complex128]
    for d, e in zip(ALL, expected):
        assert (d.numpy_dtype is None) if e is None else d.numpy_dtype == np.dtype(e)
        if e is not None:
            assert mt.from_numpy_dtype(e) is d
            assert mt.from_numpy_dtype(np.zeros(2, dtype=e).dtype) is d
            assert np.dtype(e).itemsize == d.itemsize


@pytest.mark.parametrize("bad", [np.uint32, np.uint16, np.float128 if hasattr(np, "float128") else "U3",
                                 object, "U3"])
def test_from_numpy_dtype_rejects(bad):
    with pytest.raises(TypeError):
        mt.from_numpy_dtype(bad)


def test_to_real_to_complex():
    for d in ALL:
        if d.is_floating_point or d.is_complex:
            assert TORCH[d.to_complex()] == TORCH[d].to_complex()
        if d.is_complex:
            assert TORCH[d.to_real()] == TORCH[d].to_real()


# ---------------------------------------------------------------- finfo / iinfo
@pytest.mark.parametrize("d", [d for d in ALL if d.is_floating_point or d.is_complex], ids=lambda d: d.name)
def test_finfo(d):
    a, b = mt.finfo(d), torch.finfo(TORCH[d])
    for k in ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution", "dtype"):
        assert getattr(a, k) == getattr(b, k), k
    assert repr(a) == repr(b)


def test_finfo_default_and_reference_values(restore_default):
    assert mt.finfo().dtype == "float32"
    mt.set_default_dtype(mt.float64)
    assert mt.finfo().dtype == "float64"
    f16, bf16 = mt.finfo(mt.float16), mt.finfo(mt.bfloat16)
    assert (f16.eps, f16.max, f16.tiny) == (2 ** -10, 65504.0, 2 ** -14)
    assert (bf16.eps, bf16.max) == (2 ** -7, 3.3895313892515355e38)
    assert f16.max == float(np.finfo(np.float16).max) and bf16.max == float(ml_dtypes.finfo(ml_dtypes.bfloat16).max)


@pytest.mark.parametrize("d", [d for d in ALL if d.name.startswith(("int", "uint"))], ids=lambda d: d.name)
def test_iinfo(d):
    a, b = mt.iinfo(d), torch.iinfo(TORCH[d])
    for k in ("bits", "max", "min", "dtype"):
        assert getattr(a, k) == getattr(b, k), k
    assert repr(a) == repr(b)


def test_info_errors():
    for d in [mt.bool, mt.int32, mt.uint8]:
        with pytest.raises(TypeError, match="floating point"):
            mt.finfo(d)
    for d in [mt.bool, mt.float32, mt.complex64]:
        with pytest.raises(TypeError, match="integer"):
            mt.iinfo(d)


# ---------------------------------------------------------------- promote_types / can_cast
@pytest.mark.task3_1
@pytest.mark.parametrize("a", ALL, ids=lambda d: d.name)
def test_promote_types_table(a):
    for b in ALL:
        got = mt.promote_types(a, b)
        assert isinstance(got, mt.dtype)
        assert TORCH[got] == torch.promote_types(TORCH[a], TORCH[b]), (a, b, got)


@pytest.mark.task3_1
def test_promote_types_examples():
    P = mt.promote_types
    assert P(mt.uint8, mt.int8) is mt.int16 and P(mt.bool, mt.uint8) is mt.uint8
    assert P(mt.int64, mt.float16) is mt.float16 and P(mt.float16, mt.bfloat16) is mt.float32
    assert P(mt.float16, mt.complex64) is mt.complex64 and P(mt.float64, mt.complex64) is mt.complex128
    assert P(mt.float16, mt.complex32) is mt.complex32 and P(mt.bfloat16, mt.complex32) is mt.complex64


@pytest.mark.task3_1
@settings(max_examples=50, deadline=None)
@given(st.sampled_from(ALL), st.sampled_from(ALL), st.sampled_from(ALL))
def test_promote_types_lattice(a, b, c):
    P = mt.promote_types
    assert P(a, b) is P(b, a) and P(a, a) is a
    assert P(P(a, b), c) is P(a, P(b, c))
    assert mt.can_cast(a, P(a, b)) and mt.can_cast(b, P(a, b))


def test_can_cast_table():
    for a in ALL:
        for b in ALL:
            assert mt.can_cast(a, b) == torch.can_cast(TORCH[a], TORCH[b]), (a, b)


# ---------------------------------------------------------------- result_type
@pytest.mark.task3_2
@pytest.mark.parametrize("default", FLOAT_DEFAULTS, ids=lambda d: d.name)
def test_result_type_all_pairs(default, restore_default):
    "Every pair of (dtype, kind) operands, kinds being dimensioned, 0-d and Python scalar."
    mt.set_default_dtype(default)
    torch.set_default_dtype(TORCH[default])
    for a in KINDS:
        for b in KINDS:
            got = mt.result_type(mt_operand(*a), mt_operand(*b))
            want = torch.result_type(torch_operand(*a), torch_operand(*b))
            assert TORCH[got] == want, (a, b, got, want)


@pytest.mark.task3_2
def test_result_type_examples():
    R, T = mt.result_type, FakeTensor
    assert R(T(mt.int32, 1), 2.5) is mt.float32 and R(T(mt.float16, 1), 2.5) is mt.float16
    assert R(T(mt.uint8, 1), 1000) is mt.uint8 and R(T(mt.bool, 1), True) is mt.bool
    assert R(T(mt.bool, 1), 1) is mt.int64
    assert R(T(mt.float16, 1), T(mt.float64, 0)) is mt.float16
    assert R(T(mt.int32, 2), T(mt.float64, 0)) is mt.float64
    assert R(T(mt.int32, 1), T(mt.int64, 0)) is mt.int32
    assert R(T(mt.bool, 1), T(mt.int64, 0)) is mt.int64
    assert R(T(mt.uint8, 1), T(mt.int8, 0)) is mt.uint8 and R(T(mt.uint8, 1), T(mt.int8, 1)) is mt.int16
    assert R(T(mt.float16, 1), T(mt.complex128, 0)) is mt.complex32
    assert R(T(mt.float32, 1), T(mt.complex128, 0)) is mt.complex64
    assert R(T(mt.float64, 1), T(mt.complex64, 0)) is mt.complex128
    assert R(T(mt.int32, 1), T(mt.complex128, 0)) is mt.complex128
    assert R(T(mt.int64, 1), 1j) is mt.complex64 and R(T(mt.float16, 1), 1j) is mt.complex32
    assert R(T(mt.float64, 0), T(mt.float32, 0)) is mt.float64
    assert R(1, 2) is mt.int64 and R(True, 2.5) is mt.float32 and R(1, 1j) is mt.complex64


@pytest.mark.task3_2
def test_result_type_default_dtype(restore_default):
    R, T = mt.result_type, FakeTensor
    mt.set_default_dtype(mt.float64)
    assert R(T(mt.int32, 1), 2.5) is mt.float64 and R(T(mt.int32, 1), 1j) is mt.complex128
    mt.set_default_dtype(mt.float16)
    assert R(T(mt.int32, 1), 1j) is mt.complex32
    mt.set_default_dtype(mt.bfloat16)
    assert R(T(mt.int32, 1), 1j) is mt.complex64


def _torch_fold(ops):
    "torch.result_type is binary; torch.addcmul computes one common dtype for three operands."
    a, b, c = ops
    return torch.addcmul(a, b, c).dtype


@pytest.mark.task3_2
@settings(max_examples=50, deadline=None)
@given(st.lists(st.tuples(st.sampled_from([mt.uint8, mt.int8, mt.int32, mt.int64, mt.float16, mt.bfloat16,
                                           mt.float32, mt.float64, mt.complex64, mt.complex128]),
                          st.sampled_from(["dim", "0d"])), min_size=3, max_size=3))
def test_result_type_three_tensors(ops):
    "Three tensors of mixed groups, against the common dtype torch.addcmul picks."
    tops = [torch_operand(*o) for o in ops]
    try:
        want = _torch_fold(tops)
    except RuntimeError:  # dtype combination addcmul does not implement, or cannot cast
        return
    got = mt.result_type(*[mt_operand(*o) for o in ops])
    assert TORCH[got] == want, (ops, got, want)


@pytest.mark.task3_2
@settings(max_examples=50, deadline=None)
@given(st.sampled_from(["dim", "0d", "scalar"]), st.lists(st.integers(0, 12), min_size=1, max_size=5))
def test_result_type_one_group(kind, idx):
    "Within one group result_type is plain promote_types, folded over the operands."
    ds = [ALL[i] for i in idx] if kind != "scalar" else [list(SCALARS)[i % 4] for i in idx]
    got = mt.result_type(*[mt_operand(d, kind) for d in ds])
    want = torch_operand(ds[0], kind)
    want = want.dtype if kind != "scalar" else torch.tensor(want).dtype
    for d in ds[1:]:
        want = torch.promote_types(want, TORCH[mt.scalar_type(SCALARS[d])] if kind == "scalar" else TORCH[d])
    assert TORCH[got] == want


def test_result_type_errors():
    with pytest.raises(TypeError):
        mt.result_type(FakeTensor(mt.float32, 1), "a")
    with pytest.raises(TypeError):
        mt.result_type()


# ---------------------------------------------------------------- default dtype, scalar_type, compute_dtype
@pytest.mark.parametrize("d", ALL, ids=lambda d: d.name)
def test_set_default_dtype_matches_torch(d, restore_default):
    try:
        torch.set_default_dtype(TORCH[d])
        ok = True
    except TypeError:
        ok = False
    if ok:
        mt.set_default_dtype(d)
        assert mt.get_default_dtype() is d
        assert TORCH[mt.scalar_type(2.5)] == torch.tensor(2.5).dtype
        if d is not mt.bfloat16:   # torch.tensor(1j) raises under a bfloat16 default
            assert TORCH[mt.scalar_type(1j)] == torch.tensor(1j).dtype
    else:
        with pytest.raises(TypeError, match="floating-point"):
            mt.set_default_dtype(d)
        assert mt.get_default_dtype() is mt.float32


def test_set_default_dtype_rejects_non_dtype(restore_default):
    with pytest.raises(TypeError):
        mt.set_default_dtype(np.float64)


def test_scalar_type():
    assert [mt.scalar_type(v) for v in (True, 3, 2.5, 1j)] == [mt.bool, mt.int64, mt.float32, mt.complex64]
    assert mt.scalar_type(np.bool_(True)) is mt.bool
    with pytest.raises(TypeError):
        mt.scalar_type("x")


def test_compute_dtype():
    expected = {mt.float16: mt.float32, mt.bfloat16: mt.float32, mt.complex32: mt.complex64}
    for d in ALL:
        assert mt.compute_dtype(d) is expected.get(d, d)
