#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""atheris (libFuzzer for Python) target: loading a hardware profile TOML
(python/rxbisect/vocab/profile.py `load`), as `rxb` does for system.profile.

Input = the file's bytes. They are written to a memfd and loaded by its
path (/proc/self/fd/N), as a user's profile is, so the whole path runs:
locating and reading the file, tomllib, the schema checks of
rxbisect/schema.py and the profile's own checks.

What is checked:
  - load() returns a Profile or raises ScenarioError / RxbError (the
    front end turns those into one "rxb: error: ..." line). Any other
    exception is a bug and a crash of the target (atheris writes the input).
  - A profile that loads has every section, keys of the declared types
    (ints not bools, floats finite), llc.ddio_ways <= llc.ways, and its
    to_dict() can be written as JSON (the engine config embeds it).
  - An error message is one non-empty line.

Regressions kept as seeds (seeds/profile/regress-*.toml, docs/fuzzing.md):
a file that is not UTF-8, an integer of more than 4300 digits, and a float
key given an integer beyond the float range; each is one error line now.

Run it through tests/fuzz/run.sh (corpus and log in the build dir, as for the C targets):
  tests/fuzz/run.sh build-fuzz 300 fuzz_profile
or directly, with any libFuzzer flag:
  .venv/bin/python tests/fuzz/fuzz_profile.py CORPUS_DIR -max_total_time=60
  .venv/bin/python tests/fuzz/fuzz_profile.py crash-XXXX      # reproduce
"""
import json
import math
import os
import sys

import atheris

with atheris.instrument_imports(include=["rxbisect", "tomllib"]):
    import tomllib  # noqa: F401  (instrumented: the fuzzer sees the TOML parser's edges)

    from rxbisect.errors import RxbError
    from rxbisect.vocab import profile

VERBOSE = os.environ.get("RXB_FUZZ_VERBOSE", "") not in ("", "0")

FD = os.memfd_create("fuzz_profile.toml")
PATH = f"/proc/self/fd/{FD}"


def check_profile(p):
    for sec in profile.SCHEMA.sections:
        body = getattr(p, sec)
        for info in profile.SCHEMA.keys():
            if info.section != sec:
                continue
            v = getattr(body, info.name)
            if info.kind is int and (isinstance(v, bool) or not isinstance(v, int)):
                raise AssertionError(f"{info.full} = {v!r}: not an int")
            if info.kind is float and not (isinstance(v, float) and math.isfinite(v)):
                raise AssertionError(f"{info.full} = {v!r}: not a finite float")
            if info.kind is bool and not isinstance(v, bool):
                raise AssertionError(f"{info.full} = {v!r}: not a bool")
            if info.kind is str and not isinstance(v, str):
                raise AssertionError(f"{info.full} = {v!r}: not a string")
    if p.llc.ddio_ways > p.llc.ways:
        raise AssertionError("llc.ddio_ways > llc.ways accepted")
    json.dumps(p.to_dict())


def TestOneInput(data):
    os.ftruncate(FD, 0)
    os.pwrite(FD, data, 0)
    try:
        p = profile.load(PATH)
    except RxbError as e:
        msg = str(e)
        if not msg or "\n" in msg.strip():
            raise AssertionError(f"error message not one line: {msg!r}") from e
        if VERBOSE:
            print(f"fuzz_profile: rejected: {msg}", file=sys.stderr)
        return
    check_profile(p)
    if VERBOSE:
        print(f"fuzz_profile: loaded {p.name!r}", file=sys.stderr)


def main():
    atheris.Setup(sys.argv, TestOneInput)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
