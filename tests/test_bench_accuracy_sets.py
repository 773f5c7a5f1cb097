"""The accuracy sets' bench as a developer weighs a change with it: every mistake written
out, and a later run's mistakes compared with those line by line."""

import pytest

from bench import bench_accuracy_sets as sets
from bench.pbr.render import fresh_noise


def test_changed_counts_a_mistake_made_twice_and_only_in_the_sets_read():
    before = ["T 9008: missed red small flat at (1, 2)", "T 9008: missed red small flat at (1, 2)",
              "N 9700: false blue large upright at (5, 5)"]
    after = ["T 9008: missed red small flat at (1, 2)", "T 9009: false green small flat at (3, 3)"]
    mended, made = sets.changed(before, after, ["T"])
    assert mended == ["T 9008: missed red small flat at (1, 2)"]   # one of the two, and not N's
    assert made == ["T 9009: false green small flat at (3, 3)"]


def test_a_set_label_with_spaces_is_told_from_its_seed():
    line = "A (bench_detect's held out) 9218: missed green small upright at (505, 384)"
    assert sets.changed([line], [], ["A (bench_detect's held out)"]) == ([line], [])
    assert sets.changed([line], [], ["A"]) == ([], [])


def test_mistakes_written_out_read_back_against_the_same_run_change_nothing(tmp_path, capsys):
    out = tmp_path / "before.txt"
    sets.main(["--sets", "T", "--mistakes", str(out)])
    printed = capsys.readouterr().out
    total = int(printed.split("total over 1 sets: ")[1].split()[0])
    lines = out.read_text().splitlines()
    assert len(lines) == total and all(line.startswith("T 90") for line in lines)
    out.write_text("\n".join(lines + ["T 9001: missed red small flat at (1, 2)"]) + "\n")
    sets.main(["--sets", "T", "--against", str(out)])
    assert "1 mended, 0 made" in capsys.readouterr().out


def test_a_missing_file_to_compare_against_is_a_clear_error_before_any_reading(tmp_path, capsys):
    with pytest.raises(SystemExit) as stop:
        sets.main(["--sets", "T", "--against", str(tmp_path / "nowhere.txt")])
    assert stop.value.code == 2
    err = capsys.readouterr()
    assert "cannot read" in err.err and "mistakes:" not in err.out


@pytest.mark.parametrize("args, reason", [(["--sets", "no such set"], "no set's label holds"),
                                          (["--sets", "T", "--mistakes", "/nowhere/out.txt"], "no directory")])
def test_a_set_that_is_not_there_or_a_file_that_cannot_be_written_is_found_out_first(args, reason, capsys):
    with pytest.raises(SystemExit) as stop:
        sets.main(args)
    assert stop.value.code == 2
    err = capsys.readouterr()
    assert reason in err.err and "mistakes:" not in err.out


def test_noise_seeds_read_other_pictures_of_the_same_scenes_each_under_its_own_label(monkeypatch, capsys):
    seen = []

    def first_picture_only(label, pictures):
        seed, r = next(iter(pictures))
        seen.append((label, seed, r.spec.sensor.noise_seed, len(r.truth.pieces)))
        return sets.Score()

    monkeypatch.setattr(sets, "read", first_picture_only)
    sets.main(["--sets", "T", "--noise-seed", "0", "3"])
    (own_label, own_seed, own_noise, own_pieces), (label, seed, noise, pieces) = seen
    assert (own_label, own_seed, own_noise) == ("T", 9000, 9000)   # 0: the scenes' own pictures
    assert (label, seed, noise) == ("T (noise 3)", 9000, 3)
    assert pieces == own_pieces   # the same table, pictured again
    printed = capsys.readouterr().out
    assert "T (10 scenes)" in printed and "T (noise 3) (10 scenes)" in printed and "total over 2 sets" in printed
    assert fresh_noise(3, 9201) == 309201 and fresh_noise(0, 9201) is None   # the path-traced sets' draws
    line = "T (noise 3) 9001: missed red small flat at (1, 2)"
    assert sets.changed([line], [], ["T (noise 3)"]) == ([line], []) and sets.changed([line], [], ["T"]) == ([], [])
