"""The disk cache of compiled modules: only the user's own, verified code is loaded.

Layout under ``cache_dir`` (folders created ``0700`` whatever the umask)::

    <key[:2]>/<key[2:]>.so    a compiled module
    <key[:2]>/<key[2:]>.sum   its sidecar: the key it was built for, its size and xxh3_128
    tmp/<key>.lock            flock'ed by the one process compiling that key (the others
                              wait, then load what it wrote); removed by its holder
    tmp/<pid>-<random>/       one process's temporaries (the ``.c``, the ``.so.tmp``, the
                              compiler's own through ``TMPDIR``), flock'ed while that
                              process lives; the next process to compile removes the
                              folders (and lock files) nobody holds any more

Trust (the checks of OpenSSH's StrictModes and pip's cache).  ``cache_dir`` is resolved
once with ``realpath`` and every component of the result checked: the folders above it
owned by root or the user and not writable by group or others unless sticky (``/tmp``:
there only an entry's owner may rename it), ``cache_dir`` and everything below it the
user's own, not writable by group or others, and no symlink (a symlink in the path as
given counts only through its target, which is what is checked and used).  When a check
fails the module is compiled into a private per-process folder, with one warning naming
the path and the fix, or, with the ``strict_cache`` flag, a ``LazyjitError``.

Loading by path after checking is sound (no time-of-check/time-of-use gap that matters):
once the checks pass, every folder on the path can be changed only by the user or root,
so no other user can swap the file between the check and ``dlopen``; and the user's own
lazyjit processes never write a published file in place (they write a temporary and
rename it) and publish only entries that verify, so the file ``dlopen`` finds is one that
verifies.  Copying each module into a private file first would add a write per load and no
safety: whoever runs as the user can change that copy too.

Every entry is verified before it is loaded: its bytes must have the size and xxh3_128
digest its sidecar records, for this key.  A truncated, zeroed or swapped library, or one
whose sidecar is missing or wrong, is removed (under the key's lock) and rebuilt, with a
warning.  Sidecars are published before their library, so a library at its final path
always has its sidecar.
"""
from __future__ import annotations

import atexit
import contextlib
import errno
import fcntl
import os
import shutil
import stat
import sys
import tempfile
import threading
import warnings
from typing import Callable, Iterator

import xxhash

from lazyjit.errors import op_error
from lazyjit.stats import count
from lazyjit.trace.state import UPDATING

# the layout of an entry (a library and its sidecar), part of every key: entries of
# another layout are never looked up (no warning about them after an upgrade)
LAYOUT = "so+sum/1"
_PACKAGE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_FILE_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC


class CacheWarning(UserWarning):
    """The disk cache could not be used as it is (untrusted or corrupt), and lazyjit
    worked around it; the message names the path and the fix."""


class Untrusted(Exception):
    """A path of the cache fails a trust check; ``str(self)`` says why and the fix."""


_LOCK = threading.Lock()
_ROOTS: dict[str, tuple[str | None, str]] = {}  # cache_dir -> (resolved root, or None: why)
_WORK: dict[str, tuple[str, int, int]] = {}     # base folder -> (work folder, its fd, pid)
_KEY_FDS: set[int] = set()  # the descriptors of key_lock's lock files open now (see fork)
_WARNED: set[str] = set()


def warn_once(message: str) -> None:
    """Warn with ``message`` (a :class:`CacheWarning`) the first time it is seen."""
    with _LOCK:
        if message in _WARNED:
            return
        _WARNED.add(message)
    level, frame = 2, sys._getframe(1)
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        level, frame = level + 1, frame.f_back
    warnings.warn(message, CacheWarning, stacklevel=level)  # at the user's line


def distrust(problem: str, strict: bool) -> None:
    """Report an untrusted cache path: raise when ``strict``, else warn once.

    Raises
    ------
    LazyjitError
        When ``strict`` (the ``strict_cache`` flag).
    """
    if strict:
        raise op_error("cache", f"{problem} (an error because strict_cache=true; without "
                                "it lazyjit compiles into a private folder instead)")
    warn_once(f"lazyjit: {problem}. Compiling into a private per-process folder instead "
              "(nothing is reused across processes); set strict_cache=true to make this "
              "an error")


def _problem(st: os.stat_result, path: str, folder: bool) -> str | None:
    """Why ``path`` (its ``lstat``) may not hold the user's code, with the fix; or None."""
    if stat.S_ISLNK(st.st_mode):
        return f"{path} is a symbolic link (remove it)"
    if folder and not stat.S_ISDIR(st.st_mode):
        return f"{path} is not a folder (remove it, or choose another cache_dir)"
    if not folder and not stat.S_ISREG(st.st_mode):
        return f"{path} is not a regular file (remove it)"
    if st.st_uid != os.geteuid():
        return (f"{path} is owned by uid {st.st_uid}, not by you (uid {os.geteuid()}): "
                f"remove it, or choose another cache_dir")
    if st.st_mode & 0o022:
        fix = f"chmod 700 {path}" if folder else f"chmod go-w {path}"
        return (f"{path} is writable by group or others (mode {stat.S_IMODE(st.st_mode):o}): "
                f"{fix}")
    return None


def _ancestor_problem(st: os.stat_result, path: str) -> str | None:
    """Why a folder above ``cache_dir`` would let another user replace what is below."""
    if stat.S_ISLNK(st.st_mode):
        return f"{path} changed while it was checked"
    if not stat.S_ISDIR(st.st_mode):
        return f"{path}, in the path of cache_dir, is not a folder: choose another cache_dir"
    if st.st_uid not in (0, os.geteuid()):
        return (f"{path}, a folder above cache_dir, is owned by uid {st.st_uid}, neither "
                f"you nor root: choose a cache_dir outside it")
    if st.st_mode & 0o022 and not st.st_mode & stat.S_ISVTX:
        return (f"{path}, a folder above cache_dir, is writable by group or others "
                f"(mode {stat.S_IMODE(st.st_mode):o}): chmod go-w {path}, or choose "
                f"another cache_dir")
    return None


def _mkdir(path: str) -> None:
    """Create folder ``path`` as ``0700`` whatever the umask (an existing one is left as
    it is, for the checks to judge)."""
    try:
        os.mkdir(path, 0o700)
    except FileExistsError:
        return
    os.chmod(path, 0o700)


def _check_folder(path: str, create: bool = False) -> None:
    """Raises :class:`Untrusted` unless ``path`` is the user's own private-enough folder."""
    if create:
        _mkdir(path)
    problem = _problem(os.lstat(path), path, folder=True)
    if problem:
        raise Untrusted(problem)


def _resolve(cache_dir: str) -> str:
    """``cache_dir`` resolved, checked down from ``/`` and created (``0700``) where
    missing, with its ``tmp`` folder.

    Raises
    ------
    Untrusted
        A check failed, or the folder cannot be created or used (``OSError``).
    """
    try:
        real = os.path.realpath(cache_dir)
        path = os.sep
        for part in ["", *real.strip(os.sep).split(os.sep)[:-1]]:
            path = os.path.join(path, part)
            if not os.path.lexists(path):
                _mkdir(path)  # below checked folders: ours
            problem = _ancestor_problem(os.lstat(path), path)
            if problem:
                raise Untrusted(problem)
        _check_folder(real, create=True)
        _check_folder(os.path.join(real, "tmp"), create=True)
    except OSError as e:
        raise Untrusted(f"cache_dir {cache_dir} cannot be used ({e.strerror}: "
                        f"{e.filename}): choose another cache_dir") from None
    return real


def root(cache_dir: str, strict: bool) -> str | None:
    """The resolved, trusted ``cache_dir`` (checked once per process), or None when it
    cannot be trusted or used (warned once).

    Raises
    ------
    LazyjitError
        When it cannot be trusted and ``strict``.
    """
    found = _ROOTS.get(cache_dir)
    if found is None:
        try:
            found = (_resolve(cache_dir), "")
        except Untrusted as e:
            found = (None, f"not using the disk cache: {e}")
        _ROOTS[cache_dir] = found
    if found[0] is None:
        distrust(found[1], strict)
    return found[0]


def paths(root: str, key: str) -> tuple[str, str, str]:
    """(key folder, library, sidecar) of ``key`` under the resolved ``root``."""
    folder = os.path.join(root, key[:2])
    return folder, os.path.join(folder, key[2:] + ".so"), os.path.join(folder, key[2:] + ".sum")


def sidecar_text(key: str, data: bytes) -> str:
    """The sidecar of the library ``data`` compiled for ``key``."""
    return (f"lazyjit compiled module\nkey {key}\nsize {len(data)}\n"
            f"xxh3_128 {xxhash.xxh3_128_hexdigest(data)}\n")


def _read(path: str) -> bytes | None:
    """The bytes of the user's own regular file ``path`` (never through a symlink), or
    None when there is none.

    Raises
    ------
    Untrusted
        It is a symlink, not a regular file, someone else's, or writable by others.
    """
    try:
        fd = os.open(path, _FILE_FLAGS)
    except FileNotFoundError:
        return None
    except OSError as e:
        if e.errno == errno.ELOOP:
            raise Untrusted(f"{path} is a symbolic link (remove it)") from None
        raise
    with open(fd, "rb") as f:
        problem = _problem(os.fstat(fd), path, folder=False)
        if problem:
            raise Untrusted(problem)
        return f.read()


def verify(root: str, key: str) -> str | None:
    """Check the entry of ``key``: None when it is there and sound, ``"missing"``, or why
    it is corrupt.

    Raises
    ------
    Untrusted
        A folder or file of the entry fails a trust check.
    """
    return _checked(root, key)[0]


def read_verified(root: str, key: str) -> bytes | None:
    """The bytes of the entry of ``key`` when it is there and sound (read once: what is
    returned is what was checked, for code loaded from bytes, as a CUDA image), else
    None.

    Raises
    ------
    Untrusted
        A folder or file of the entry fails a trust check.
    """
    problem, data = _checked(root, key)
    return data if problem is None else None


def _checked(root: str, key: str) -> tuple[str | None, bytes | None]:
    """(:func:`verify`'s answer, the bytes it checked)."""
    folder, lib, sidecar = paths(root, key)
    try:
        problem = _problem(os.lstat(folder), folder, folder=True)
    except FileNotFoundError:
        return "missing", None
    if problem:
        raise Untrusted(problem)
    data = _read(lib)
    if data is None:
        return "missing", None
    recorded = _read(sidecar)
    if recorded is None:
        return "its sidecar (.sum) is missing: written by an older lazyjit, or damaged", None
    if recorded.decode("ascii", "replace") != sidecar_text(key, data):
        return "its bytes or key do not match its sidecar (.sum)", None
    return None, data


@contextlib.contextmanager
def key_lock(root: str, key: str) -> Iterator[None]:
    """Hold the cross-process lock of ``key`` (``tmp/<key>.lock``, ``fcntl.flock``).

    The holder removes the lock file before releasing it; a waiter that then gets the lock
    of a removed file opens the path again (so a removed lock file never lets two in).
    """
    path = os.path.join(root, "tmp", key + ".lock")
    while True:
        with _LOCK:  # (a fork copies _KEY_FDS with every descriptor it holds)
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
            _KEY_FDS.add(fd)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            try:
                same = os.path.samestat(os.fstat(fd), os.lstat(path))
            except FileNotFoundError:
                same = False
        except BaseException:
            _close_key_fd(fd)
            raise
        if same:
            break
        _close_key_fd(fd)
    try:
        yield
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)
        _close_key_fd(fd)


def _close_key_fd(fd: int) -> None:
    with _LOCK:
        _KEY_FDS.discard(fd)
        os.close(fd)


def remove(root: str, key: str) -> None:
    """Delete the entry of ``key`` (library first: a sidecar alone is no entry)."""
    _, lib, sidecar = paths(root, key)
    for path in (lib, sidecar):
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)


def publish(root: str, key: str, tmp_lib: str) -> str:
    """Move the freshly compiled ``tmp_lib`` (in a work folder under ``root``) to the
    entry of ``key``, sidecar first, each by an atomic rename; return its path.

    Raises
    ------
    Untrusted
        The key folder exists and fails a trust check.
    """
    folder, lib, sidecar = paths(root, key)
    _check_folder(folder, create=True)
    os.chmod(tmp_lib, 0o700)
    with open(tmp_lib, "rb") as f:
        data = f.read()
    tmp_sidecar = tmp_lib + ".sum"
    fd = os.open(tmp_sidecar, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
    with open(fd, "w") as f:
        f.write(sidecar_text(key, data))
    os.replace(tmp_sidecar, sidecar)
    os.replace(tmp_lib, lib)
    return lib


def fetch(root: str, key: str, strict: bool, build: Callable[[str], str]) -> str | None:
    """The verified library of ``key`` under ``root``; on a miss, the one process that
    gets the key's lock calls ``build(work folder)`` (returning a compiled temporary
    library) and publishes it, and the others wait for it.  A corrupt entry is removed
    and rebuilt, with a warning.  None when the entry cannot be trusted (warned once):
    the caller compiles privately.

    Raises
    ------
    LazyjitError
        An entry cannot be trusted or written (``OSError``), and ``strict``.
    """
    lib = paths(root, key)[1]
    try:
        if verify(root, key) is None:
            count("disk_cache_hits")
            return lib
        _check_folder(root, create=True)  # (again, if removed since this process began)
        _check_folder(os.path.join(root, "tmp"), create=True)
        with key_lock(root, key):
            why = verify(root, key)  # another process may have just written it
            if why is None:
                count("disk_cache_hits")
                return lib
            if why != "missing":
                warn_once(f"lazyjit: the compiled module {lib} is corrupt ({why}); "
                          f"removed and compiled again")
                remove(root, key)
            return publish(root, key, build(work_folder(root)))
    except Untrusted as e:
        problem = f"not loading compiled code: {e}"
    except OSError as e:  # removed while in use, full, ...
        problem = f"not using the disk cache: {root} cannot be used ({e})"
    distrust(problem, strict)
    return None


def work_folder(root: str | None) -> str:
    """This process's folder for temporaries: ``tmp/<pid>-<random>`` under the trusted
    ``root`` (the first call sweeps the folders of processes that are gone), or a private
    ``lazyjit-<pid>-<random>`` folder in the system's temporary folder when ``root`` is
    None.  Held (``flock``) while this process lives, removed when it exits."""
    base = os.path.join(root, "tmp") if root else tempfile.gettempdir()
    with _LOCK:
        found = _WORK.get(base)
        if found is not None and found[2] == os.getpid():
            if os.path.isdir(found[0]):
                return found[0]
            del _WORK[base]  # removed under this process: make another
            os.close(found[1])
        if root:
            _sweep(base)
        while True:
            path = tempfile.mkdtemp(prefix=f"{'' if root else 'lazyjit-'}{os.getpid()}-",
                                    dir=base)
            fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
            fcntl.flock(fd, fcntl.LOCK_EX)  # waits only while a sweep removes it
            try:
                if os.path.samestat(os.fstat(fd), os.lstat(path)):
                    break
            except FileNotFoundError:
                pass
            os.close(fd)
        _WORK[base] = (path, fd, os.getpid())
        return path


def private_folder(root: str | None) -> str:
    """Where to compile a module that is loaded from no cache: :func:`work_folder` of
    ``root``, or of the system's temporary folder when ``root`` is None or unusable."""
    if root is not None:
        try:
            return work_folder(root)
        except OSError:
            pass
    return work_folder(None)


def _sweep(base: str) -> None:
    """Remove the work folders and key lock files under ``base`` that no live process
    holds (their process was killed)."""
    try:
        names = os.listdir(base)
    except OSError:
        return
    for name in names:
        path = os.path.join(base, name)
        try:
            fd = os.open(path, _FILE_FLAGS)
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)  # held: its process is alive
            continue
        try:
            if stat.S_ISDIR(os.fstat(fd).st_mode):
                shutil.rmtree(path, ignore_errors=True)
            elif name.endswith(".lock"):
                os.unlink(path)
        except OSError:
            pass
        finally:
            os.close(fd)


@atexit.register
def _remove_work_folders() -> None:
    for path, fd, pid in list(_WORK.values()):
        if pid == os.getpid():
            shutil.rmtree(path, ignore_errors=True)
            os.close(fd)
    _WORK.clear()


def _forget_work_folders() -> None:
    """In a forked child: the parent's work folders and key locks stay the parent's.  A
    ``flock`` belongs to the open file, which the child's copy of a descriptor shares:
    kept, it would hold the lock after the parent's thread released it, and the child's
    own wait for that key would never end."""
    global _LOCK
    for fd in [fd for _, fd, _ in _WORK.values()] + list(_KEY_FDS):
        with contextlib.suppress(OSError):
            os.close(fd)
    _WORK.clear()
    _KEY_FDS.clear()
    _LOCK = threading.Lock()


def _before_fork() -> None:
    UPDATING.acquire()  # (first, as threads holding it take _LOCK: see trace/state.py)
    _LOCK.acquire()


def _after_fork_in_parent() -> None:
    _LOCK.release()
    UPDATING.release()


def _after_fork_in_child() -> None:
    _forget_work_folders()
    UPDATING.release()


# (the lock held across the fork: no descriptor is opened or closed meanwhile)
os.register_at_fork(before=_before_fork, after_in_parent=_after_fork_in_parent,
                    after_in_child=_after_fork_in_child)
