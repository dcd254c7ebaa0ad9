"""The ``gpu`` load-sensor plugin: NVIDIA GPUs of the host and their free memory.

Reports ``gpu_count`` (INT) and ``gpu_free_mem`` (free memory of all GPUs together, an
integer number of bytes: a MEMORY complex). The numbers come from NVML through ``pynvml``
when that is importable and initialises, otherwise from
``nvidia-smi --query-gpu=index,memory.free,memory.total --format=csv,noheader,nounits``
(run with a timeout). A host with neither reports nothing, without an error: the plugin
can be enabled cluster-wide, GPU hosts or not.
"""
from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any, ClassVar

from execd.plugins import Value

MiB = 1024 * 1024

SMI_ARGS = ("--query-gpu=index,memory.free,memory.total", "--format=csv,noheader,nounits")


def find_executable(name: str) -> str | None:
    """``name`` on PATH, like shutil.which (which would cost an import of shutil)."""
    for directory in os.get_exec_path():
        path = os.path.join(directory, name)
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    return None


def parse_smi(text: str) -> dict[str, Value]:
    """The plugin's values from nvidia-smi's CSV (``0, 15102, 16384`` per GPU, MiB)."""
    count = 0
    free_mib = 0
    for line in text.splitlines():
        fields = [field.strip() for field in line.split(",")]
        if len(fields) < 3 or not fields[0].isdigit():
            continue  # not a GPU row (a warning nvidia-smi printed, an empty line)
        count += 1
        # A GPU that cannot tell ("[N/A]", "[Not Supported]") still counts, with 0 free.
        if fields[1].isdigit():
            free_mib += int(fields[1])
    return {"gpu_count": count, "gpu_free_mem": free_mib * MiB}


class Gpu:
    """NVIDIA GPU count and free memory, through NVML or nvidia-smi."""

    name = "gpu"

    # Seconds nvidia-smi may take; it is killed after that (it can hang on a bad driver).
    smi_timeout: ClassVar[float] = 5.0

    def __init__(self) -> None:
        # pynvml is looked for at the first read(), not here: construction must be cheap.
        self._nvml: Any = None
        self._nvml_tried = False

    def read(self) -> Mapping[str, Value]:
        values = self._read_nvml()
        if values is None:
            values = self._read_smi()
        return values if values is not None else {}

    def _nvml_module(self) -> Any:
        if not self._nvml_tried:
            self._nvml_tried = True
            try:
                import pynvml  # optional; not a dependency of pygridengine

                pynvml.nvmlInit()
            except Exception:  # not installed, no driver, no library: try nvidia-smi
                return None
            self._nvml = pynvml
        return self._nvml

    def _read_nvml(self) -> dict[str, Value] | None:
        nvml = self._nvml_module()
        if nvml is None:
            return None
        count = int(nvml.nvmlDeviceGetCount())
        free = 0
        for index in range(count):
            handle = nvml.nvmlDeviceGetHandleByIndex(index)
            free += int(nvml.nvmlDeviceGetMemoryInfo(handle).free)
        return {"gpu_count": count, "gpu_free_mem": free}

    def _read_smi(self) -> dict[str, Value] | None:
        exe = find_executable("nvidia-smi")
        if exe is None:
            return None
        import subprocess  # lazily: hosts without nvidia-smi never import it

        proc = subprocess.run([exe, *SMI_ARGS], capture_output=True, text=True,
                              timeout=self.smi_timeout, stdin=subprocess.DEVNULL)
        if proc.returncode != 0:
            output = (proc.stdout + proc.stderr).strip()
            if "No devices were found" in output:
                return {"gpu_count": 0, "gpu_free_mem": 0}
            first = output.splitlines()[0] if output else "no output"
            raise RuntimeError(f"nvidia-smi exited with {proc.returncode}: {first}")
        return parse_smi(proc.stdout)
