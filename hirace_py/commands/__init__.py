"""One module per `hirace` sub-command; each exposes `register(subparsers)`."""
