#!/usr/bin/env python3
"""Print python3's directory of pure modules (purelib) for an install prefix.

    scripts/pythondir.py PREFIX

`make install` puts vtrace.py there.  The path scheme is python3's own
(sysconfig), so that the module lands where this python3 looks: on Debian,
whose python3 reads /usr/local/lib/python3.X/dist-packages ('posix_local',
written for the base /usr), that is the place for PREFIX /usr/local, and
/usr/lib/python3/dist-packages ('deb_system') the one for /usr; any other
prefix, and any other python3, gets PREFIX/lib/python3.X/site-packages.
"""
import sys
import sysconfig


def purelib(prefix):
    prefix = prefix.rstrip("/") or "/"
    get_default = getattr(sysconfig, "get_default_scheme", None)
    scheme = get_default() if get_default else "posix_prefix"
    base = prefix
    if scheme == "posix_local":
        if prefix == "/usr/local":
            base = "/usr"
        elif prefix == "/usr" and "deb_system" in sysconfig.get_scheme_names():
            scheme = "deb_system"
        else:
            scheme = "posix_prefix"
    return sysconfig.get_path("purelib", scheme, vars={"base": base, "platbase": base})


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: scripts/pythondir.py PREFIX")
    print(purelib(sys.argv[1]))
