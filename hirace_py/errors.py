"""The one exception type the CLI turns into a one-line error and exit status 2."""


class HiraceError(Exception):
    """A user-facing error: bad input, a failed compile, a kernel fault.

    The message must name what is wrong and where (file:line, TOML key,
    parameter name), because the CLI prints it as the whole diagnosis.
    """
