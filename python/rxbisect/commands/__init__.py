"""The `rxb` command: cli.py assembles the parser and dispatches; cli_*.py add one family of
subcommands each; options.py holds the argument definitions several commands share."""
