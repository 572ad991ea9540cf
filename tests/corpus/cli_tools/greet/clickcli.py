import click

HISTORY: list[str] = []


@click.command()
@click.option("--name", default="world", envvar="GREET_NAME", show_default=True)
@click.option("--times", default=1, type=int)
def cli(name: str, times: int) -> None:
    """Print a greeting."""
    HISTORY.append(name)
    for _ in range(times):
        click.echo(f"Hello, {name}!")


def use_profile(profile: dict[str, str]) -> None:
    """Export a deployment profile to the environment (as the deploy scripts do)."""
    import os

    for key, value in profile.items():
        os.environ[f"GREET_{key.upper()}"] = value
