"""Chapter 1: operators, central differences and `Scalar` autodiff, with PyTorch (float64) as oracle."""
import math

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from minitorch import scalar as ops
from minitorch.scalar import (EQ, LT, Add, Context, Exp, Inv, Log, Mul, Neg, Pow, ReLU, Scalar,
                              Sigmoid, backpropagate, central_difference, derivative_check,
                              topological_sort)

fast = settings(max_examples=30, deadline=None)
small = st.floats(-100.0, 100.0, allow_nan=False)
wide = st.floats(-1e4, 1e4, allow_nan=False)
positive = st.floats(0.1, 100.0)
nonzero = small.filter(lambda x: abs(x) > 0.1)
moderate = st.floats(-3.0, 3.0, allow_nan=False)


def close(a: float, b: float, rel: float = 1e-9, abs_: float = 1e-12) -> bool:
    "Equal within float64 rounding, treating nan == nan and inf == inf."
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return a == b or math.isclose(a, b, rel_tol=rel, abs_tol=abs_)


def t(v: float, grad: bool = False) -> torch.Tensor:
    return torch.tensor(v, dtype=torch.float64, requires_grad=grad)


def torch_grad(fn, *vals: float) -> list[float]:
    "Gradients of torch's `fn` (float64) at `vals`."
    ts = [t(v, grad=True) for v in vals]
    out = fn(*ts)
    grads = torch.autograd.grad(out, ts, allow_unused=True)
    return [0.0 if g is None else g.item() for g in grads]


# ---------------------------------------------------------------- operators given in the chapter (no task)

@fast
@given(small, small)
def test_arithmetic_operators(x, y):
    assert ops.mul(x, y) == x * y == ops.mul(y, x)
    assert ops.add(x, y) == x + y == ops.add(y, x)
    assert ops.neg(x) == -x and ops.add(x, ops.neg(x)) == 0.0
    assert ops.mul(x, 1.0) == x


@fast
@given(small, small)
def test_comparison_operators(x, y):
    assert ops.lt(x, y) + ops.lt(y, x) + ops.eq(x, y) == 1.0
    assert ops.eq(x, x) == 1.0 and ops.lt(x, x) == 0.0
    assert ops.max(x, y) == max(x, y) and ops.max(x, y) in (x, y)


@fast
@given(small, st.floats(-1e-3, 1e-3))
def test_is_close_matches_torch(x, delta):
    for y in (x, x + delta, x * (1 + 1e-6), x + 1.0):
        assert ops.is_close(x, y) == torch.isclose(t(x), t(y)).item()


@fast
@given(st.floats(-700.0, 700.0))
def test_log_exp_inv_match_torch(x):
    assert close(ops.exp(x), torch.exp(t(x)).item())
    assert close(ops.log(x), torch.log(t(x)).item())
    assert close(ops.inv(x), torch.reciprocal(t(x)).item())


@pytest.mark.parametrize("x", [0.0, -0.0, -1.0, 1e-320, 1000.0, -1000.0, math.inf, -math.inf])
def test_log_exp_inv_edge_cases_match_torch(x):
    assert close(ops.log(x), torch.log(t(x)).item())
    assert close(ops.exp(x), torch.exp(t(x)).item())
    assert close(ops.inv(x), torch.reciprocal(t(x)).item())


@fast
@given(st.lists(small, max_size=10), st.lists(small, max_size=10))
def test_map_zipwith_reduce(xs, ys):
    assert ops.map(ops.neg)(xs) == [-x for x in xs]
    n = min(len(xs), len(ys))
    assert ops.zipWith(ops.add)(xs[:n], ys[:n]) == [x + y for x, y in zip(xs, ys)]
    assert ops.reduce(ops.add, 0.0)(xs) == pytest.approx(math.fsum(xs), abs=1e-9)
    assert ops.reduce(ops.mul, 1.0)([]) == 1.0


# ---------------------------------------------------------------- task 1.1: sigmoid, relu and the *_back helpers

@pytest.mark.task1_1
@fast
@given(wide)
def test_sigmoid_matches_torch(x):
    s = ops.sigmoid(x)
    assert close(s, torch.sigmoid(t(x)).item(), rel=1e-12, abs_=1e-300)
    assert 0.0 <= s <= 1.0
    assert close(ops.sigmoid(-x), 1.0 - s, rel=1e-9, abs_=1e-12)


@pytest.mark.task1_1
@pytest.mark.parametrize("x", [-1e308, -1000.0, -745.0, -40.0, 0.0, 40.0, 1000.0, 1e308])
def test_sigmoid_is_stable(x):
    # no OverflowError, and the same value as torch
    assert close(ops.sigmoid(x), torch.sigmoid(t(x)).item(), rel=1e-12, abs_=1e-300)


@pytest.mark.task1_1
@fast
@given(small, small)
def test_sigmoid_is_monotone(x, y):
    if x < y:
        assert ops.sigmoid(x) <= ops.sigmoid(y)


@pytest.mark.task1_1
@fast
@given(small)
def test_relu_matches_torch(x):
    assert ops.relu(x) == torch.relu(t(x)).item()
    assert ops.relu(0.0) == 0.0


@pytest.mark.task1_1
@fast
@given(small, small)
def test_relu_back_matches_torch(x, d):
    (g,) = torch_grad(lambda a: torch.relu(a) * d, x)
    assert ops.relu_back(x, d) == g
    assert ops.relu_back(0.0, d) == 0.0


@pytest.mark.task1_1
@fast
@given(positive, small)
def test_log_back_matches_torch(x, d):
    (g,) = torch_grad(lambda a: torch.log(a) * d, x)
    assert close(ops.log_back(x, d), g)


@pytest.mark.task1_1
@fast
@given(nonzero, small)
def test_inv_back_matches_torch(x, d):
    (g,) = torch_grad(lambda a: torch.reciprocal(a) * d, x)
    assert close(ops.inv_back(x, d), g)


# ---------------------------------------------------------------- task 1.2: central differences

@pytest.mark.task1_2
@fast
@given(moderate)
def test_central_difference_one_argument(x):
    assert central_difference(math.exp, x) == pytest.approx(math.exp(x), rel=1e-6)
    assert central_difference(math.sin, x) == pytest.approx(math.cos(x), abs=1e-6)
    assert central_difference(lambda a: a * a * a, x) == pytest.approx(3 * x * x, abs=1e-5)


@pytest.mark.task1_2
@fast
@given(moderate, moderate, moderate)
def test_central_difference_picks_the_argument(x, y, z):
    def f(a, b, c):
        return a * b + b * b * c + math.sin(c)
    assert central_difference(f, x, y, z, arg=0) == pytest.approx(y, abs=1e-5)
    assert central_difference(f, x, y, z, arg=1) == pytest.approx(x + 2 * y * z, abs=1e-5)
    assert central_difference(f, x, y, z, arg=2) == pytest.approx(y * y + math.cos(z), abs=1e-5)


@pytest.mark.task1_2
def test_central_difference_is_central_and_uses_epsilon():
    # exact for quadratics whatever the step: a one-sided difference would be off by epsilon
    assert central_difference(lambda a: a * a, 1.0, epsilon=0.5) == pytest.approx(2.0, abs=1e-12)
    cube = central_difference(lambda a: a * a * a, 0.0, epsilon=0.1)
    assert cube == pytest.approx(0.01, abs=1e-12)


# ---------------------------------------------------------------- Scalar forward values (given code)

UNARY = [  # (name, minitorch, torch, strategy)
    ("neg", lambda a: -a, lambda a: -a, small),
    ("log", lambda a: a.log(), torch.log, positive),
    ("exp", lambda a: a.exp(), torch.exp, moderate),
    ("inv", lambda a: 1 / a, lambda a: 1 / a, nonzero),
    ("square", lambda a: a**2, lambda a: a**2, small),
    ("pow_frac", lambda a: a**1.5, lambda a: a**1.5, positive),
    ("pow_neg", lambda a: a**-2, lambda a: a**-2, nonzero),
    ("exp2", lambda a: 2**a, lambda a: 2**a, moderate),
    ("add_const", lambda a: 3 + a - 1.5, lambda a: 3 + a - 1.5, small),
    ("mul_const", lambda a: 2 * a / 4, lambda a: 2 * a / 4, small),
]
UNARY_TASK1 = [
    ("sigmoid", lambda a: a.sigmoid(), torch.sigmoid, small),
    ("relu", lambda a: a.relu(), torch.relu, small),
]
BINARY = [  # (name, function written for both, strategy of the second argument)
    ("add", lambda a, b: a + b, small),
    ("sub", lambda a, b: a - b, small),
    ("mul", lambda a, b: a * b, small),
    ("div", lambda a, b: a / b, nonzero),
    ("lt", lambda a, b: a < b, small),
    ("gt", lambda a, b: a > b, small),
    ("eq", lambda a, b: a == b, small),
    ("pow", lambda a, b: a**b, moderate),
]
COMPOSITE = [  # functions of two arguments in [-3, 3], written for both libraries
    ("poly", lambda x, y: x * x * y + 3 * x - y / 2),
    ("log_exp", lambda x, y: (x * x + 1).log() * (y * 0.5).exp()),
    ("sigmoid_relu", lambda x, y: (x * y).sigmoid() + (x - y).relu() * 2),
    ("division", lambda x, y: x / (y * y + 1) - 1 / (x * x + 2)),
    ("power", lambda x, y: (x * x + 1) ** 1.5 + y**3),
    ("compare", lambda x, y: (x < y) * x + (x > y) * y * y + (x == y)),
    ("reuse", lambda x, y: -(x - y) * (2 - x) * x),
    ("deep", lambda x, y: ((x * y).sigmoid() * x + y).relu().exp().log() / (1 + y * y)),
]


def as_float(v) -> float:
    return float(v.item() if isinstance(v, torch.Tensor) else v.data)


@pytest.mark.parametrize("name,fn,tfn,values", UNARY, ids=[u[0] for u in UNARY])
@fast
@given(data=st.data())
def test_scalar_unary_forward(name, fn, tfn, values, data):
    x = data.draw(values)
    assert close(fn(Scalar(x)).data, as_float(tfn(t(x))))


@pytest.mark.task1_1
@pytest.mark.parametrize("name,fn,tfn,values", UNARY_TASK1, ids=[u[0] for u in UNARY_TASK1])
@fast
@given(data=st.data())
def test_scalar_unary_forward_task1(name, fn, tfn, values, data):
    x = data.draw(values)
    assert close(fn(Scalar(x)).data, as_float(tfn(t(x))))


@pytest.mark.parametrize("name,fn,values", BINARY, ids=[b[0] for b in BINARY])
@fast
@given(data=st.data())
def test_scalar_binary_forward(name, fn, values, data):
    x = data.draw(positive if name == "pow" else small)
    y = data.draw(values)
    assert close(fn(Scalar(x), Scalar(y)).data, as_float(fn(t(x), t(y))))
    assert close(fn(Scalar(x), y).data, as_float(fn(t(x), y)))  # Python number on the right
    assert close(fn(x, Scalar(y)).data, as_float(fn(x, t(y))))  # ... and on the left


def test_scalar_records_history():
    x, y = Scalar(2.0), Scalar(3.0)
    z = x * y
    assert x.is_leaf and not z.is_leaf and z.history.last_fn is Mul
    assert [p.unique_id for p in z.parents] == [x.unique_id, y.unique_id]
    c = x * 2
    assert c.parents[1].requires_grad is False and c.requires_grad
    k = Scalar(1.0, requires_grad=False) + 2
    assert k.is_leaf and not k.requires_grad  # no input needs a gradient: no history
    assert z.item() == 6.0 and float(z) == 6.0 and "Mul" in repr(z)


def test_context_saves_only_when_needed():
    ctx = Context()
    ctx.save_for_backward(1.0, 2.0)
    assert ctx.saved_values == (1.0, 2.0) == ctx.saved_tensors
    ctx = Context(no_grad=True)
    ctx.save_for_backward(1.0)
    assert ctx.saved_values == ()


# ---------------------------------------------------------------- backward rules, one node at a time

def local_grads(fn, *vals: float) -> list[float]:
    "Derivatives of one `fn` node with respect to its inputs, through `chain_rule` only."
    out = fn.apply(*[Scalar(v) for v in vals])
    return [g for _, g in out.chain_rule(1.0)]


GIVEN_RULES = [
    (Add, torch.add, (small, small)),
    (Neg, torch.neg, (small,)),
    (Pow, torch.pow, (positive, moderate)),
    (LT, torch.lt, (small, small)),
    (EQ, torch.eq, (small, small)),
]
TASK_RULES = [
    (Mul, torch.mul, (small, small)),
    (Inv, torch.reciprocal, (nonzero,)),
    (Log, torch.log, (positive,)),
    (Exp, torch.exp, (moderate,)),
    (Sigmoid, torch.sigmoid, (small,)),
    (ReLU, torch.relu, (small,)),
]


def check_rule(fn, tfn, strategies, data):
    vals = [data.draw(s) for s in strategies]
    d = data.draw(moderate)
    out = fn.apply(*[Scalar(v) for v in vals])
    got = [g for _, g in out.chain_rule(d)]
    if tfn in (torch.lt, torch.eq):  # torch comparisons have no gradient: ours is zero
        expected = [0.0] * len(vals)
    else:
        expected = torch_grad(lambda *a: tfn(*a) * d, *vals)
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        assert close(g, e, rel=1e-9, abs_=1e-12), (fn.__name__, vals, d, got, expected)


@pytest.mark.parametrize("fn,tfn,strategies", GIVEN_RULES, ids=[r[0].__name__ for r in GIVEN_RULES])
@fast
@given(data=st.data())
def test_given_backward_rules(fn, tfn, strategies, data):
    check_rule(fn, tfn, strategies, data)


@pytest.mark.task1_3
@pytest.mark.parametrize("fn,tfn,strategies", TASK_RULES, ids=[r[0].__name__ for r in TASK_RULES])
@fast
@given(data=st.data())
def test_backward_rules(fn, tfn, strategies, data):
    check_rule(fn, tfn, strategies, data)


@pytest.mark.task1_3
def test_backward_rules_at_special_points():
    assert local_grads(ReLU, 0.0) == [0.0]  # PyTorch's choice at the kink
    assert local_grads(Sigmoid, 0.0) == [0.25]
    assert local_grads(Sigmoid, -1000.0) == [0.0] and local_grads(Sigmoid, 1000.0) == [0.0]
    assert local_grads(Mul, 3.0, 3.0) == [3.0, 3.0]


# ---------------------------------------------------------------- task 1.4: topological sort

def random_graph(data) -> tuple[Scalar, list[Scalar]]:
    "A random expression over 3 leaves, some values reused, some constants mixed in."
    leaves = [Scalar(data.draw(moderate), name=f"x{i}") for i in range(3)]
    pool = list(leaves)
    for _ in range(data.draw(st.integers(1, 15))):
        a = data.draw(st.sampled_from(pool))
        b = data.draw(st.sampled_from(pool + [2.0]))
        op = data.draw(st.sampled_from(["add", "mul", "sub", "sig", "relu", "neg"]))
        node = {"add": lambda: a + b, "mul": lambda: a * b, "sub": lambda: a - b,
                "sig": lambda: a.sigmoid(), "relu": lambda: a.relu(), "neg": lambda: -a}[op]()
        pool.append(node)
    return pool[-1], leaves


def reachable(root: Scalar) -> dict[int, Scalar]:
    seen, stack = {}, [root]
    while stack:
        n = stack.pop()
        if n.unique_id not in seen and n.requires_grad:
            seen[n.unique_id] = n
            stack.extend(n.parents)
    return seen


@pytest.mark.task1_4
@settings(max_examples=50, deadline=None)
@given(data=st.data())
def test_topological_sort_order(data):
    root, _ = random_graph(data)
    order = topological_sort(root)
    ids = [n.unique_id for n in order]
    assert ids[0] == root.unique_id
    assert len(ids) == len(set(ids)), "each node appears once"
    assert set(ids) == set(reachable(root)), "exactly the reachable nodes that require grad"
    position = {i: k for k, i in enumerate(ids)}
    for n in order:
        for p in n.parents:
            if p.requires_grad:
                assert position[n.unique_id] < position[p.unique_id], "node after a parent"


@pytest.mark.task1_4
def test_topological_sort_diamond_and_constants():
    x = Scalar(1.0)
    a, b = x * 2, x + 3
    c = a * b
    order = topological_sort(c)
    ids = [n.unique_id for n in order]
    assert ids[0] == c.unique_id and ids[-1] == x.unique_id and len(ids) == 4
    assert all(n.requires_grad for n in order)
    assert [n.unique_id for n in topological_sort(x)] == [x.unique_id]


@pytest.mark.task1_4
def test_topological_sort_long_chain():
    x = Scalar(0.5)
    y = x
    for _ in range(300):
        y = y * 1.0 + x
    order = topological_sort(y)
    assert len(order) == 601 and order[0] is y and order[-1] is x


# ---------------------------------------------------------------- task 1.5: backpropagation

@pytest.mark.task1_5
@pytest.mark.parametrize("name,fn,tfn,values", UNARY + UNARY_TASK1,
                         ids=[u[0] for u in UNARY + UNARY_TASK1])
@fast
@given(data=st.data())
def test_scalar_unary_backward_matches_torch(name, fn, tfn, values, data):
    x0 = data.draw(values)
    x = Scalar(x0)
    fn(x).backward()
    (expected,) = torch_grad(tfn, x0)
    assert close(x.grad, expected)


@pytest.mark.task1_5
@pytest.mark.parametrize("name,fn,values", BINARY, ids=[b[0] for b in BINARY])
@fast
@given(data=st.data())
def test_scalar_binary_backward_matches_torch(name, fn, values, data):
    x0 = data.draw(positive if name == "pow" else small)
    y0 = data.draw(values)
    x, y = Scalar(x0), Scalar(y0)
    out = fn(x, y)
    out.backward()
    if name in ("lt", "gt", "eq"):  # no gradient flows through comparisons
        assert x.grad == 0.0 and y.grad == 0.0
        return
    gx, gy = torch_grad(fn, x0, y0)
    assert close(x.grad, gx) and close(y.grad, gy)


@pytest.mark.task1_5
@pytest.mark.parametrize("name,fn", COMPOSITE, ids=[c[0] for c in COMPOSITE])
@fast
@given(moderate, moderate)
def test_composite_backward_matches_torch(name, fn, x0, y0):
    x, y = Scalar(x0), Scalar(y0)
    out = fn(x, y)
    out.backward()
    tx, ty = t(x0, grad=True), t(y0, grad=True)
    tout = fn(tx, ty)
    assert close(out.data, as_float(tout))
    tout.backward()
    assert close(x.grad, tx.grad.item(), rel=1e-8, abs_=1e-10)
    assert close(y.grad, ty.grad.item(), rel=1e-8, abs_=1e-10)


SMOOTH = [c for c in COMPOSITE if c[0] in ("poly", "log_exp", "division", "power", "reuse")]


@pytest.mark.task1_5
@pytest.mark.parametrize("name,fn", SMOOTH, ids=[c[0] for c in SMOOTH])  # no kinks
@fast
@given(moderate, moderate)
def test_derivative_check_passes(name, fn, x0, y0):
    derivative_check(fn, Scalar(x0), Scalar(y0))


@pytest.mark.task1_5
def test_derivative_check_catches_a_wrong_rule():
    class WrongExp(Exp):
        @staticmethod
        def backward(ctx, d_output):
            return d_output

    with pytest.raises(AssertionError, match="backprop gives"):
        derivative_check(lambda a: WrongExp.apply(a * 2), Scalar(1.0))


@pytest.mark.task1_5
@fast
@given(moderate)
def test_gradients_accumulate_when_a_value_is_used_twice(x0):
    x = Scalar(x0)
    (x * x).backward()
    assert close(x.grad, 2 * x0)
    y = Scalar(x0)
    (y + y + y).backward()
    assert y.grad == 3.0
    z = Scalar(x0)
    a = z * 2
    (a * a + a).backward()  # d/dz (4 z^2 + 2 z)
    assert close(z.grad, 8 * x0 + 2)


@pytest.mark.task1_5
def test_gradients_accumulate_across_backward_calls():
    x = Scalar(3.0)
    (x * x).backward()
    (x * 5).backward()
    assert x.grad == 6.0 + 5.0
    x.derivative = None  # what zero_grad does
    (x * 5).backward()
    assert x.grad == 5.0


@pytest.mark.task1_5
@fast
@given(moderate, moderate)
def test_backward_scales_with_d_output(x0, d):
    x = Scalar(x0)
    (x * x * x).backward(d)
    assert close(x.grad, 3 * x0 * x0 * d)
    y = Scalar(x0)
    backpropagate((y * 2).exp(), d)
    assert close(y.grad, 2 * math.exp(2 * x0) * d)


@pytest.mark.task1_5
def test_constants_get_no_derivative():
    x, c = Scalar(2.0), Scalar(5.0, requires_grad=False)
    (x * c).backward()
    assert x.grad == 5.0 and c.grad is None


def test_backward_without_grad_raises_like_torch():
    with pytest.raises(RuntimeError, match="does not require grad"):
        Scalar(1.0, requires_grad=False).backward()
