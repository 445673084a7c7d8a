"""`python -m sdk._cli`: the `spool` command."""

from sdk._cli import main

main()
