from typer.testing import CliRunner

from avadata.cli.main import app


def test_every_verb_has_help() -> None:
    runner = CliRunner()
    for verb in ["devnet", "index", "serve", "up", "bench", "decode"]:
        result = runner.invoke(app, [verb, "--help"])
        assert result.exit_code == 0, (verb, result.output)
