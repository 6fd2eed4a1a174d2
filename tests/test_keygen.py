"""``scorekit keygen`` creates the folders of the key files it writes (README: ``keys/`` comes first)."""

from __future__ import annotations

from scorekit import cli


def test_keygen_creates_the_folder_of_its_key_files(tmp_path):
    private, public = tmp_path / "keys" / "release.pem", tmp_path / "public" / "deep" / "release.pub"
    assert cli.main(["keygen", "--out-private", str(private), "--out-public", str(public)]) == 0
    assert private.read_text().startswith("-----BEGIN PRIVATE KEY-----")
    assert public.read_text().startswith("-----BEGIN PUBLIC KEY-----")
    assert (private.stat().st_mode & 0o777, private.parent.stat().st_mode & 0o077) == (0o600, 0)


def test_keygen_into_a_folder_that_cannot_be_created_is_one_line_exit_2(tmp_path, capsys):
    (tmp_path / "taken").write_text("a file, not a folder")
    code = cli.main(["keygen", "--out-private", str(tmp_path / "taken" / "k.pem"),
                     "--out-public", str(tmp_path / "k.pub")])
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1 and "taken" in err
    assert not (tmp_path / "k.pub").exists()
