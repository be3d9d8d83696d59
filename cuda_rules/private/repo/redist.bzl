"""CUDA from NVIDIA's redistributable archives, described by a redistrib_<version>.json manifest.

A manifest maps each component (cuda_nvcc, cuda_cudart, libcublas, ...) and
platform (linux-x86_64, linux-sbsa, ...) to an archive: its path relative to
the manifest's directory and its sha256. Archives unpack to one directory
named after the archive (cuda_nvcc-linux-x86_64-12.6.85-archive/) holding
bin/, include/, lib/, nvvm/ as an installed toolkit does.

The repositories read the manifest when they are fetched (so a build that does
not select the toolkit downloads nothing), and download only their own
components, each checked against the manifest's sha256, from every mirror in
turn (Bazel's downloader: --downloader_config rewrites, --distdir and the
repository cache apply).
"""

visibility(["//cuda_rules/...", "//tests/..."])

# NVIDIA's server: the manifests and archives of every release since 11.4.
NVIDIA_REDIST = "https://developer.download.nvidia.com/compute/cuda/redist"

# The compiler: the driver and stage tools, the runtime and CCCL.
TOOLKIT_REQUIRED = ["cuda_nvcc", "cuda_cudart", "cuda_cccl"]

# CUDA 13 moved the compiler's headers and NVVM (cicc, libdevice, libNVVM) out
# of cuda_nvcc into components of their own; a 12.x manifest has neither.
TOOLKIT_OPTIONAL = ["cuda_crt", "libnvvm"]

def parse_version(version):
    """The toolkit name (MAJOR.MINOR) of an NVIDIA release.

    Args:
      version: the release, e.g. "12.6.3".

    Returns:
      ("12.6", None), or (None, error) for what is no X.Y or X.Y.Z release.
    """
    parts = version.split(".")
    if len(parts) not in (2, 3) or not all([p.isdigit() for p in parts]):
        return None, ("rules_cuda_stages: cuda.redist(version = \"{}\"): a CUDA release is MAJOR.MINOR.PATCH, " +
                      "e.g. \"12.6.3\" (NVIDIA's manifests are redistrib_<release>.json).").format(version)
    return parts[0] + "." + parts[1], None

def manifest_urls(release, redist_json, mirrors):
    """Where the manifest is: `redist_json` when given, else redistrib_<release>.json on each mirror."""
    if redist_json:
        return [redist_json]
    return ["{}/redistrib_{}.json".format(m.rstrip("/"), release) for m in mirrors]

def _archive_stem(relative_path):
    name = relative_path.rpartition("/")[2]
    for suffix in [".tar.xz", ".tar.gz", ".tar.bz2", ".tar.zst", ".tar", ".zip"]:
        if name.endswith(suffix):
            return name[:-len(suffix)]
    return name

def component_archive(manifest, component, platform_key, mirrors, where):
    """The archive of one component for one platform, as download_archives takes it.

    Args:
      manifest: the decoded redistrib_<version>.json.
      component: its key in the manifest, e.g. "cuda_nvcc".
      platform_key: NVIDIA's platform name, e.g. "linux-x86_64".
      mirrors: base URLs, each holding the manifest's relative paths.
      where: the manifest, for messages.

    Returns:
      (archive dict, None), or (None, error message).
    """
    entry = manifest.get(component)
    if type(entry) != "dict":
        have = sorted([k for k, v in manifest.items() if type(v) == "dict"])
        return None, "{} has no component {} (it has: {})".format(where, component, ", ".join(have) or "none")
    per_platform = entry.get(platform_key)
    if type(per_platform) != "dict":
        have = sorted([k for k, v in entry.items() if type(v) == "dict"])
        return None, "{} has no {} for {} (it has: {})".format(where, component, platform_key, ", ".join(have) or "none")
    relative = per_platform.get("relative_path", "")
    sha256 = per_platform.get("sha256", "")
    if not relative or len(sha256) != 64:
        return None, "{}: {} for {} lacks a relative_path or a sha256".format(where, component, platform_key)
    return {
        "filename": relative.rpartition("/")[2],
        "package": component,
        "sha256": sha256,
        "strip_prefix": _archive_stem(relative),
        "urls": ["{}/{}".format(m.rstrip("/"), relative) for m in mirrors],
        "version": entry.get("version", ""),
    }, None

def toolkit_archives(manifest, platform_key, mirrors, where, extra = []):
    """The compiler's archives (required and optional components) and the `extra` ones the manifest has.

    Args:
      manifest: the decoded manifest.
      platform_key: NVIDIA's platform name, e.g. "linux-sbsa".
      mirrors: base URLs, each holding the manifest's relative paths.
      where: the manifest, for messages.
      extra: further components to take where the manifest has them.

    Returns:
      (list of archive dicts, components fetched, None), or (None, None, error message).
    """
    out = []
    have = []
    for component in TOOLKIT_REQUIRED:
        archive, error = component_archive(manifest, component, platform_key, mirrors, where)
        if error:
            return None, None, error
        out.append(archive)
        have.append(component)
    for component in TOOLKIT_OPTIONAL + extra:
        if component in manifest:
            archive, error = component_archive(manifest, component, platform_key, mirrors, where)
            if error:
                return None, None, error
            out.append(archive)
            have.append(component)
    return out, have, None

def read_manifest(rctx, release, urls, label, sha256):
    """Downloads (or reads) and decodes the manifest; fails with the sources and the fix.

    Args:
      rctx: the repository_ctx.
      release: NVIDIA's release, e.g. "12.6.3" (checked against the manifest's release_label).
      urls: where the manifest is (mirrors of one file), when `label` is None.
      label: the manifest as a file, or None.
      sha256: the manifest's sha256, or "".

    Returns:
      (manifest dict, a name for messages).
    """
    where = "redistrib_{}.json".format(release)
    if label:
        path = rctx.path(label)
        where = "{} ({})".format(where, label)
    else:
        path = rctx.path("_redistrib.json")
        result = rctx.download(url = urls, output = path, sha256 = sha256, allow_fail = True)
        if not result.success:
            fail(("rules_cuda_stages: CUDA {release}: could not fetch its manifest from {urls}{sha}. " +
                  "Fix: check the network or --downloader_config / --distdir, the cuda.redist(...) tag's urls " +
                  "(or redist_json), and its sha256.").format(
                release = release,
                urls = " or ".join(urls),
                sha = " (sha256 " + sha256 + ")" if sha256 else "",
            ))
    text = rctx.read(path)
    if not label:
        rctx.delete(path)
    manifest = json.decode(text, default = None)
    if type(manifest) != "dict":
        fail("rules_cuda_stages: CUDA {}: {} is not a redistrib JSON manifest".format(release, where))
    label_of_release = manifest.get("release_label", "")
    if len(release.split(".")) == 3 and label_of_release and label_of_release != release:
        fail(("rules_cuda_stages: cuda.redist(version = \"{}\"): {} is the manifest of release {}. " +
              "Fix: the tag's version or its redist_json.").format(release, where, label_of_release))
    return manifest, where
