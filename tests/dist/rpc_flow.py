"""The RPC chapters' message-flow figures: scenes on three workers (`rpc_sync`, `remote` + to_here, a `fork` of an
RRef to a third worker, a distributed `backward`), every message logged by its sender (`rpc.LOG`). Under the
launcher, with scene names as arguments, worker0 plays them and prints `SCENE t name`, and every worker prints its
log as `LOG t src dst kind id what` lines. `run(*scenes)` launches that and parses it; `draw` draws one panel per scene."""
import os
import subprocess
import sys
import time

SCENES = {"rpc_sync": "rpc_sync", "remote": "remote + to_here", "fork": "fork to worker2",
          "backward": "distributed backward"}


def show(r): return r.to_here().sum().item()
def step(x): time.sleep(0.01)   # a gap between the scenes of the figure


def run(*scenes: str, timeout: float = 60) -> tuple[list, list]:
    "Play `scenes` on three workers under the launcher: the messages (t, src, dst, kind, what), sorted by time,"
    "and the scenes (t, title)."
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0)); port = s.getsockname()[1]
    res = subprocess.run([sys.executable, "-m", "minitorch.distributed.run", "--nproc-per-node", "3", "--timeout",
                          str(timeout), "--master-port", str(port), __file__, *scenes],
                         capture_output=True, text=True, timeout=timeout + 30)
    assert res.returncode == 0, res.stdout[-2000:] + res.stderr[-2000:]
    lines = res.stdout.splitlines()
    log = [(float(t), int(s), int(d), k, m, w) for _, t, s, d, k, m, w in
           (l.split(" ", 6) for l in lines if l.startswith("LOG "))]
    barrier = {(s, d, m) for _, s, d, k, m, w in log if w == "_barrier_arrive"}   # shutdown's own messages
    msgs = sorted((t, s, d, k, w) for t, s, d, k, m, w in log
                  if w != "_barrier_arrive" and not (k == "response" and (d, s, m) in barrier))
    marks = sorted((float(l.split(" ", 2)[1]), l.split(" ", 2)[2]) for l in lines if l.startswith("SCENE "))
    return msgs, marks


def draw(msgs: list, marks: list, width: float = 5.5):
    "One panel per scene: a vertical line per worker, an arrow per message in time order (requests blue, replies"
    "green, labelled with the function called or the type returned)."
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, len(marks), figsize=(width * len(marks), 4.5), squeeze=False)
    for i, (ax, (t0, name)) in enumerate(zip(axes[0], marks)):
        t1 = marks[i + 1][0] if i + 1 < len(marks) else float("inf")
        mine = [m for m in msgs if t0 <= m[0] < t1]
        for x in range(3): ax.axvline(x, color="0.8"); ax.text(x, -0.7, f"worker{x}", ha="center")
        for j, (t, s, d, kind, what) in enumerate(mine):
            ax.annotate("", xy=(d, j), xytext=(s, j),
                        arrowprops=dict(arrowstyle="->", color="C0" if kind == "request" else "C2"))
            ax.text((s + d) / 2, j - 0.15, what if kind == "request" else f"({what})", ha="center", fontsize=8)
            ax.text(2.55, j, f"{(t - t0) * 1e3:.1f} ms", fontsize=7, va="center", color="0.4")
        ax.set_ylim(max(len(mine), 3), -1); ax.set_xlim(-0.5, 2.9); ax.axis("off"); ax.set_title(name)
    plt.tight_layout()
    return fig


def play(scenes: list) -> None:
    import minitorch as torch
    import minitorch.distributed.autograd as dist_autograd
    import minitorch.distributed.rpc as rpc
    rank = int(os.environ["RANK"])
    rpc.init_rpc(f"worker{rank}")
    rpc.LOG.recording = True
    if rank == 0:
        marks, r = [], None
        def scene(name): marks.append((time.time(), SCENES[name]))
        if "rpc_sync" in scenes:
            scene("rpc_sync"); rpc.rpc_sync("worker1", torch.add, (torch.ones(2), 1)); step(0)
        if "remote" in scenes or "fork" in scenes:
            if "remote" in scenes: scene("remote")
            r = rpc.remote("worker1", torch.ones, (2,)); r.to_here(); step(0)
        if "fork" in scenes:
            scene("fork"); rpc.rpc_sync("worker2", show, (r,)); step(0)
        if "backward" in scenes:
            scene("backward")
            with dist_autograd.context() as cid:
                x = torch.ones(2, requires_grad=True)
                y = rpc.rpc_sync("worker1", torch.mul, (x, 3))
                dist_autograd.backward(cid, [y.sum()])
            step(0)
        for t, name in marks: print("SCENE", t, name, flush=True)
    rpc.shutdown()   # graceful: waits for every worker (worker0's scenes) and every pending message, such as an
    log = list(rpc.LOG)   # RRef's deletion (a fixed sleep before reading the log lost them on a loaded machine)
    for t, src, dst, kind, mid, what in log:
        print("LOG", t, src, dst, ["", "request", "response", "error"][kind], mid, what, flush=True)


if __name__ == "__main__":
    play(sys.argv[1:] or list(SCENES))
