"""Run under the launcher with 2 or 3 ranks: every collective against a numpy reference, for every ReduceOp and dtype.

Each rank can compute every rank's input (they are seeded by rank), so each checks its own result locally. Prints
'RANK r OK n' at the end; any mismatch raises (and the launcher ends the job with an error).
"""
import ml_dtypes
import numpy as np

import minitorch as mt
import minitorch.distributed as dist

dist.init_process_group("mpi")
R, W = dist.get_rank(), dist.get_world_size()
NP = {mt.bool: np.bool_, mt.uint8: np.uint8, mt.int8: np.int8, mt.int16: np.int16, mt.int32: np.int32,
      mt.int64: np.int64, mt.float16: np.float16, mt.bfloat16: ml_dtypes.bfloat16, mt.float32: np.float32,
      mt.float64: np.float64, mt.complex64: np.complex64, mt.complex128: np.complex128}
checks = 0


def data(rank, dtype, shape=(3, 4)):
    "Rank `rank`'s input: small values (products and sums stay exact in every dtype)."
    rng = np.random.default_rng(100 + rank)
    if dtype is mt.bool: return rng.random(shape) < 0.5
    if dtype.is_complex: return (rng.integers(-3, 4, shape) + 1j * rng.integers(-3, 4, shape)).astype(NP[dtype])
    lo = 0 if dtype is mt.uint8 else -3
    return rng.integers(lo, 4, shape).astype(NP[dtype])


def reference(op, arrays, dtype):
    "The reduction over ranks, computed in float64/complex128/int64, cast like the collective's output."
    wide = np.stack([a.astype(np.complex128 if dtype.is_complex else (np.int64 if a.dtype.kind in "biu" else np.float64)) for a in arrays])
    if dtype is mt.bool: wide = wide.astype(np.int64)
    wire = np.float32 if dtype in (mt.float16, mt.bfloat16) else NP[dtype]   # AVG divides in the wire dtype
    r = {dist.ReduceOp.SUM: lambda: wide.sum(0), dist.ReduceOp.AVG: lambda: wide.sum(0).astype(wire) / wire(W),
         dist.ReduceOp.PRODUCT: lambda: wide.prod(0), dist.ReduceOp.MIN: lambda: wide.min(0),
         dist.ReduceOp.MAX: lambda: wide.max(0), dist.ReduceOp.BAND: lambda: np.bitwise_and.reduce(wide, 0),
         dist.ReduceOp.BOR: lambda: np.bitwise_or.reduce(wide, 0),
         dist.ReduceOp.BXOR: lambda: np.bitwise_xor.reduce(wide, 0)}[op]()
    return r.astype(bool) if dtype is mt.bool else r.astype(NP[dtype])


def same(t, expected):
    global checks
    got = t.cpu().numpy() if t.dtype is not mt.bool else t.cpu().numpy()
    assert got.dtype == expected.dtype and got.shape == expected.shape, (got.dtype, expected.dtype, got.shape)
    assert np.array_equal(got.astype(np.complex128) if got.dtype.kind == "c" else got.astype(np.float64) if got.dtype.kind == "f" or got.dtype == ml_dtypes.bfloat16 else got,
                          expected.astype(np.complex128) if expected.dtype.kind == "c" else expected.astype(np.float64) if expected.dtype.kind == "f" or expected.dtype == ml_dtypes.bfloat16 else expected), (t, expected)
    checks += 1


def allowed(op, dtype):
    if dtype.is_complex: return op in (dist.ReduceOp.SUM, dist.ReduceOp.AVG)
    if op in (dist.ReduceOp.BAND, dist.ReduceOp.BOR, dist.ReduceOp.BXOR): return not dtype.is_floating_point
    if op is dist.ReduceOp.AVG: return dtype.is_floating_point
    return True


OPS = [dist.ReduceOp.SUM, dist.ReduceOp.AVG, dist.ReduceOp.PRODUCT, dist.ReduceOp.MIN, dist.ReduceOp.MAX,
       dist.ReduceOp.BAND, dist.ReduceOp.BOR, dist.ReduceOp.BXOR]
for dtype in NP:
    for op in OPS:
        t = mt.tensor(data(R, dtype), dtype=dtype)
        if not allowed(op, dtype):
            try:
                dist.all_reduce(t, op=op)
            except (ValueError, RuntimeError):
                checks += 1
                continue
            raise AssertionError(f"all_reduce {op} on {dtype} should raise")
        dist.all_reduce(t, op=op)
        same(t, reference(op, [data(r, dtype) for r in range(W)], dtype))
        # reduce to the last rank: only it changes
        t = mt.tensor(data(R, dtype), dtype=dtype)
        dist.reduce(t, dst=W - 1, op=op)
        same(t, reference(op, [data(r, dtype) for r in range(W)], dtype) if R == W - 1 else data(R, dtype))

# layouts: a transposed (non-contiguous) tensor, a 0-d tensor, an offset slice, async_op
t = mt.tensor(data(R, mt.float32)).t()
dist.all_reduce(t)
same(t, sum(data(r, mt.float32) for r in range(W)).T.copy())
z = mt.tensor(float(R + 1))
dist.all_reduce(z, op=dist.ReduceOp.MAX)
same(z, np.array(float(W), np.float32))
base = mt.zeros(10)
view = base[2:7]
view.copy_(mt.tensor(np.arange(5.0, dtype=np.float32) + R))
work = dist.all_reduce(view, async_op=True)
assert work.wait() and work.is_completed()
same(base, np.concatenate([[0, 0], W * np.arange(5.0) + sum(range(W)), [0, 0, 0]]).astype(np.float32))
fut = dist.all_reduce(mt.ones(2), async_op=True).get_future()
assert fut.wait()[0].tolist() == [float(W)] * 2
checks += 1

# broadcast, all_gather(_into_tensor), reduce_scatter(_tensor), scatter, gather, all_to_all
for dtype in (mt.float32, mt.float16, mt.bfloat16, mt.int64, mt.bool, mt.complex128):
    t = mt.tensor(data(R, dtype), dtype=dtype)
    dist.broadcast(t, src=1)
    same(t, data(1, dtype))
    outs = [mt.zeros(3, 4, dtype=dtype) for _ in range(W)]
    dist.all_gather(outs, mt.tensor(data(R, dtype), dtype=dtype))
    for r in range(W): same(outs[r], data(r, dtype))
    big = mt.zeros(W * 3, 4, dtype=dtype)
    dist.all_gather_into_tensor(big, mt.tensor(data(R, dtype), dtype=dtype))
    same(big, np.concatenate([data(r, dtype) for r in range(W)]))
    if dtype is not mt.bool:
        chunks = [mt.tensor(data(10 * R + k, dtype), dtype=dtype) for k in range(W)]
        out = mt.zeros(3, 4, dtype=dtype)
        dist.reduce_scatter(out, chunks)
        same(out, reference(dist.ReduceOp.SUM, [data(10 * r + R, dtype) for r in range(W)], dtype))
        out2 = mt.zeros(3, 4, dtype=dtype)
        dist.reduce_scatter_tensor(out2, mt.cat(chunks))
        same(out2, reference(dist.ReduceOp.SUM, [data(10 * r + R, dtype) for r in range(W)], dtype))
    got = mt.zeros(3, 4, dtype=dtype)
    dist.scatter(got, [mt.tensor(data(50 + k, dtype), dtype=dtype) for k in range(W)] if R == 0 else None, src=0)
    same(got, data(50 + R, dtype))
    gl = [mt.zeros(3, 4, dtype=dtype) for _ in range(W)] if R == W - 1 else None
    dist.gather(mt.tensor(data(R, dtype), dtype=dtype), gl, dst=W - 1)
    if R == W - 1:
        for r in range(W): same(gl[r], data(r, dtype))
    ins = [mt.tensor(data(100 * R + k, dtype), dtype=dtype) for k in range(W)]
    outs = [mt.zeros(3, 4, dtype=dtype) for _ in range(W)]
    dist.all_to_all(outs, ins)
    for r in range(W): same(outs[r], data(100 * r + R, dtype))

# point to point: a ring of send/recv, and isend/irecv both ways
right, left = (R + 1) % W, (R - 1) % W
x, y = mt.full((5,), float(R)), mt.zeros(5)
if R % 2 == 0:
    dist.send(x, right); src = dist.recv(y, left)
else:
    src = dist.recv(y, left); dist.send(x, right)
assert src == left
same(y, np.full(5, float(left), np.float32))
a, b = mt.full((4,), float(R), dtype=mt.float64), mt.zeros(4, dtype=mt.float64)
reqs = [dist.isend(a, right), dist.irecv(b, left)]
for q in reqs: q.wait()
same(b, np.full(4, float(left)))

# objects, barrier, groups
objs = [None] * W
dist.all_gather_object(objs, {"rank": R})
assert objs == [{"rank": r} for r in range(W)]
lst = [R, "x"] if R == 0 else [None, None]
dist.broadcast_object_list(lst, src=0)
assert lst == [0, "x"]
dist.barrier()
g = dist.new_group([0, 1])
if R in (0, 1):
    t = mt.tensor([float(R + 1)])
    dist.all_reduce(t, group=g)
    same(t, np.array([3.0], np.float32))
    assert dist.get_world_size(g) == 2
else:
    assert g is dist.GroupMember.NON_GROUP_MEMBER
checks += 3

# cuda tensors travel through host memory (the GPU, or the simulator without one)
if mt.cuda.is_available() or mt.cuda.is_simulator():
    c = mt.tensor(data(R, mt.float32), device="cuda")
    dist.all_reduce(c)
    assert c.device.type == "cuda"
    same(c, sum(data(r, mt.float32) for r in range(W)))
    c = mt.tensor(data(R, mt.int64), device="cuda")
    dist.broadcast(c, src=0)
    same(c, data(0, mt.int64))

# the ranks disagree on a shape: every rank gets the same clear error (no hang)
try:
    dist.all_reduce(mt.ones(3 + R))
    raise AssertionError("mismatched shapes must raise")
except RuntimeError as e:
    assert "different tensors" in str(e), e
    checks += 1
dist.barrier()
print(f"RANK {R} OK {checks}", flush=True)
dist.destroy_process_group()
