"""vtrace: Python binding of libvtrace, the lean in-process collector.

    import vtrace

    vtrace.init(name="wan-t2v")            # optional when VTRACE_DIR is set

    vtrace.tag("model", "wan2.1")         # the run's metadata (also init(tags=...))
    with vtrace.region("denoise"):
        ...
    with vtrace.region("denoise_step", step=i, timestep=t):
        ...

    @vtrace.region("vae_decode")
    def decode(latents):
        ...

    vtrace.frames(16)
    vtrace.blocks(1)

Each process writes a new DIR/NAME-rankR.vtr (NAME-rankR-pidP.vtr when that
name is taken: an existing file is never overwritten; path() says which),
which vanalyze reads directly and
vtrace-export turns into Chrome trace JSON.  The environment (VTRACE_DIR,
VTRACE_NAME, VTRACE_RANK or RANK, VTRACE_REGIONS, VTRACE_SAMPLE_MS,
VTRACE_LIVE, VTRACE_TAGS="model=wan2.1,exp=a") configures it without code changes; see collector/vtrace.h.

This is ctypes over libvtrace.so, with no build step.  The library is
looked for in $VTRACE_LIB, where `make install` put it (for a module it
installed), next to this file, in build/ of the source tree this file sits
in, then by the dynamic loader.  Without it every call is a no-op,
`available` is False, and one line on stderr says so.
"""

import ctypes
import ctypes.util
import functools
import inspect
import os
import sys

__all__ = ["available", "init", "shutdown", "flush", "enabled", "path", "region",
           "instant", "counter", "frames", "blocks", "tag"]


# The library's directory relative to this file's, as `make install` writes
# it into the copy it installs; None in the source tree.  Relative, so that
# a tree staged under DESTDIR or moved as a whole still finds its library.
_INSTALLED_LIBDIR = None


def _candidates():
    env = os.environ.get("VTRACE_LIB")
    if env:
        return [env]
    here = os.path.dirname(os.path.abspath(__file__))
    found = ctypes.util.find_library("vtrace")
    installed = ([os.path.join(here, _INSTALLED_LIBDIR, "libvtrace.so")]
                 if _INSTALLED_LIBDIR is not None else [])
    return installed + [os.path.join(here, "libvtrace.so"),
                        os.path.join(here, "..", "..", "build", "libvtrace.so"),
                        found or "libvtrace.so"]


def _load():
    errors = []
    for cand in _candidates():
        if os.sep in cand and not os.path.exists(cand):
            errors.append("%s: no such file" % cand)
            continue
        try:
            # The recording calls are a few dozen nanoseconds: PyDLL keeps the
            # GIL instead of dropping and retaking it around each of them.
            return ctypes.PyDLL(cand), ctypes.CDLL(cand)
        except OSError as exc:
            errors.append(str(exc))
    sys.stderr.write("vtrace: libvtrace.so not found (%s); recording is off\n"
                     % "; ".join(errors))
    return None, None


_fast, _slow = _load()
available = _fast is not None

if available:
    _fast.vt_region_begin.argtypes = [ctypes.c_char_p]
    _fast.vt_region_begin.restype = None
    _fast.vt_region_end.argtypes = []
    _fast.vt_region_end.restype = None
    _fast.vt_instant.argtypes = [ctypes.c_char_p]
    _fast.vt_instant.restype = None
    _fast.vt_counter.argtypes = [ctypes.c_char_p, ctypes.c_int64]
    _fast.vt_counter.restype = None
    _fast.vt_frames.argtypes = [ctypes.c_int64]
    _fast.vt_frames.restype = None
    _fast.vt_blocks.argtypes = [ctypes.c_int64]
    _fast.vt_blocks.restype = None
    _fast.vt_region_arg.argtypes = [ctypes.c_char_p, ctypes.c_int64]
    _fast.vt_region_arg.restype = None
    _fast.vt_region_argf.argtypes = [ctypes.c_char_p, ctypes.c_double]
    _fast.vt_region_argf.restype = None
    _slow.vt_tag.argtypes = [ctypes.c_char_p, ctypes.c_char_p]
    _slow.vt_tag.restype = None
    _slow.vt_init.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_int]
    _slow.vt_init.restype = ctypes.c_int
    _slow.vt_shutdown.argtypes = []
    _slow.vt_shutdown.restype = None
    _slow.vt_flush.argtypes = []
    _slow.vt_flush.restype = ctypes.c_int
    _slow.vt_enabled.argtypes = []
    _slow.vt_enabled.restype = ctypes.c_int
    _slow.vt_path.argtypes = []
    _slow.vt_path.restype = ctypes.c_char_p
    _begin = _fast.vt_region_begin
    _end = _fast.vt_region_end
    _arg = _fast.vt_region_arg
    _argf = _fast.vt_region_argf
else:
    def _begin(name):
        pass

    def _arg(key, value):
        pass

    def _argf(key, value):
        pass

    def _end():
        pass


def _bytes(name):
    if isinstance(name, bytes):
        return name
    return str(name).encode("utf-8", "surrogateescape")


def init(dir=None, name=None, rank=None, tags=None):
    """Start recording into DIR/NAME-rankR.vtr; the environment wins over
    the arguments.  tags: the run's metadata, a mapping (see tag()).  True
    when recording."""
    if not available:
        return False
    rank = -1 if rank is None else int(rank)
    ok = _slow.vt_init(None if dir is None else _bytes(os.fspath(dir)),
                       None if name is None else _bytes(name), rank) == 0
    for key, value in (tags or {}).items():
        tag(key, value)
    return ok


def tag(key, value):
    """The run's metadata, key = value (model, resolution, experiment,
    commit): vanalyze puts it in every output and vcompare checks it before
    comparing two runs.  Values are text (str() of anything else)."""
    if available:
        _slow.vt_tag(_bytes(key), _bytes(value))


def shutdown():
    """Write everything and mark the file complete (also runs at exit)."""
    if available:
        _slow.vt_shutdown()


def flush():
    """Write what all threads recorded so far.  True when recording."""
    return available and _slow.vt_flush() == 0


def enabled():
    """True while recording."""
    return available and bool(_slow.vt_enabled())


def path():
    """The file being written, or None."""
    if not available:
        return None
    p = _slow.vt_path()
    return None if p is None else os.fsdecode(p)


def _arg_calls(args):
    """(function, key, value) for each region argument: floats as doubles,
    the rest as integers (bool and int; int() of anything else)."""
    calls = []
    for key, value in args.items():
        if isinstance(value, float):
            calls.append((_argf, _bytes(key), value))
        else:
            calls.append((_arg, _bytes(key), int(value)))
    return tuple(calls)


class region:
    """A region of time on the calling thread: a context manager, or a
    decorator that wraps each call (and each await of a coroutine).
    Keyword arguments are the region's arguments (step=i, timestep=t,
    block_size=16: numbers), recorded with each begin."""

    __slots__ = ("name", "_name", "_args")

    def __init__(self, name, **args):
        self.name = name
        self._name = _bytes(name)
        self._args = _arg_calls(args)

    def _enter(self):
        _begin(self._name)
        for fn, key, value in self._args:
            fn(key, value)

    def __enter__(self):
        self._enter()
        return self

    def __exit__(self, *exc):
        _end()
        return False

    def __call__(self, fn):
        enter = self._enter
        if inspect.iscoroutinefunction(fn):
            @functools.wraps(fn)
            async def awrapper(*args, **kwargs):
                enter()
                try:
                    return await fn(*args, **kwargs)
                finally:
                    _end()
            return awrapper

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            enter()
            try:
                return fn(*args, **kwargs)
            finally:
                _end()
        return wrapper

    def __repr__(self):
        return "vtrace.region(%r)" % (self.name,)


def instant(name):
    """A point in time."""
    if available:
        _fast.vt_instant(_bytes(name))


def counter(name, value):
    """The value of a named counter now (an integer)."""
    if available:
        _fast.vt_counter(_bytes(name), int(value))


def frames(n=1):
    """n more frames produced; vanalyze derives FPS from them."""
    if available:
        _fast.vt_frames(int(n))


def blocks(n=1):
    """n more blocks produced; vanalyze derives blocks per second."""
    if available:
        _fast.vt_blocks(int(n))
