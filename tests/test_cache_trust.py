"""The disk cache of compiled modules can be trusted (issue 11, part 2): it never loads a
library someone else could have written, rebuilds corrupt entries, compiles each module
once across processes, leaves nothing behind when a compile is interrupted, and says
clearly when there is no compiler.

Most tests run a small script in fresh processes (what another process finds on disk is
the point); each such process costs an import and at most one small compile.
"""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import threading
import time

import numpy as np
import pytest

import lazyjit as lj
from lazyjit.backends.cpu import backend as cpu
from lazyjit.backends.cpu import codecache, compiler, pool

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FUNCS = {"exp": np.exp, "sin": np.sin}  # two modules of the same signature

# computes each function named in argv[1] (comma-separated) of arange(4.0), printing one
# JSON line per function: its value, the counters so far and the modules it loaded;
# with a second argument, prints "ready" and waits for a line on stdin first
SCRIPT = textwrap.dedent("""
    import json, sys
    import numpy as np
    import lazyjit as lj
    from lazyjit.backends.cpu import compiler
    x = lj.tensor(np.arange(4.0))
    if len(sys.argv) > 2:
        print("ready", flush=True)
        sys.stdin.readline()
    for name in sys.argv[1].split(","):
        before = set(compiler._LOADED)
        value = np.asarray(getattr(lj, name)(x)).tolist()
        print(json.dumps(dict(value=value, compiles=lj.stats()["compiles"],
                              hits=lj.stats()["disk_cache_hits"],
                              keys=sorted(set(compiler._LOADED) - before))), flush=True)
""")

# a library with the module's entry points whose constructor writes a marker file
PLANTED = textwrap.dedent("""
    #include <stdio.h>
    #include <stdint.h>
    __attribute__((constructor)) static void planted(void) {
      FILE* f = fopen("%s", "w");
      if (f) { fputs("the planted library ran\\n", f); fclose(f); }
    }
    int lj_run(void** B, const int64_t* P) { (void)B; (void)P; return 0; }
    void lj_set_blas(void* s, void* d, void* t, void** l) { (void)s; (void)d; (void)t; (void)l; }
""")


def env_for(cache, flags: str = "", **extra) -> dict:
    flags = ",".join(f for f in (f"backend=cpu,optimizer=o4,cache_dir={cache}", flags) if f)
    return dict(os.environ, LAZYJIT_FLAGS=flags, PYTHONPATH=ROOT, **extra)


def run(cache, names: str, flags: str = "", check: bool = True):
    """Run SCRIPT on ``names`` with ``cache_dir=cache``: (one dict per name, stderr)."""
    proc = subprocess.run([sys.executable, "-c", SCRIPT, names], env=env_for(cache, flags),
                          capture_output=True, text=True, timeout=120)
    if check:
        assert proc.returncode == 0, proc.stderr
    results = [json.loads(line) for line in proc.stdout.splitlines()]
    for name, result in zip(names.split(","), results):
        np.testing.assert_allclose(result["value"], FUNCS[name](np.arange(4.0)))
    return results, proc.stderr


def files_under(folder) -> list[str]:
    return sorted(os.path.relpath(os.path.join(d, f), folder)
                  for d, _, fs in os.walk(folder) for f in fs)


def wait_until(condition, what: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting until {what}"
        time.sleep(0.01)


def gone(pid: int) -> bool:
    """Whether process ``pid`` has ended (a zombie nobody reaped counts as ended)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] in "ZX"
    except FileNotFoundError:
        return True


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """A cache holding the modules of ``exp`` and ``sin``: (folder, {name: key})."""
    cache = tmp_path_factory.mktemp("reference") / "cache"
    (exp, sin), _ = run(cache, "exp,sin")
    assert exp["compiles"] == 1 and sin["compiles"] == 2
    return cache, {"exp": exp["keys"][0], "sin": sin["keys"][0]}


def lib_of(cache, key: str) -> str:
    return os.path.join(cache, key[:2], key[2:] + ".so")


# -- never load code that someone else could have written ------------------------------

WEAKNESSES = ["group_writable_file", "group_writable_folder", "other_owner",
              "symlinked_folder", "group_writable_cache_dir"]


def plant(tmp_path, key: str, weakness: str):
    """A cache with a library at ``key`` whose constructor writes a marker, and a
    matching sidecar, made untrustworthy by ``weakness``: (cache, marker)."""
    cache, marker = tmp_path / "cache", tmp_path / "planted-ran"
    source = tmp_path / "planted.c"
    source.write_text(PLANTED % marker)
    home = tmp_path / "elsewhere" if weakness == "symlinked_folder" else cache
    folder = home / key[:2]
    folder.mkdir(parents=True, mode=0o700)
    lib = folder / (key[2:] + ".so")
    subprocess.run(["cc", "-shared", "-fPIC", "-o", str(lib), str(source)], check=True)
    lib.chmod(0o700)
    (folder / (key[2:] + ".sum")).write_text(codecache.sidecar_text(key, lib.read_bytes()))
    if weakness == "group_writable_file":
        lib.chmod(0o770)
    elif weakness == "group_writable_folder":
        folder.chmod(0o770)
    elif weakness == "other_owner":
        os.chown(lib, 12345, 12345)
    elif weakness == "symlinked_folder":
        cache.mkdir(mode=0o700)
        os.symlink(folder, cache / key[:2])
    elif weakness == "group_writable_cache_dir":
        cache.chmod(0o770)
    return cache, marker


@pytest.mark.parametrize("weakness", WEAKNESSES)
def test_planted_library_is_never_loaded(tmp_path, reference, weakness):
    if weakness == "other_owner" and os.geteuid() != 0:
        pytest.skip("chown to another user needs root")
    cache, marker = plant(tmp_path, reference[1]["exp"], weakness)
    (result,), stderr = run(cache, "exp")   # the value is checked against NumPy
    assert not marker.exists(), "the planted library was loaded"
    assert result["compiles"] == 1 and result["hits"] == 0
    assert "CacheWarning" in stderr and "private per-process folder" in stderr
    fix = {"group_writable_file": "chmod go-w", "group_writable_folder": "chmod 700",
           "other_owner": "is owned by uid 12345", "symlinked_folder": "symbolic link",
           "group_writable_cache_dir": f"chmod 700 {os.path.realpath(cache)}"}[weakness]
    assert fix in stderr


def test_strict_cache_raises_instead(tmp_path, reference):
    cache, marker = plant(tmp_path, reference[1]["exp"], "group_writable_file")
    proc = subprocess.run([sys.executable, "-c", SCRIPT, "exp"],
                          env=env_for(cache, "strict_cache=true"), capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 1 and not marker.exists()
    assert "LazyjitError" in proc.stderr and "strict_cache=true" in proc.stderr
    assert "is writable by group or others" in proc.stderr


def test_folders_are_private_whatever_the_umask(tmp_path):
    old = os.umask(0o002)
    try:
        with lj.config(backend="cpu", cache_dir=str(tmp_path / "a" / "cache"),
                       cflags="-DLJ_TEST_UMASK"):
            assert float(lj.sum(lj.tensor(np.arange(3.0)) * 2)) == 6.0
    finally:
        os.umask(old)
    for d, _, fs in os.walk(tmp_path / "a"):
        assert os.stat(d).st_mode & 0o777 == 0o700, d
        for f in fs:
            assert os.stat(os.path.join(d, f)).st_mode & 0o077 == 0, f


# -- corrupt entries are rebuilt --------------------------------------------------------

CORRUPTIONS = ["truncated", "zeroed", "swapped", "swapped_with_sidecar", "no_sidecar"]


@pytest.mark.parametrize("corruption", CORRUPTIONS)
def test_corrupt_entry_is_rebuilt(tmp_path, reference, corruption):
    cache = tmp_path / "cache"
    shutil.copytree(reference[0], cache)
    keys = reference[1]
    lib, other = lib_of(cache, keys["exp"]), lib_of(cache, keys["sin"])
    size = os.path.getsize(lib)
    if corruption == "truncated":
        os.truncate(lib, size // 3)
    elif corruption == "zeroed":
        with open(lib, "r+b") as f:
            f.write(bytes(size))
    elif corruption.startswith("swapped"):
        shutil.copyfile(other, lib)  # another module, same signature: wrong values
        if corruption == "swapped_with_sidecar":
            shutil.copyfile(other[:-3] + ".sum", lib[:-3] + ".sum")
    else:
        os.unlink(lib[:-3] + ".sum")
    (result,), stderr = run(cache, "exp")   # exit code 0, the value checked against NumPy
    assert result["compiles"] == 1 and "is corrupt" in stderr and lib in stderr
    assert codecache.verify(os.path.realpath(cache), keys["exp"]) is None  # repaired


# -- one compile per module across processes -------------------------------------------

def test_eight_processes_compile_each_module_once(tmp_path):
    cache = tmp_path / "cache"
    procs = [subprocess.Popen([sys.executable, "-c", SCRIPT, "exp,sin", "wait"],
                              env=env_for(cache), stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for _ in range(8)]
    for p in procs:  # all imported and waiting: start them together
        assert p.stdout.readline() == "ready\n"
    for p in procs:
        p.stdin.write("go\n")
        p.stdin.flush()
    results, keys = [], set()
    for p in procs:
        out, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
        lines = [json.loads(line) for line in out.splitlines()]
        for name, line in zip(["exp", "sin"], lines):
            np.testing.assert_allclose(line["value"], FUNCS[name](np.arange(4.0)))
            keys.update(line["keys"])
        results.append(lines[-1])
    compiles = [r["compiles"] for r in results]
    print("compiles per process:", compiles, "distinct modules:", len(keys))
    assert sum(compiles) == len(keys) == 2
    assert sum(r["hits"] for r in results) == 8 * 2 - 2
    assert files_under(cache / "tmp") == []


def test_threads_compile_a_module_once(tmp_path):
    source = compiler.prelude() + ("int lj_run(void** B, const int64_t* P) { return 0; }\n"
                                   "/* test_threads_compile_a_module_once */\n")
    with lj.config(backend="cpu", cache_dir=str(tmp_path / "cache")):
        opts = compiler.settings()
    before = lj.stats()["compiles"]
    libs, barrier = [], threading.Barrier(4)

    def work():
        barrier.wait()
        libs.append(compiler.load(source, opts))

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(libs) == 4 and all(lib is libs[0] for lib in libs)
    assert lj.stats()["compiles"] == before + 1


# -- nothing left behind ------------------------------------------------------------------

@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGKILL], ids=["SIGINT", "SIGKILL"])
def test_interrupted_compile_leaves_nothing(tmp_path, sig):
    cache, mark = tmp_path / "cache", tmp_path / "compiler-pid"
    slow = tmp_path / "slowcc"
    slow.write_text(f'#!/bin/sh\necho $$ > "{mark}.tmp"\nmv "{mark}.tmp" "{mark}"\n'
                    f'exec sleep 120\n')
    slow.chmod(0o755)
    # (Ctrl-C raises KeyboardInterrupt in the child even when this test runs where SIGINT
    # is ignored, as in a background job, whose children inherit that)
    ctrl_c = "import signal; signal.signal(signal.SIGINT, signal.default_int_handler)\n"
    proc = subprocess.Popen([sys.executable, "-c", ctrl_c + SCRIPT, "exp"],
                            env=env_for(cache, f"compiler={slow}"), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    wait_until(mark.exists, "the compiler started")
    compiler_pid = int(mark.read_text())
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=60)
    wait_until(lambda: gone(compiler_pid), "the compiler is gone", timeout=10)
    if sig == signal.SIGINT:
        assert "KeyboardInterrupt" in err
        assert files_under(cache) == [] and os.listdir(cache / "tmp") == []
        return
    assert proc.returncode == -signal.SIGKILL
    assert any(f.endswith(".c") for f in files_under(cache / "tmp"))  # the killed one's
    (result,), _ = run(cache, "exp")  # the next process compiles, and sweeps
    assert result["compiles"] == 1
    assert os.listdir(cache / "tmp") == []
    assert [f for f in files_under(cache) if not f.endswith((".so", ".sum"))] == []


FORK = textwrap.dedent("""
    import os, sys, threading, time
    import numpy as np
    import lazyjit as lj
    from lazyjit.backends.cpu import compiler
    if sys.argv[1] == "no-openblas":  # (the GEMM loops' module, compiled by the thread)
        found = compiler._blas_pointers
        compiler._blas_pointers = lambda: (compiler.ffi.NULL,) * 3 + (found()[3],)
    x = lj.tensor(np.arange(4.0))
    work = threading.Thread(target=lambda: (x @ x).numpy())
    work.start()
    while not os.path.exists(sys.argv[2]):  # (the compiler runs: every lock is held)
        time.sleep(0.001)
    pid = os.fork()
    if pid == 0:
        print("child", float(x @ x), flush=True)
        os._exit(0)
    work.join()
    print("parent", os.waitpid(pid, 0)[1], flush=True)
""")


@pytest.mark.parametrize("blas", ["openblas", "no-openblas"])
def test_child_forked_during_a_compile_loads_that_module(tmp_path, blas):
    """A process forked while another thread of its parent compiles a module (holding
    that key's locks, in the process and on disk) loads the same module itself (as
    multiprocessing's fork start method would), instead of waiting forever."""
    slow, mark = tmp_path / "slowcc", tmp_path / "compiling"  # (long enough to fork in)
    slow.write_text(f'#!/bin/sh\ntouch "{mark}"\nsleep 1\nexec {shutil.which("cc")} "$@"\n')
    slow.chmod(0o755)
    proc = subprocess.run([sys.executable, "-c", FORK, blas, str(mark)], capture_output=True,
                          text=True, timeout=60,
                          env=env_for(tmp_path / "cache", f"compiler={slow}"))
    assert proc.returncode == 0, proc.stderr
    assert sorted(proc.stdout.split("\n")[:2]) == ["child 14.0", "parent 0"], proc.stdout


# -- clear errors ---------------------------------------------------------------------------

def check_no_compiler_error(err: lj.LazyjitError, compiler: str) -> None:
    text = str(err)
    assert f"cannot run the C compiler '{compiler}'" in text
    assert f"compiler={compiler}" in text and "LAZYJIT_FLAGS=backend=numpy" in text


@pytest.mark.parametrize("where", ["flag", "PATH"])
def test_no_compiler_is_a_clear_error(tmp_path, monkeypatch, where):
    compiler = "/nonexistent/cc" if where == "flag" else "cc"
    if where == "PATH":
        monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    cache = tmp_path / "cache"
    with lj.config(backend="cpu", cache_dir=str(cache), compiler=compiler,
                   cflags=f"-DLJ_TEST_NOCC_{where}"):
        with pytest.raises(lj.LazyjitError) as info:
            float(lj.sum(lj.tensor(np.arange(3.0)) + 1))
    check_no_compiler_error(info.value, compiler)
    assert ("was not found on PATH" if where == "PATH" else "does not exist") in str(info.value)
    assert files_under(cache) == []  # no .c left behind


def _wait_background_compiles() -> None:
    cpu.COMPILES.wait()


def test_fast_compile_recovers_when_the_compiler_is_fixed(tmp_path):
    def f(k: float) -> float:  # a new leaf each time: the same plan computes again
        return float((lj.sin(lj.tensor(np.arange(6.0) + k)) * 3).sum())

    def expected(k: float) -> float:
        return pytest.approx(float((np.sin(np.arange(6.0) + k) * 3).sum()))

    broken = tmp_path / "broken"
    # fails while `broken` exists, after a while: the failure must not come before the
    # first call has run on the interpreter (on a loaded machine it could, in a blink)
    fickle = tmp_path / "fickle-cc"
    fickle.write_text(f'#!/bin/sh\nif [ -e "{broken}" ]; then sleep 1; echo "cc is broken" '
                      f'>&2; exit 1; fi\nexec cc "$@"\n')
    fickle.chmod(0o755)
    with lj.config(backend="cpu", optimizer="o1", cache_dir=str(tmp_path / "cache")):
        with lj.config(compiler="/nonexistent/cc"):
            with pytest.raises(lj.LazyjitError) as info:  # at once, not in the background
                f(0)
        check_no_compiler_error(info.value, "/nonexistent/cc")
        with lj.config(compiler=str(fickle)):
            broken.touch()
            assert f(1) == expected(1)  # on the interpreter while it compiles
            _wait_background_compiles()
            with pytest.raises(RuntimeError, match="cc is broken"):
                f(2)  # the background compile failed: its error at this call
            broken.unlink()  # the user fixes the compiler: the same plan compiles now
            before = lj.stats()["compiles"]
            assert f(3) == expected(3) and f(4) == expected(4)
            assert lj.stats()["compiles"] == before + 1


@pytest.mark.parametrize("strict", [False, True])
def test_unusable_cache_dir(tmp_path, strict):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    with lj.config(backend="cpu", cache_dir=str(blocker / "cache"), strict_cache=strict,
                   cflags=f"-DLJ_TEST_UNUSABLE_{int(strict)}"):
        y = lj.sum(lj.tensor(np.arange(3.0)) * 3)
        if strict:
            with pytest.raises(lj.LazyjitError, match="a-file.*choose another cache_dir"):
                float(y)
        else:
            with pytest.warns(codecache.CacheWarning, match="a-file.*choose another cache_dir"):
                assert float(y) == 9.0


def test_impossible_allocation_is_a_memory_error():
    with pytest.raises(MemoryError, match=f"{1 << 60} bytes"):
        pool.alloc((1 << 57,), np.dtype(np.float64), 1 << 60)
