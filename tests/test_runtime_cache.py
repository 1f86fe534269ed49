"""tools.runtime_cache: Verilator's runtime objects are reused across builds with the same compile
flags, and builds with other flags keep their own entries instead of evicting each other."""
from __future__ import annotations

from pathlib import Path

from tools.runtime_cache import FILES, RuntimeCache


def fake_build(d: Path, cflags: str, parallel: int = 0, timing: int = 0, objects: str | None = None) -> Path:
    """A build directory as Verilator leaves it before make (plus objects when `objects` is given)."""
    d.mkdir(parents=True)
    (d / "Vtop_classes.mk").write_text(
        f"VM_COVERAGE = 0\nVM_PARALLEL_BUILDS = {parallel}\nVM_TIMING = {timing}\nVM_TRACE = 0\n"
        "VM_CLASSES_FAST += \\\n  Vtop \\\n\n")
    (d / "Vtop.mk").write_text("VM_USER_CFLAGS = \\\n" + "".join(f"\t{f} \\\n" for f in cflags.split())
                               + "\n\nVM_USER_LDLIBS = \\\n\n")
    if objects is not None:
        for f in FILES:
            (d / f).write_text(f"{objects}:{f}")
    return d


def test_builds_with_other_flags_keep_their_own_entries(tmp_path: Path) -> None:
    cache = RuntimeCache(tmp_path / "sim_build", waves=False, coverage=False)
    fast = fake_build(tmp_path / "a", "-O0 -O2", parallel=1, objects="O2")
    cache.store(fast)
    plain = fake_build(tmp_path / "b", "-O0")
    assert not cache.seed(plain), "a -O0 build must not take the -O2 build's runtime"
    for f in FILES:
        (plain / f).write_text(f"O0:{f}")
    cache.store(plain)
    # both entries are there: a later -O0 build (one C++ file for its design this time) and a later
    # -O2 build each get the objects compiled with their own flags
    later = fake_build(tmp_path / "c", "-O0", parallel=1)
    assert cache.seed(later)
    assert all((later / f).read_text() == f"O0:{f}" for f in FILES)
    later_fast = fake_build(tmp_path / "d", "-O0 -O2")
    assert cache.seed(later_fast)
    assert all((later_fast / f).read_text() == f"O2:{f}" for f in FILES)


def test_seed_needs_the_same_defines_and_keeps_existing_objects(tmp_path: Path) -> None:
    cache = RuntimeCache(tmp_path / "sim_build", waves=False, coverage=False)
    cache.store(fake_build(tmp_path / "a", "-O0", objects="notiming"))
    assert not cache.seed(fake_build(tmp_path / "b", "-O0", timing=1)), "VM_TIMING reaches the runtime's compile"
    # waves is its own cache
    assert not RuntimeCache(tmp_path / "sim_build", waves=True, coverage=False).seed(fake_build(tmp_path / "c", "-O0"))
    own = fake_build(tmp_path / "d", "-O0", objects="own")
    assert not cache.seed(own), "a build that has its objects keeps them"
    assert (own / FILES[0]).read_text() == f"own:{FILES[0]}"
    # no signature before Verilator has run: nothing to seed or store
    empty = tmp_path / "e"
    empty.mkdir()
    assert not cache.seed(empty)
    cache.store(empty)


def test_first_store_wins_and_incomplete_builds_are_not_stored(tmp_path: Path) -> None:
    cache = RuntimeCache(tmp_path / "sim_build", waves=False, coverage=False)
    half = fake_build(tmp_path / "a", "-O0", objects="half")
    (half / FILES[0]).unlink()
    cache.store(half)
    assert not cache.seed(fake_build(tmp_path / "b", "-O0"))
    cache.store(fake_build(tmp_path / "c", "-O0", objects="first"))
    cache.store(fake_build(tmp_path / "d", "-O0", objects="second"))
    probe = fake_build(tmp_path / "e", "-O0")
    assert cache.seed(probe)
    assert (probe / FILES[0]).read_text() == f"first:{FILES[0]}"
