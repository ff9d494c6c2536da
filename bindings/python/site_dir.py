# libtopo-sched: network-topology-aware scheduling for GPU clusters.
# Copyright (C) 2026 The libtopo-sched authors. GPL-3.0-or-later.
"""Print the directory under PREFIX where this interpreter looks for packages, or nothing.

Run by bindings/python/meson.build at configure time with the interpreter the package is
installed for. Meson's own answer (sysconfig's scheme with the prefix put in) is not always
searched: Debian's python3 gives <prefix>/lib/python3/dist-packages, but for /usr/local it
imports from /usr/local/lib/python3.11/dist-packages (meson issue 8739). So ask the
interpreter which of the directories it searches (site.getsitepackages(), and the user site
for a prefix such as ~/.local) lie under the prefix. A candidate must sit in a lib* folder
right under the prefix, so that prefix /usr does not take /usr/local/lib/... .

usage: site_dir.py PREFIX
"""
import os
import site
import sys


def candidates():
    dirs = list(site.getsitepackages()) if hasattr(site, "getsitepackages") else []
    if site.ENABLE_USER_SITE:
        dirs.append(site.getusersitepackages())
    return dirs


def main():
    prefix = os.path.normpath(os.path.abspath(sys.argv[1]))
    for d in candidates():
        d = os.path.normpath(d)
        rel = os.path.relpath(d, prefix)
        if rel == os.curdir or rel.startswith(os.pardir):
            continue
        if rel.split(os.sep)[0].startswith("lib"):
            print(d)
            return 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
