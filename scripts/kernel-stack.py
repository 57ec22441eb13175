#!/usr/bin/env python3
"""Stack operands of the batch kernel (docs/benchmark.md, "FMA in the
batch kernel"): for each kernel function of an object, the vector
operands addressed off %rsp or %rbp in the whole function and in each
Newton iteration loop (a back edge whose body holds a vdivpd and a
vmovmskpd and no call). Bodies of larger loops laid out between
branches are not a single path, so only the Newton loops are exact.
Usage: scripts/kernel-stack.py OBJECT SYMBOL [SYMBOL ...]
  e.g. build/CMakeFiles/sleighsweep_core.dir/src/integrators/batch4_avx2.c.o
       ssw_batch_compose4_avx2 ssw_batch_compose4x2_avx2"""
import re
import subprocess
import sys


def stack(ins):
    return (re.search(r"\(%r[bs]p\)", ins[2]) is not None
            and re.search(r"[xyz]mm", ins[2]) is not None)


def report(obj, sym):
    out = subprocess.run(["objdump", "-d", "--no-show-raw-insn",
                          "--disassemble=" + sym, obj],
                         capture_output=True, text=True, check=True).stdout
    ins = []
    for line in out.splitlines():
        m = re.match(r"\s+([0-9a-f]+):\s+(\S+)\s*(.*)", line)
        if m:
            ins.append((int(m.group(1), 16), m.group(2), m.group(3)))
    print(f"{sym}: {len(ins)} instructions, "
          f"{sum(map(stack, ins))} stack vector operands")
    for a, op, arg in ins:
        m = re.match(r"([0-9a-f]+)", arg)
        if not op.startswith("j") or not m or int(m.group(1), 16) >= a:
            continue
        body = [i for i in ins if int(m.group(1), 16) <= i[0] <= a]
        ops = [i[1] for i in body]
        if ("vdivpd" in ops and "call" not in ops
                and any(o.startswith("vmovmsk") for o in ops)
                and len(body) < 100):
            print(f"  Newton loop at {m.group(1)}: {len(body)} "
                  f"instructions, {sum(map(stack, body))} stack operands")


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    for s in sys.argv[2:]:
        report(sys.argv[1], s)
