#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""atheris (libFuzzer for Python) target: loading a hardware profile TOML
(python/rxbisect/profile.py `load`), as `rxb` does for system.profile.

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

Known, open bugs (docs/fuzzing.md) are not reported unless
RXB_FUZZ_KNOWN_BUGS=1 (all) or RXB_FUZZ_KNOWN_BUGS=name[,name...]:
  profile-float-overflow  a float key given an integer beyond the float
      range (freq_ghz = 1 followed by 400 zeros): schema.check() calls
      float(value) -> OverflowError "int too large to convert to float".
  profile-int-digits  an integer of more than 4300 digits: tomllib raises
      ValueError "Exceeds the limit (4300 digits) for integer string
      conversion" (not a TOMLDecodeError, so read_toml() lets it through);
      shorter integers that still reach show() in an error message fail the
      same way there.
  toml-not-utf8  a file that is not UTF-8: tomllib.load() raises
      UnicodeDecodeError (a ValueError, not a TOMLDecodeError), which
      read_toml() does not turn into a ScenarioError (scenario files too).

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

    from rxbisect import profile
    from rxbisect.errors import RxbError

_EXPOSE = os.environ.get("RXB_FUZZ_KNOWN_BUGS", "")


def expose(name):
    """RXB_FUZZ_KNOWN_BUGS=1 / all: every known bug; name,name: those."""
    return _EXPOSE in ("1", "all") or name in _EXPOSE.split(",")


VERBOSE = os.environ.get("RXB_FUZZ_VERBOSE", "") not in ("", "0")

FD = os.memfd_create("fuzz_profile.toml")
PATH = f"/proc/self/fd/{FD}"


def _frames(e):
    tb = e.__traceback__
    while tb is not None:
        yield tb.tb_frame.f_code
        tb = tb.tb_next


def known_bug(e):
    """The name of the known bug this exception is, or None."""
    msg = str(e)
    if isinstance(e, UnicodeDecodeError) and any(
            "tomllib" in f.co_filename for f in _frames(e)):
        return "toml-not-utf8"
    if isinstance(e, OverflowError) and "int too large to convert to float" in msg:
        return "profile-float-overflow"
    if isinstance(e, ValueError) and "Exceeds the limit" in msg and "integer string" in msg:
        return "profile-int-digits"
    return None


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
    except (OverflowError, ValueError) as e:  # UnicodeDecodeError is a ValueError
        name = known_bug(e)
        if name is None or expose(name):
            raise
        if VERBOSE:
            print(f"fuzz_profile: known bug {name}: input skipped "
                  "(RXB_FUZZ_KNOWN_BUGS=1 runs it)", file=sys.stderr)
        return
    check_profile(p)
    if VERBOSE:
        print(f"fuzz_profile: loaded {p.name!r}", file=sys.stderr)


def main():
    atheris.Setup(sys.argv, TestOneInput)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
