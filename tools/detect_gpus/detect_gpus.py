"""The compute capabilities of this machine's GPUs, as CUDA real archs (sm_XY).

What --@rules_cuda_stages//cuda_rules:archs=native compiles for, found the way
CMake's CUDA_ARCHITECTURES=native and nvcc -arch=native find it: ask the
driver (libcuda.so.1: cuInit, cuDeviceGetCount, cuDeviceGetAttribute for the
compute capability of each visible device), and where that gives nothing,
`nvidia-smi --query-gpu=compute_cap`. One sm_XY per distinct GPU, no PTX.

Run by the repository rule @cuda_native_archs (cuda_rules/private/repo/
native_archs.bzl) with the system's python3, so it uses the standard library
only. Prints one JSON object:

  {"archs": ["sm_86", "sm_90"], "source": "driver", "reasons": []}

archs is empty when nothing was found; reasons then says, per source, why
(no driver, no device, an error text).
"""

import ctypes
import json
import subprocess
import sys

# cuda.h
CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75
CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76
CUDA_SUCCESS = 0
CUDA_ERROR_NO_DEVICE = 100
CUDA_ERROR_INSUFFICIENT_DRIVER = 35

# The oldest arch the rules accept (archs.bzl: NN >= 50).
MIN_CAPABILITY = (5, 0)


class NotFound(Exception):
    """A source found no GPU; the message says why."""


def arch_of(major, minor):
    """The real arch of a compute capability: (9, 0) -> sm_90, (12, 0) -> sm_120."""
    return "sm_%d%d" % (major, minor)


def archs_from_capabilities(capabilities):
    """Distinct real archs, in arch order, of a list of (major, minor).

    Raises NotFound when the list is empty or holds only GPUs older than the
    rules support.
    """
    if not capabilities:
        raise NotFound("no CUDA device")
    supported = sorted({c for c in capabilities if c >= MIN_CAPABILITY})
    if not supported:
        raise NotFound("only GPUs older than compute capability %d.%d: %s" % (
            MIN_CAPABILITY + (", ".join("%d.%d" % c for c in sorted(set(capabilities))),)))
    return [arch_of(*c) for c in supported]


def parse_compute_caps(text):
    """(major, minor) per line of `nvidia-smi --query-gpu=compute_cap --format=csv,noheader` ("9.0")."""
    caps = []
    for line in text.splitlines():
        line = line.strip()
        if not line:
            continue
        major, dot, minor = line.partition(".")
        if not dot or not major.isdigit() or not minor.isdigit():
            raise NotFound("nvidia-smi printed %r, not a compute capability" % line)
        caps.append((int(major), int(minor)))
    return caps


def driver_error(code, name=None):
    """The reason text for a CUresult of cuInit/cuDeviceGetCount."""
    if code == CUDA_ERROR_NO_DEVICE:
        return "the driver sees no CUDA device (CUDA_ERROR_NO_DEVICE)"
    if code == CUDA_ERROR_INSUFFICIENT_DRIVER:
        return "the NVIDIA driver is older than its CUDA library (CUDA_ERROR_INSUFFICIENT_DRIVER)"
    return "the CUDA driver returned error %d%s" % (code, " (%s)" % name if name else "")


def _error_name(lib, code):
    try:
        text = ctypes.c_char_p()
        if lib.cuGetErrorName(code, ctypes.byref(text)) == CUDA_SUCCESS and text.value:
            return text.value.decode()
    except AttributeError:
        pass
    return None


def query_driver(load=ctypes.CDLL):
    """(major, minor) of every device the driver (libcuda.so.1) sees."""
    try:
        lib = load("libcuda.so.1")
    except OSError as e:
        raise NotFound("no NVIDIA driver: libcuda.so.1 could not be loaded (%s)" % e)
    code = lib.cuInit(0)
    if code != CUDA_SUCCESS:
        raise NotFound(driver_error(code, _error_name(lib, code)))
    count = ctypes.c_int(0)
    code = lib.cuDeviceGetCount(ctypes.byref(count))
    if code != CUDA_SUCCESS:
        raise NotFound(driver_error(code, _error_name(lib, code)))
    caps = []
    for ordinal in range(count.value):
        device = ctypes.c_int(0)
        major = ctypes.c_int(0)
        minor = ctypes.c_int(0)
        for code in (
            lib.cuDeviceGet(ctypes.byref(device), ordinal),
            lib.cuDeviceGetAttribute(ctypes.byref(major), CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device),
            lib.cuDeviceGetAttribute(ctypes.byref(minor), CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device),
        ):
            if code != CUDA_SUCCESS:
                raise NotFound("device %d: %s" % (ordinal, driver_error(code, _error_name(lib, code))))
        caps.append((major.value, minor.value))
    return caps


def query_nvidia_smi(run=subprocess.run):
    """(major, minor) of every GPU nvidia-smi lists."""
    try:
        proc = run(["nvidia-smi", "--query-gpu=compute_cap", "--format=csv,noheader"],
                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=30)
    except FileNotFoundError:
        raise NotFound("nvidia-smi is not on PATH")
    except (OSError, subprocess.SubprocessError) as e:
        raise NotFound("nvidia-smi failed: %s" % e)
    if proc.returncode != 0:
        text = (proc.stderr or proc.stdout).strip().splitlines()
        raise NotFound("nvidia-smi failed (exit status %d)%s" % (proc.returncode, ": " + text[0] if text else ""))
    return parse_compute_caps(proc.stdout)


def detect(sources):
    """Tries each (name, query) in turn; returns the result object (see the module docstring)."""
    reasons = []
    for name, query in sources:
        try:
            return {"archs": archs_from_capabilities(query()), "source": name, "reasons": reasons}
        except NotFound as e:
            reasons.append("%s: %s" % (name, e))
        except Exception as e:  # noqa: BLE001 - any failure of one source is a reason, not a crash
            reasons.append("%s: %s: %s" % (name, type(e).__name__, e))
    return {"archs": [], "source": "", "reasons": reasons}


def main():
    result = detect([("driver", query_driver), ("nvidia-smi", query_nvidia_smi)])
    json.dump(result, sys.stdout, sort_keys=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
