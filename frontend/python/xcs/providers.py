"""`xcs.providers`: the language-model providers `xcs.llm` calls, by name. A provider is a
Python callable `fn(model: str, prompt: str) -> str`; `register(name, fn, timeout=60.0)`
bounds each call (a call that takes longer raises `xcs.RunError`). `echo` (returns the
prompt) is built in, so programs with LLM calls run deterministically without a network.
"""

import concurrent.futures
import threading

from .errors import RunError

_lock = threading.Lock()
_providers = {}
# the calls run here so that a hung provider cannot block its caller past the timeout
_pool = concurrent.futures.ThreadPoolExecutor(max_workers=64, thread_name_prefix="xcs-provider")


def _echo(model, prompt):
    return prompt


def register(name, fn, timeout=60.0):
    """Registers (or replaces) provider `name`; `timeout` (seconds, None: unbounded) bounds each call."""
    if not callable(fn):
        raise TypeError(f"provider {name!r}: {fn!r} is not callable")
    with _lock:
        _providers[name] = (fn, timeout)


def unregister(name):
    with _lock:
        _providers.pop(name, None)


def names():
    with _lock:
        return sorted(_providers)


def call(name, model, prompt):
    """Calls provider `name` (a `RunError` if it is unknown, fails, times out or returns a
    non-string)."""
    with _lock:
        entry = _providers.get(name)
    if entry is None:
        raise RunError(f"error: no provider named {name!r} (registered: {', '.join(names())})")
    fn, timeout = entry
    future = _pool.submit(fn, model, prompt)
    try:
        out = future.result(timeout=timeout)
    except concurrent.futures.TimeoutError:
        raise RunError(f"error: provider {name!r} timed out after {timeout} s") from None
    except Exception as e:  # the provider's own failure, named
        raise RunError(f"error: provider {name!r} failed: {type(e).__name__}: {e}") from e
    if not isinstance(out, str):
        raise RunError(f"error: provider {name!r} returned a {type(out).__name__}, not a str")
    return out


def bound_providers():
    """name -> fn(model, prompt) for the interpreter (each call bounded by its timeout)."""
    return {n: (lambda n: lambda model, prompt: call(n, model, prompt))(n) for n in names()}


register("echo", _echo, timeout=None)
