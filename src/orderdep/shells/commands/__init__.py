"""CLI commands, one module per area; each attaches its commands to ``orderdep.shells.app.cli``."""
