"""The ``cuda`` backend: the kernel IR rendered to CUDA C (:mod:`.render`), compiled by
NVRTC (:mod:`.nvrtc`), run on a GPU through cupy (:mod:`.device`) or emulated on the CPU
(:mod:`.emulate`)."""


def gpu_count() -> int:
    """The number of CUDA GPUs cupy sees here (0 without cupy, a driver or a device)."""
    try:
        import cupy
        return cupy.cuda.runtime.getDeviceCount()
    except Exception:  # (ImportError, CUDARuntimeError: no driver, no device)
        return 0


def flags() -> dict:
    """The flags that run lazyjit on ``cuda`` here: on the GPU when there is one, else
    emulated on the CPU (``lj.config(**flags())``)."""
    return {"backend": "cuda", "cuda_emulate": gpu_count() == 0}
