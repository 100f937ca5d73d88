"""Hold more than 1,024 open files, as a long workbench session with many clients does:
select() cannot watch an fd numbered past 1024."""

import contextlib
import os
import resource

import pytest


@contextlib.contextmanager
def past_1024():
    """Open /dev/null until an fd past 1,100 is taken (raising the soft limit if needed, and
    skipping the test when the hard limit forbids it); close them all after."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < 1300:
        pytest.skip(f"the hard limit on open files is {hard}")
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, 1300), hard))
    held = [os.open(os.devnull, os.O_RDONLY)]
    try:
        while held[-1] < 1100:
            held.append(os.dup(held[0]))
        yield
    finally:
        for fd in held:
            os.close(fd)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
