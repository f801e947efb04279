from typer.testing import CliRunner

from avadata.cli.main import app


def test_every_verb_has_help() -> None:
    runner = CliRunner()
    for verb in ["devnet", "index", "serve", "up", "bench", "decode"]:
        result = runner.invoke(app, [verb, "--help"])
        assert result.exit_code == 0, (verb, result.output)


def test_index_refuses_a_node_url_that_is_not_http_at_once(tmp_path) -> None:
    runner = CliRunner()
    db = f"sqlite:///{tmp_path / 'a.db'}"
    for option, value in [
        ("--rpc", "notaurl"),
        ("--rpc", "ftp://127.0.0.1:1"),
        ("--rpc", "http://"),
        ("--node", "127.0.0.1:9650"),
    ]:
        result = runner.invoke(
            app, ["index", option, value, "--db", db, "--once"], env={"COLUMNS": "200"}
        )
        assert result.exit_code == 2, (option, value, result.output)
        assert f"Invalid value for '{option}'" in result.output, result.output
        assert value in result.output, result.output
    # Nothing was started or written for a refused command.
    assert not (tmp_path / "a.db").exists()
