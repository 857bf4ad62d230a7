#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""ABI cross-check of swdla with NVIDIA's own binding (cuda.bindings.cudla, cuda-bindings >= 13.3).

With LD_LIBRARY_PATH pointing at build/tests/swdla, the binding loads swdla's libcudla.so.1. This
drives the nine steps of the hybrid flow (docs/cudla.md section 4.6) for two models, compares the
output with swdla's CPU executor (`swdla-tool run`, env SWDLA_TOOL), reads back every descriptor
field and compares it with `swdla-tool info`, and checks that create_device in standalone mode
raises CudlaError with ErrorUnsupportedOperation, and that swdla's own C entry point refuses it.
Exits 77 (meson SKIP) with the reason only where the binding or numpy is not installed or there is
no CUDA device or driver (a failure with DLAINFER_REQUIRE_GPU=1); any other error fails.
"""
import ctypes
import os
import re
import subprocess
import sys
import tempfile

SKIP = 77
failures = []


def skip(why):
    print("SKIP: " + why)
    sys.exit(SKIP)


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        failures.append(what)


GPU_REQUIRED = os.environ.get("DLAINFER_REQUIRE_GPU") == "1"
ABSENT = ("numpy", "cuda", "cuda.bindings", "cuda.bindings.cudla", "cuda.bindings.runtime")

try:
    import numpy as np
    from cuda.bindings import cudla
    from cuda.bindings import runtime as cudart
except ModuleNotFoundError as e:
    # Only a package that is not installed is a reason to skip; anything else (the binding failing
    # to load swdla, say) is a failure below.
    if e.name not in ABSENT:
        raise
    skip("%s is not installed here; needs numpy and cuda-bindings >= 13.3 (cuda.bindings.cudla)" % e.name)

DATA = os.environ.get("DLAINFER_TEST_DATA", ".")
TOOL = os.environ.get("SWDLA_TOOL", "swdla-tool")


def cuda(result):
    """cuda.bindings.runtime returns (err, value...); fail loudly on an error."""
    err = result[0]
    if int(err) != 0:
        raise RuntimeError("CUDA runtime error %s" % err)
    return result[1] if len(result) == 2 else result[1:]


def enum(cls_name, names, value):
    """An enum member of the binding by one of its plausible names, else the raw value."""
    cls = getattr(cudla, cls_name, None)
    for n in names:
        if cls is not None and hasattr(cls, n):
            return getattr(cls, n)
    return value


MODE_HYBRID = enum("Mode", ["CUDA_DLA", "CUDLA_CUDA_DLA", "HYBRID"], 0)
MODE_STANDALONE = enum("Mode", ["STANDALONE", "CUDLA_STANDALONE"], 1)
ATTR = {
    "num_in": enum("ModuleAttributeType", ["NUM_INPUT_TENSORS", "CUDLA_NUM_INPUT_TENSORS"], 0),
    "num_out": enum("ModuleAttributeType", ["NUM_OUTPUT_TENSORS", "CUDLA_NUM_OUTPUT_TENSORS"], 1),
    "in": enum("ModuleAttributeType", ["INPUT_TENSOR_DESCRIPTORS", "CUDLA_INPUT_TENSOR_DESCRIPTORS"], 2),
    "out": enum("ModuleAttributeType", ["OUTPUT_TENSOR_DESCRIPTORS", "CUDLA_OUTPUT_TENSOR_DESCRIPTORS"], 3),
}


def field(desc, *names):
    for n in names:
        if hasattr(desc, n):
            return getattr(desc, n)
        if isinstance(desc, dict) and n in desc:
            return desc[n]
    raise AttributeError("descriptor has none of %s (has %s)" % (names, [a for a in dir(desc) if not a.startswith("_")]))


def as_list(x, count):
    if isinstance(x, (list, tuple)):
        return list(x)
    try:
        return list(x)[:count]
    except TypeError:
        return [x]


def tool_info(model):
    """{'input': [fields...], 'output': [...]} from swdla-tool info (the default reading)."""
    out = subprocess.run([TOOL, "info", model], check=True, capture_output=True, text=True).stdout
    info = {"input": [], "output": []}
    for line in out.splitlines():
        m = re.match(r"(input|output) (\S+): \S+ \S+ n=(\d+) c=(\d+) h=(\d+) w=(\d+) size=(\d+) fmt=(\d+) "
                     r"type=(\d+) cat=(\d+) pix=(\d+) stride=([\d,]+)", line)
        if m:
            g = m.groups()
            info[g[0]].append({"name": g[1], "n": int(g[2]), "c": int(g[3]), "h": int(g[4]), "w": int(g[5]),
                               "size": int(g[6]), "fmt": int(g[7]), "type": int(g[8]), "cat": int(g[9]),
                               "pix": int(g[10]), "stride": [int(s) for s in g[11].split(",")]})
    return info


def check_descriptor(model, kind, got, want):
    name = field(got, "name")
    if not isinstance(name, (str, bytes)) and hasattr(name, "tobytes"):  # a numpy char array
        name = name.tobytes()
    if isinstance(name, bytes):
        name = name.split(b"\0")[0].decode()
    check(str(name) == want["name"], "%s %s name %r" % (model, kind, name))
    for key, names in [("size", ["size", "size_"]), ("n", ["n"]), ("c", ["c"]), ("h", ["h"]), ("w", ["w"]),
                       ("fmt", ["data_format", "dataFormat"]), ("type", ["data_type", "dataType"]),
                       ("cat", ["data_category", "dataCategory"]), ("pix", ["pixel_format", "pixelFormat"])]:
        value = int(field(got, *names))
        check(value == want[key], "%s %s %s = %d (swdla-tool info: %d)" % (model, kind, names[0], value, want[key]))
    mapping = int(field(got, "pixel_mapping", "pixelMapping"))
    check(mapping == 0, "%s %s pixel_mapping = %d (pitch linear)" % (model, kind, mapping))
    strides = [int(s) for s in as_list(field(got, "stride"), 8)]
    check(strides[:4] == want["stride"][:4] and all(s == 0 for s in strides[4:]),
          "%s %s stride = %s (swdla-tool info: %s)" % (model, kind, strides, want["stride"]))


def make_task(module, in_ptrs, out_ptrs):
    """A cudlaTask in memory laid out by the binding's own task_dtype; returns (array, keepalive)."""
    ins = np.array([p & 0xFFFFFFFFFFFFFFFF for p in in_ptrs], dtype=np.uint64)
    outs = np.array([p & 0xFFFFFFFFFFFFFFFF for p in out_ptrs], dtype=np.uint64)
    task = np.zeros(1, dtype=cudla.task_dtype)
    names = task.dtype.names
    check(task.dtype.itemsize == 48, "task_dtype is 48 bytes")

    def put(candidates, value):
        for n in candidates:
            if n in names:
                task[n] = value
                return
        raise KeyError("task_dtype lacks %s (has %s)" % (candidates, names))

    put(["module_handle", "moduleHandle"], int(module))
    put(["output_tensor", "outputTensor"], outs.ctypes.data)
    put(["num_output_tensors", "numOutputTensors"], len(out_ptrs))
    put(["num_input_tensors", "numInputTensors"], len(in_ptrs))
    put(["input_tensor", "inputTensor"], ins.ctypes.data)
    return task, (ins, outs)


def load_module(dev, blob):
    """module_load_from_memory takes the bytes (or, in some versions, their address)."""
    try:
        return cudla.module_load_from_memory(dev, blob, len(blob), 0)
    except TypeError:
        arr = np.frombuffer(blob, dtype=np.uint8)
        return cudla.module_load_from_memory(dev, arr.ctypes.data, len(blob), 0)


def nine_steps(model, input_bytes, stream):
    """Runs one task through the binding; returns (output bytes, descriptors)."""
    path = os.path.join(DATA, model + ".swdla")
    with open(path, "rb") as f:
        blob = f.read()
    dev = cudla.create_device(0, MODE_HYBRID)                                # 1
    mod = load_module(dev, blob)                                             # 2
    n_in = int(cudla.module_get_attributes(mod, ATTR["num_in"]))             # 3
    n_out = int(cudla.module_get_attributes(mod, ATTR["num_out"]))
    ins = cudla.module_get_attributes(mod, ATTR["in"])
    outs = cudla.module_get_attributes(mod, ATTR["out"])
    check(n_in == 1 and n_out == 1 and len(ins) == 1 and len(outs) == 1, "%s: 1 input, 1 output" % model)
    sizes = [int(field(ins[0], "size", "size_")), int(field(outs[0], "size", "size_"))]
    bufs = [cuda(cudart.cudaMalloc(s)) for s in sizes]                       # 4
    # Zeroed on the task's stream: a non-blocking stream does not wait for the legacy one's cudaMemset.
    for b, s in zip(bufs, sizes):
        cuda(cudart.cudaMemsetAsync(b, 0, s, stream))
    dla = [cudla.mem_register(dev, int(b), s, 0) for b, s in zip(bufs, sizes)]  # 5
    check(all(int(d) != int(b) for d, b in zip(dla, bufs)), "%s: DLA pointers differ from CUDA pointers" % model)
    host_in = np.frombuffer(input_bytes, dtype=np.uint8).copy()
    check(host_in.size == sizes[0], "%s: input is %d bytes" % (model, sizes[0]))
    cuda(cudart.cudaMemcpyAsync(bufs[0], host_in.ctypes.data, sizes[0],         # 6
                                cudart.cudaMemcpyKind.cudaMemcpyHostToDevice, stream))
    task, keep = make_task(mod, [int(dla[0])], [int(dla[1])])                # 7
    cudla.submit_task(dev, task.ctypes.data, 1, int(stream), 0)
    host_out = np.zeros(sizes[1], dtype=np.uint8)                            # 8
    cuda(cudart.cudaMemcpyAsync(host_out.ctypes.data, bufs[1], sizes[1],
                                cudart.cudaMemcpyKind.cudaMemcpyDeviceToHost, stream))
    cuda(cudart.cudaStreamSynchronize(stream))
    last = int(cudla.get_last_error(dev))
    check(last == 0, "%s: get_last_error = %d after the task" % (model, last))
    for d in dla:                                                            # 9
        cudla.mem_unregister(dev, d)
    for b in bufs:
        cuda(cudart.cudaFree(b))
    cudla.module_unload(mod, 0)
    cudla.destroy_device(dev)
    del keep
    return host_out.tobytes(), ins[0], outs[0]


def cpu_reference(model, input_bytes):
    with tempfile.TemporaryDirectory() as tmp:
        i, o = os.path.join(tmp, "in.bin"), os.path.join(tmp, "out.bin")
        with open(i, "wb") as f:
            f.write(input_bytes)
        subprocess.run([TOOL, "run", os.path.join(DATA, model + ".swdla"), o, i], check=True)
        with open(o, "rb") as f:
            return f.read()


def chw16(planes, h, w):
    """FP16 chw16 bytes of a 3 x h x w float image (pad lanes zero)."""
    t = np.zeros((1, h, w, 16), dtype=np.float16)
    for c in range(planes.shape[0]):
        t[0, :, :, c] = planes[c]
    return t.tobytes()


def main():
    err = cudart.cudaGetDeviceCount()[0]
    if int(err) in (int(cudart.cudaError_t.cudaErrorNoDevice), int(cudart.cudaError_t.cudaErrorInsufficientDriver)):
        if GPU_REQUIRED:
            print("FAIL: DLAINFER_REQUIRE_GPU=1 but CUDA reports %s" % err)
            return 1
        skip("no CUDA device or driver: %s" % err)
    cuda(cudart.cudaFree(0))
    stream = cuda(cudart.cudaStreamCreateWithFlags(cudart.cudaStreamNonBlocking))

    check(int(cudla.get_version()) == 13000000, "get_version = 13000000")
    check(int(cudla.device_get_count()) == 2, "device_get_count = 2")

    # Standalone mode is refused by swdla itself: its C entry point, below the binding (which may
    # refuse the mode on its own without calling the library).
    lib = ctypes.CDLL(os.path.join(os.environ.get("LD_LIBRARY_PATH", ".").split(":")[0], "libcudla.so.1"))
    handle = ctypes.c_void_p()
    status = lib.cudlaCreateDevice(ctypes.c_uint64(0), ctypes.byref(handle), ctypes.c_uint32(1))  # CUDLA_STANDALONE
    check(status == 13 and not handle.value,
          "cudlaCreateDevice(0, CUDLA_STANDALONE) returns cudlaErrorUnsupportedOperation (13): got %d" % status)
    # And the binding reports it as CudlaError with ErrorUnsupportedOperation.
    try:
        cudla.create_device(0, MODE_STANDALONE)
        check(False, "create_device(0, STANDALONE) raised")
    except cudla.CudlaError as e:
        status = getattr(e, "status", None)
        text = str(e) + " " + repr(status)
        want = getattr(getattr(cudla, "Status", None), "ErrorUnsupportedOperation", 13)
        check(status == want or int(status if status is not None else -1) == 13 or "UnsupportedOperation" in text,
              "create_device(0, STANDALONE) raises CudlaError with ErrorUnsupportedOperation (%s)" % text)

    # colours: a red picture is classified red, and matches the CPU executor.
    h = w = 224
    red = np.stack([np.full((h, w), 0.9), np.full((h, w), 0.1), np.full((h, w), 0.05)])
    inp = chw16(red, h, w)
    out, din, dout = nine_steps("colours", inp, stream)
    logits = np.frombuffer(out, dtype=np.float16)[:8].astype(np.float32)
    check(int(np.argmax(logits)) == 2, "colours: red classified as %d (2 = red), logits %s" % (np.argmax(logits), logits))
    ref = np.frombuffer(cpu_reference("colours", inp), dtype=np.float16).astype(np.float32)
    check(np.allclose(np.frombuffer(out, dtype=np.float16).astype(np.float32), ref, atol=1e-3, rtol=2e-3),
          "colours: output equals the CPU executor")
    info = tool_info(os.path.join(DATA, "colours.swdla"))
    check_descriptor("colours", "input", din, info["input"][0])
    check_descriptor("colours", "output", dout, info["output"][0])

    # random-cnn on random input, and a layout with padded rows, against the CPU executor.
    rng = np.random.default_rng(7)
    for model, hh, ww in [("random-cnn", 48, 64), ("readout-w225-fp16-chw16", 150, 225)]:
        inp = chw16(rng.uniform(-1, 1, (3, hh, ww)), hh, ww)
        out, din, dout = nine_steps(model, inp, stream)
        got = np.frombuffer(out, dtype=np.float16).astype(np.float32)
        ref = np.frombuffer(cpu_reference(model, inp), dtype=np.float16).astype(np.float32)
        check(np.allclose(got, ref, atol=1e-3, rtol=2e-3),
              "%s: output equals the CPU executor (max diff %g)" % (model, float(np.max(np.abs(got - ref)))))
        info = tool_info(os.path.join(DATA, model + ".swdla"))
        check_descriptor(model, "input", din, info["input"][0])
        check_descriptor(model, "output", dout, info["output"][0])

    # An INT8 hwc4 input's descriptor as in the real Orin dump.
    path = os.path.join(DATA, "colours-int8-dla_hwc4.swdla")
    with open(path, "rb") as f:
        blob = f.read()
    dev = cudla.create_device(1, MODE_HYBRID)
    mod = load_module(dev, blob)
    din = cudla.module_get_attributes(mod, ATTR["in"])[0]
    check_descriptor("colours-int8-dla_hwc4", "input", din, tool_info(path)["input"][0])
    cudla.module_unload(mod, 0)
    cudla.destroy_device(dev)

    cuda(cudart.cudaStreamDestroy(stream))
    if failures:
        print("%d check(s) failed" % len(failures))
        return 1
    print("all checks passed")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except SystemExit:
        raise
    except Exception as e:
        import traceback
        traceback.print_exc()
        print("FAIL: %s: %s" % (type(e).__name__, e))
        sys.exit(1)
