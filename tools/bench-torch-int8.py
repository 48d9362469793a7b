# int8 GEMM throughput of the GPU's own library (torch._int_mm → cuBLASLt) on given shapes, for
# tools/bench-gpu.ts. Prints one JSON object: for each M,N,K the median seconds and multiply-adds/s.
#   python3 tools/bench-torch-int8.py 16384,16384,65536 4096,4096,16384
import json
import sys

import torch


def bench(m: int, n: int, k: int, reps: int = 10) -> dict:
    # Genotype-like operands (0, 1, 2); B column-major, the layout cuBLASLt's int8 path wants.
    a = torch.randint(0, 3, (m, k), dtype=torch.int8, device="cuda")
    b = torch.randint(0, 3, (n, k), dtype=torch.int8, device="cuda").t()
    # Exactness check on a corner against an int64 product on the CPU (CUDA has no int64 matmul).
    c = torch._int_mm(a, b)
    ref = a[:64].cpu().to(torch.int64) @ b[:, :64].cpu().to(torch.int64)
    exact = bool(torch.equal(c[:64, :64].cpu().to(torch.int64), ref))
    for _ in range(3):
        torch._int_mm(a, b)
    times = []
    for _ in range(reps):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        torch._int_mm(a, b)
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end) / 1000)
    times.sort()
    seconds = times[len(times) // 2]
    del a, b, c
    torch.cuda.empty_cache()
    return {"m": m, "n": n, "k": k, "seconds": seconds, "macsPerSecond": m * n * k / seconds, "exact": exact}


def main() -> None:
    shapes = [tuple(int(x) for x in arg.split(",")) for arg in sys.argv[1:]]
    out = {"device": torch.cuda.get_device_name(0), "torch": torch.__version__, "results": [bench(*s) for s in shapes]}
    print(json.dumps(out))


if __name__ == "__main__":
    main()
