"""Writing generated files safely: atomically, never through a planted link, never leaking a
temporary file, and with errors that name the path.

A file is written to a fresh temporary file in the target's own folder (created
exclusively, so a symlink or FIFO planted under a predictable name is never
followed), flushed to disk, then renamed over the target in one step: a reader,
another thread or another process sees either the old complete file or the new
complete one. On Linux the data goes into an unnamed file (``O_TMPFILE``) that gets a name only
once it is complete, so even a process killed outright leaves no temporary file
behind; elsewhere the temporary file is removed on every exit path,
``KeyboardInterrupt`` included, and one left by a killed process is removed by the
next write into that folder once its process has gone.

The cache folder (``$SYMGRAD_CACHE_DIR`` or ``~/.cache/symgrad``) is created
readable and writable by its owner only, and keeps at most
``$SYMGRAD_CACHE_MAX_FILES`` modules (default 512): after each write, the least
recently used beyond that are deleted.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import secrets
import signal
import stat
import tempfile
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from types import FrameType
from typing import BinaryIO

from .errors import FileAccessError, PathIsADirectoryError, file_error

DEFAULT_CACHE_MAX_FILES = 512

# The permission bits a new file gets from the process's umask (read once: os.umask can only be
# read by setting it, which is not thread-safe later on).
_UMASK = os.umask(0)
os.umask(_UMASK)

# `.<target name>.<pid>.<random>.tmp`: the pid says whether its writer is still alive.
_TEMPORARY = re.compile(r"^\..+\.(\d+)\.[0-9a-z_]+\.tmp$")


def cache_directory() -> Path:
    """Where generated modules go by default: ``$SYMGRAD_CACHE_DIR`` or ``~/.cache/symgrad``.

    >>> import os
    >>> os.environ["SYMGRAD_CACHE_DIR"] = "/tmp/my-symgrad-cache"
    >>> str(cache_directory())
    '/tmp/my-symgrad-cache'
    >>> del os.environ["SYMGRAD_CACHE_DIR"]
    """
    configured = os.environ.get("SYMGRAD_CACHE_DIR")
    if configured:
        return Path(configured)
    return Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "symgrad"


def cache_max_files() -> int:
    """How many modules the cache keeps: ``$SYMGRAD_CACHE_MAX_FILES`` (default 512)."""
    configured = os.environ.get("SYMGRAD_CACHE_MAX_FILES", "")
    return int(configured) if configured.strip().isdigit() else DEFAULT_CACHE_MAX_FILES


def make_directory(directory: Path, private: bool = False) -> None:
    """Create ``directory`` (and its parents); ``private`` makes it owner-only (``0o700``)."""
    try:
        directory.mkdir(mode=0o700 if private else 0o777, parents=True, exist_ok=True)
    except FileExistsError as error:  # a file of that name
        raise file_error(
            error, f"cannot create the folder '{directory}': a file is in the way"
        ) from error
    except OSError as error:
        raise file_error(error, f"cannot create the folder '{directory}'") from error
    if not directory.is_dir():
        raise file_error(
            NotADirectoryError(errno.ENOTDIR, "Not a directory"),
            f"'{directory}' is not a folder",
        )


def read_regular_text(path: Path) -> str | None:
    """The text of ``path`` if it is a regular file; None if there is none, or it is a link, a
    FIFO, a device or a socket (which are never opened: a FIFO would block the reader).
    A folder at ``path`` is an error."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return None
    except OSError as error:
        raise file_error(error, f"cannot read '{path}'") from error
    if stat.S_ISDIR(mode):
        raise PathIsADirectoryError(f"symgrad: '{path}' is a folder, not a file")
    if not stat.S_ISREG(mode):
        return None
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        descriptor = os.open(path, flags)
    except FileNotFoundError:
        return None
    except OSError as error:
        if error.errno == errno.ELOOP:  # became a link since lstat
            return None
        raise file_error(error, f"cannot read '{path}'") from error
    with os.fdopen(descriptor, "rb") as file:
        if not stat.S_ISREG(os.fstat(file.fileno()).st_mode):
            return None
        data = file.read()
    try:
        return data.decode()
    except UnicodeDecodeError:
        return None


def write_atomic(target: Path, text: str, private: bool = False) -> None:
    """Write ``text`` to ``target`` so that every reader sees the old or the new complete file.

    Creates the folder if needed (owner-only with ``private``). Whatever is at
    ``target`` (a file, a symlink, a FIFO) is replaced, never written through.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     write_atomic(Path(folder) / "f.py", "x = 1\\n")
    ...     (Path(folder) / "f.py").read_text(), sorted(p.name for p in Path(folder).iterdir())
    ('x = 1\\n', ['f.py'])
    """
    # Absolute, so that a link made relative to the folder's descriptor lands in the folder.
    target = Path(os.path.abspath(target))
    directory = target.parent
    make_directory(directory, private=private)
    if target.is_dir() and not target.is_symlink():
        raise PathIsADirectoryError(f"symgrad: cannot write '{target}': it is a folder")
    _write_complete(target, text, private, replace=True)


def write_new(target: Path, text: str, private: bool = False) -> bool:
    """Create ``target`` holding ``text``, complete, only if nothing has that name: True if it
    was written, False if a file (or link, or anything else) is already there, which is left
    exactly as it was. Readers never see a partial file; two writers racing for one name
    cannot both win.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = Path(folder) / "run_1.py"
    ...     write_new(path, "x = 1\\n"), write_new(path, "x = 2\\n"), path.read_text()
    (True, False, 'x = 1\\n')
    """
    target = Path(os.path.abspath(target))
    make_directory(target.parent, private=private)
    return _write_complete(target, text, private, replace=False)


def _write_complete(target: Path, text: str, private: bool, replace: bool) -> bool:
    directory = target.parent
    remove_orphaned_temporaries(directory)
    mode = (0o600 if private else 0o666) & ~_UMASK
    try:
        written = _write_unnamed(target, text.encode(), mode, replace)
        if written is None:
            written = _write_named(target, text.encode(), mode, replace)
        _sync_directory(directory)
    except FileAccessError:
        raise
    except OSError as error:
        raise file_error(error, f"cannot write '{target}'") from error
    return written


def _write_unnamed(target: Path, data: bytes, mode: int, replace: bool) -> bool | None:
    """Linux: write into an unnamed file (``O_TMPFILE``), give it a name only once it is complete,
    and rename it over the target at once. A process killed while writing leaves nothing behind;
    one killed in the few microseconds between the naming and the rename leaves a temporary that
    the next write into the folder removes. Without ``replace``, the complete file gets the
    target's name only if that name is free (``linkat`` never replaces): whether it did.
    None where the system cannot do this."""
    if not hasattr(os, "O_TMPFILE") or not os.path.isdir("/proc/self/fd"):
        return None
    try:
        descriptor = os.open(target.parent, os.O_TMPFILE | os.O_WRONLY, mode)
    except OSError as error:
        if error.errno in (errno.EOPNOTSUPP, errno.EISDIR, errno.EINVAL, errno.ENOENT):
            return None  # the file system or kernel has no unnamed files
        raise
    with os.fdopen(descriptor, "wb") as file:
        os.fchmod(file.fileno(), mode)
        file.write(data)
        file.flush()
        os.fsync(file.fileno())
        folder = os.open(target.parent, os.O_RDONLY)
        try:
            if not replace:
                return _link_open_file(file.fileno(), folder, target.name)
            _name_and_replace(file.fileno(), folder, target)
        finally:
            os.close(folder)
    return True


def _link_open_file(descriptor: int, folder: int, name: str) -> bool:
    """Give the open unnamed file ``name`` in ``folder`` if that name is free."""
    try:
        # linkat(AT_SYMLINK_FOLLOW) names the open file; os.link calls linkat (not link,
        # which would try to link /proc's symlink itself) only when given a folder fd.
        os.link(f"/proc/self/fd/{descriptor}", name, dst_dir_fd=folder, follow_symlinks=True)
    except FileExistsError:
        return False
    return True


def _name_and_replace(descriptor: int, folder: int, target: Path) -> None:
    """Give the open unnamed file a temporary name in ``folder`` and rename it over ``target``,
    with no Ctrl-C in between: Linux cannot link an open file over an existing name directly."""
    with _interrupts_deferred():
        temporary = _temporary_name(target)
        while not _link_open_file(descriptor, folder, temporary):
            temporary = _temporary_name(target)
        try:
            os.replace(temporary, target)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
            raise


def _write_named(target: Path, data: bytes, mode: int, replace: bool) -> bool:
    """Elsewhere: a named temporary file, removed on every exit path (KeyboardInterrupt
    included); one left by a killed process is removed by a later write. Without ``replace``,
    it is linked to the target's name only if that name is free: whether it was."""
    temporary: str | None = None
    try:
        # mkstemp opens with O_CREAT | O_EXCL (and O_NOFOLLOW where it exists) under a random
        # name, so nothing planted in the folder is ever followed or shared between threads.
        # A Ctrl-C between the file's creation and the assignment would leak it: defer
        # SIGINT over those few bytecodes, so the interrupt arrives inside the try block.
        with _interrupts_deferred():
            descriptor, temporary = tempfile.mkstemp(
                dir=target.parent, prefix=f".{target.name}.{os.getpid()}.", suffix=".tmp"
            )
        with os.fdopen(descriptor, "wb") as file:
            os.fchmod(file.fileno(), mode)
            file.write(data)
            file.flush()
            os.fsync(file.fileno())
        if not replace:
            try:
                os.link(temporary, target, follow_symlinks=False)
            except FileExistsError:
                return False
            return True
        os.replace(temporary, target)
        temporary = None
    finally:
        if temporary is not None:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
    return True


@contextlib.contextmanager
def _interrupts_deferred() -> Iterator[None]:
    """Hold Ctrl-C (and SIGTERM) back while the block runs; one that came meanwhile is
    raised when it ends.

    Masking the signal in this thread is not enough: NumPy's BLAS threads do not mask it,
    the signal is delivered to one of them, and Python then raises KeyboardInterrupt in the
    main thread at its next check, inside the block. So in the main thread the Python
    handler itself is swapped for one that only records the signal. (KeyboardInterrupt is
    raised only in the main thread; other threads need the mask alone.)
    """
    deferred = {signal.SIGINT, signal.SIGTERM}
    masked = hasattr(signal, "pthread_sigmask")
    previous_mask = signal.pthread_sigmask(signal.SIG_BLOCK, deferred) if masked else None
    received: list[tuple[int, FrameType | None]] = []

    def record(number: int, frame: FrameType | None) -> None:
        received.append((number, frame))

    previous_handler = signal.getsignal(signal.SIGINT)
    if previous_handler is not None:  # None: set outside Python, and could not be restored
        try:
            signal.signal(signal.SIGINT, record)
        except ValueError:  # not the main thread: the mask is all there is
            previous_handler = None
    try:
        yield
    finally:
        try:
            if previous_handler is not None:
                signal.signal(signal.SIGINT, previous_handler)
        finally:  # an interrupt arriving just now must not leave the signal masked
            if previous_mask is not None:
                signal.pthread_sigmask(signal.SIG_SETMASK, previous_mask)
        if received:  # what the handler would have done during the block, done now
            if callable(previous_handler):
                previous_handler(*received[0])  # default_int_handler raises KeyboardInterrupt
            elif previous_handler == signal.SIG_DFL:
                signal.raise_signal(signal.SIGINT)


def _temporary_name(target: Path) -> str:
    return str(target.parent / f".{target.name}.{os.getpid()}.{secrets.token_hex(6)}.tmp")


def _sync_directory(directory: Path) -> None:
    """Make the rename itself durable (best effort: not every platform opens folders)."""
    with contextlib.suppress(OSError):
        descriptor = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(descriptor)
        finally:
            os.close(descriptor)


def remove_orphaned_temporaries(directory: Path) -> list[Path]:
    """Delete temporary files in ``directory`` left by writers that were killed (their process
    is gone); returns what was removed."""
    removed: list[Path] = []
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return removed
    for entry in entries:
        match = _TEMPORARY.match(entry.name)
        if match is None or _process_alive(int(match.group(1))):
            continue
        with contextlib.suppress(OSError):
            os.unlink(entry.path)
            removed.append(Path(entry.path))
    return removed


def _process_alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # it exists but belongs to someone else
        return True
    return True


def write_files_together(files: Sequence[tuple[Path, Callable[[BinaryIO], object]]]) -> None:
    """Write files that belong together (a checkpoint's data file and its index): each
    through its ``write(file)`` callback, in the order given, into a temporary file in its
    target's folder, flushed to disk. Only once every one is complete are they renamed over
    their targets, in the same order, with Ctrl-C held back between the renames; then the
    folders are synced.

    An error (or interrupt) while any file is being written leaves every target as it was
    and no temporary file behind. Only a crash of the machine or a kill in the microseconds
    between two renames can leave some targets new and the others old; naming a file last
    (an index) makes that a state its reader can detect.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     data, index = Path(folder) / "m.data", Path(folder) / "m.index"
    ...     write_files_together(
    ...         [(data, lambda file: file.write(b"123")), (index, lambda file: file.write(b"i"))]
    ...     )
    ...     data.read_bytes(), index.read_bytes(), sorted(p.name for p in Path(folder).iterdir())
    (b'123', b'i', ['m.data', 'm.index'])
    """
    # Absolute, so that a later change of the working folder cannot move a target.
    targets = [Path(os.path.abspath(target)) for target, _ in files]
    folders = list(dict.fromkeys(target.parent for target in targets))
    for folder in folders:
        make_directory(folder)
        remove_orphaned_temporaries(folder)
    for target in targets:
        if target.is_dir() and not target.is_symlink():
            raise PathIsADirectoryError(f"symgrad: cannot write '{target}': it is a folder")
    mode = 0o666 & ~_UMASK
    temporaries: list[str] = []
    current = targets[0] if targets else None
    try:
        for target, (_, write) in zip(targets, files, strict=True):
            current = target
            # Created exclusively under a random name (nothing planted is followed); SIGINT is
            # deferred so that the file cannot exist before the list that cleans it up has it.
            with _interrupts_deferred():
                descriptor, temporary = tempfile.mkstemp(
                    dir=target.parent, prefix=f".{target.name}.{os.getpid()}.", suffix=".tmp"
                )
                temporaries.append(temporary)
            with os.fdopen(descriptor, "wb") as file:
                os.fchmod(file.fileno(), mode)
                write(file)
                file.flush()
                os.fsync(file.fileno())
        with _interrupts_deferred():
            while temporaries:
                current = targets[len(targets) - len(temporaries)]
                os.replace(temporaries[0], current)
                temporaries.pop(0)
    except FileAccessError:
        raise
    except OSError as error:
        raise file_error(error, f"cannot write '{current}'") from error
    finally:
        for temporary in temporaries:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
    for folder in folders:
        _sync_directory(folder)


# --- the cache ---------------------------------------------------------------------------------

# Modules compile() names itself in the cache: `<function name>_<16 hex digits>.py`.
_CACHED_MODULE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*_[0-9a-f]{16}\.py$")


def cached_modules(directory: Path | None = None) -> list[Path]:
    """The generated modules in the cache folder, least recently used first."""
    directory = cache_directory() if directory is None else directory
    found = []
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return []
    for entry in entries:
        if _CACHED_MODULE.match(entry.name) and entry.is_file(follow_symlinks=False):
            with contextlib.suppress(OSError):
                found.append((entry.stat(follow_symlinks=False).st_mtime_ns, entry.name))
    return [directory / name for _, name in sorted(found)]


def mark_used(path: Path) -> None:
    """Record a use of a cached module (its modification time orders eviction)."""
    with contextlib.suppress(OSError):
        os.utime(path)


def evict(directory: Path | None = None, keep: int | None = None) -> list[Path]:
    """Delete the least recently used cached modules beyond ``keep`` (default
    ``cache_max_files()``); returns the deleted paths."""
    keep = cache_max_files() if keep is None else keep
    modules = cached_modules(directory)
    doomed = modules[: max(len(modules) - keep, 0)]
    removed = []
    for path in doomed:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
            removed.append(path)
    return removed


def clear_cache(directory: Path | None = None) -> list[Path]:
    """Delete every generated module (and orphaned temporary file) in the cache folder."""
    directory = cache_directory() if directory is None else directory
    removed = evict(directory, keep=0)
    return removed + remove_orphaned_temporaries(directory)
