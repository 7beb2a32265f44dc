"""One CUDA process of a pod in the GPU isolation check (bench/run gpu-isolation): it does one thing and prints one
JSON object per step on stdout, flushed, so the check can read it while the process still runs.

  probe.py limits OK_MIB OVER_MIB [HOLD_S]   what cudaMemGetInfo shows ("start"); whether OK_MIB allocates ("ok") and
                                             OVER_MIB is refused ("over"); with HOLD_S, it then keeps what "over" got
                                             for HOLD_S seconds ("holding", then "done")
  probe.py matmul SECONDS HOLD_MIB [OVER_MIB] creates its CUDA context ("context"), tries OVER_MIB and frees it
                                             ("over"), holds HOLD_MIB ("holding"), then bf16 8192x8192 matmuls for
                                             SECONDS ("matmul"); when START_FILE is in the environment, it waits for
                                             that file to exist first (the check creates it once every process that
                                             must run together holds its memory)
  probe.py hold MIB SECONDS                  holds MIB for SECONDS ("holding", then "done")
  probe.py versions                          PyTorch's version and the CUDA version it was built with

Every object has "pid", "step", "t" (the time it was printed, epoch seconds), "freeMib" and "totalMib"
(cudaMemGetInfo, MiB; null when CUDA no longer answers) and "reservedMib" (what PyTorch holds from CUDA now).
A CUDA error during the matmuls ends them: "matmul" then has "error" and the rate of the products done before it.
Any other error prints {"step": "error", "error": ...} and exits 1.
"""
import json
import os
import sys
import time
import traceback

import torch

MIB = 1 << 20


def say(step, **fields):
    try:
        free, total = torch.cuda.mem_get_info()
        free, total = free // MIB, total // MIB
    except Exception:  # a CUDA error (the MPS server gone) leaves nothing to ask
        free = total = None
    try:
        reserved = torch.cuda.memory_reserved() // MIB
    except Exception:
        reserved = None
    print(json.dumps(dict(pid=os.getpid(), step=step, t=round(time.time(), 3), freeMib=free, totalMib=total,
                          reservedMib=reserved, **fields)), flush=True)


def allocate(mib):
    """A tensor of MIB MiB, touched so that the memory is really held; None when CUDA refuses it."""
    try:
        x = torch.empty(mib * MIB, dtype=torch.uint8, device="cuda")
        x.fill_(1)
        torch.cuda.synchronize()
        return x
    except torch.OutOfMemoryError:
        return None
    except RuntimeError as e:  # an MPS limit can surface as a plain CUDA error
        if "out of memory" in str(e).lower():
            return None
        raise


def context():
    torch.cuda.init()
    torch.zeros(1, device="cuda")  # the context exists before the first reading
    say("context")


def limits(ok_mib, over_mib, hold_s):
    context()
    say("start")
    x = allocate(ok_mib)
    say("ok", mib=ok_mib, allocated=x is not None)
    del x
    torch.cuda.empty_cache()
    y = allocate(over_mib)
    say("over", mib=over_mib, allocated=y is not None)
    if hold_s > 0:
        say("holding", mib=over_mib if y is not None else 0, allocated=y is not None)
        time.sleep(hold_s)
        say("done")


def matmul(seconds, hold_mib, over_mib):
    context()
    if over_mib > 0:
        y = allocate(over_mib)
        say("over", mib=over_mib, allocated=y is not None)
        del y
        torch.cuda.empty_cache()
    held = allocate(hold_mib) if hold_mib > 0 else None
    a = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
    b = torch.randn_like(a)
    for _ in range(3):
        a @ b
    torch.cuda.synchronize()
    say("holding", mib=hold_mib, allocated=hold_mib == 0 or held is not None)
    start_file = os.environ.get("START_FILE")
    deadline = time.time() + 120
    while start_file and not os.path.exists(start_file) and time.time() < deadline:
        time.sleep(0.005)
    t = time.time()
    n = done = 0
    error = None
    try:
        while time.time() - t < seconds:
            a @ b
            n += 1
            if n % 10 == 0:
                torch.cuda.synchronize()
                done = n
        torch.cuda.synchronize()
        done = n
    except Exception as e:  # the MPS server gone, the client terminated: say so, do not die silently
        error = "%s: %s" % (type(e).__name__, str(e).strip().splitlines()[0] if str(e).strip() else "")
    dt = time.time() - t
    fields = dict(tflops=round(2 * 8192 ** 3 * done / dt / 1e12, 1), seconds=round(dt, 2), products=done)
    if error:
        fields["error"] = error
    say("matmul", **fields)


def hold(mib, seconds):
    context()
    x = allocate(mib)
    say("holding", mib=mib, allocated=x is not None)
    time.sleep(seconds)
    say("done")


if __name__ == "__main__":
    mode = sys.argv[1]
    try:
        if mode == "limits":
            limits(int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]) if len(sys.argv) > 4 else 0)
        elif mode == "matmul":
            matmul(float(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]) if len(sys.argv) > 4 else 0)
        elif mode == "hold":
            hold(int(sys.argv[2]), float(sys.argv[3]))
        elif mode == "versions":
            print(json.dumps(dict(pid=os.getpid(), step="versions", t=round(time.time(), 3), torch=torch.__version__,
                                  cuda=torch.version.cuda)), flush=True)
        else:
            sys.exit("probe.py: unknown mode " + mode)
    except Exception as e:
        traceback.print_exc()
        print(json.dumps(dict(pid=os.getpid(), step="error", t=round(time.time(), 3),
                              error="%s: %s" % (type(e).__name__, e))), flush=True)
        sys.exit(1)
