"""One CUDA process of a pod in the GPU isolation check (bench/run gpu-isolation): it does one thing and prints one
JSON object per step on stdout, flushed, so the check can read it while the process still runs.

  probe.py limits OK_MIB OVER_MIB     what cudaMemGetInfo shows; whether OK_MIB allocates and OVER_MIB is refused
  probe.py matmul SECONDS HOLD_MIB    holds HOLD_MIB, then bf16 8192x8192 matmuls for SECONDS; when START_FILE is in the
                                      environment, it waits for that file to exist first (the check creates it once
                                      every process that must run together holds its memory)
  probe.py hold MIB SECONDS           holds MIB for SECONDS
  probe.py versions                   PyTorch's version and the CUDA version it was built with

Every object has "pid", "step" and "freeMib" (cudaMemGetInfo's free memory when the step ran, in MiB).
"""
import json
import os
import sys
import time

import torch

MIB = 1 << 20


def say(step, **fields):
    free, total = torch.cuda.mem_get_info()
    print(json.dumps(dict(pid=os.getpid(), step=step, freeMib=free // MIB, totalMib=total // MIB, **fields)), flush=True)


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


def limits(ok_mib, over_mib):
    torch.cuda.init()
    torch.zeros(1, device="cuda")  # the context exists before the first reading
    say("start")
    x = allocate(ok_mib)
    say("ok", mib=ok_mib, allocated=x is not None)
    del x
    torch.cuda.empty_cache()
    y = allocate(over_mib)
    say("over", mib=over_mib, allocated=y is not None)


def matmul(seconds, hold_mib):
    held = allocate(hold_mib) if hold_mib > 0 else None
    a = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
    b = torch.randn_like(a)
    for _ in range(3):
        a @ b
    torch.cuda.synchronize()
    say("holding", mib=hold_mib, allocated=hold_mib == 0 or held is not None,
        reservedMib=torch.cuda.memory_reserved() // MIB)
    start_file = os.environ.get("START_FILE")
    deadline = time.time() + 120
    while start_file and not os.path.exists(start_file) and time.time() < deadline:
        time.sleep(0.005)
    t = time.time()
    n = 0
    while time.time() - t < seconds:
        a @ b
        n += 1
        if n % 10 == 0:
            torch.cuda.synchronize()
    torch.cuda.synchronize()
    dt = time.time() - t
    say("matmul", tflops=round(2 * 8192 ** 3 * n / dt / 1e12, 1), seconds=round(dt, 2), products=n)


def hold(mib, seconds):
    x = allocate(mib)
    say("holding", mib=mib, allocated=x is not None, reservedMib=torch.cuda.memory_reserved() // MIB)
    time.sleep(seconds)
    say("done")


if __name__ == "__main__":
    mode = sys.argv[1]
    if mode == "limits":
        limits(int(sys.argv[2]), int(sys.argv[3]))
    elif mode == "matmul":
        matmul(float(sys.argv[2]), int(sys.argv[3]))
    elif mode == "hold":
        hold(int(sys.argv[2]), float(sys.argv[3]))
    elif mode == "versions":
        say("versions", torch=torch.__version__, cuda=torch.version.cuda)
    else:
        sys.exit("probe.py: unknown mode " + mode)
