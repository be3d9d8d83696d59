"""A mirror of NVIDIA's redistrib layout made from PyPI wheels, for tests.

NVIDIA publishes each CUDA release as per-component archives under
<component>/<platform>/<component>-<platform>-<version>-archive.tar.xz (one
top directory named like the archive, holding bin/, include/, lib/, nvvm/),
listed with their sha256 in redistrib_<release>.json. NVIDIA's PyPI wheels
hold the same trees under nvidia/cu<major>/. repack() turns a wheel into such
an archive, write_manifest() lists them: what a test needs to serve a release
from 127.0.0.1 when NVIDIA's server cannot be reached.
"""

import hashlib
import io
import json
import lzma
import os
import stat
import tarfile
import zipfile

# The compiler's wheels and their components in NVIDIA's manifests (CUDA 13).
COMPILER_COMPONENTS = {
    "nvidia-cuda-nvcc": "cuda_nvcc",
    "nvidia-nvvm": "libnvvm",
    "nvidia-cuda-crt": "cuda_crt",
    "nvidia-cuda-runtime": "cuda_cudart",
    "nvidia-cuda-cccl": "cuda_cccl",
}


def archive_stem(component, platform, version):
    return "%s-%s-%s-archive" % (component, platform, version)


def repack(wheel_path, strip_prefix, component, platform, version, out_dir):
    """Writes <out_dir>/<component>/<platform>/<stem>.tar.xz from the wheel's files under strip_prefix.

    Modes come from the wheel (executables stay executable); times, owners and
    order are fixed, so the archive is the same bytes every time.

    Returns:
      The archive's path relative to out_dir.
    """
    stem = archive_stem(component, platform, version)
    relative = "%s/%s/%s.tar.xz" % (component, platform, stem)
    path = os.path.join(out_dir, relative)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    prefix = strip_prefix.rstrip("/") + "/"
    with zipfile.ZipFile(wheel_path) as wheel:
        entries = [i for i in wheel.infolist() if i.filename.startswith(prefix) and not i.is_dir()]
        if not entries:
            raise ValueError("%s has nothing under %s" % (wheel_path, prefix))
        buf = io.BytesIO()
        with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as tar:
            for info in sorted(entries, key=lambda i: i.filename):
                data = wheel.read(info)
                member = tarfile.TarInfo("%s/%s" % (stem, info.filename[len(prefix):]))
                mode = (info.external_attr >> 16) & 0o7777
                member.mode = mode if mode else 0o644
                if (info.external_attr >> 16) & stat.S_IXUSR:
                    member.mode |= 0o111
                member.size = len(data)
                member.mtime = 0
                tar.addfile(member, io.BytesIO(data))
    with open(path, "wb") as f:
        f.write(lzma.compress(buf.getvalue(), preset=0))
    return relative


def sha256_of(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def write_manifest(out_dir, release, archives):
    """Writes redistrib_<release>.json for archives [(component, platform, version, relative path)].

    Returns:
      (the manifest's path, its sha256).
    """
    manifest = {"release_date": "2025-01-01", "release_label": release, "release_product": "cuda"}
    for component, platform, version, relative in sorted(archives):
        entry = manifest.setdefault(component, {"name": component, "license": "CUDA Toolkit", "version": version})
        path = os.path.join(out_dir, relative)
        entry[platform] = {
            "relative_path": relative,
            "sha256": sha256_of(path),
            "size": str(os.path.getsize(path)),
        }
    path = os.path.join(out_dir, "redistrib_%s.json" % release)
    with open(path, "w") as f:
        json.dump(manifest, f, indent=2, sort_keys=True)
        f.write("\n")
    return path, sha256_of(path)
